"""What an answered questionnaire would change, before it is written (the Catalog screen's Import… preview):
each answer beside the catalog's current value and its source, conflicts named, and only the answers the
user takes written."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop.usecases.offerings import load_catalog_set
from desktop.usecases.questionnaire import AnswersInvalid, import_questionnaire
from desktop.usecases.questionnaire_preview import preview_questionnaire
from desktop.usecases.user_catalogs import offering_values
from tests.usecases.test_questionnaire import OFFERING, answer_everything, export


@pytest.fixture
def user_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "user-catalogs"
    monkeypatch.setenv("LINKVET_CATALOG_DIR", str(folder))
    return folder


GPU, PRICE = f"offering[{OFFERING}].gpu", f"offering[{OFFERING}].price.gpu_hour"


def test_a_first_answer_is_new_and_the_preview_writes_nothing(tmp_path: Path, user_dir: Path) -> None:
    answered = tmp_path / "answered.xlsx"
    answer_everything(export(tmp_path, needs=False), answered)
    preview = preview_questionnaire(answered, load_catalog_set(), "raksmart")
    by_key = {a.key: a for a in preview.answers}
    assert by_key[GPU].what == "new" and by_key[GPU].now is None and by_key[GPU].answer == "H100 SXM"
    assert by_key[PRICE].answer == 2.2 and by_key[PRICE].unit == "per GPU-hour"
    assert "Li Wei, sales engineer" in by_key[GPU].source and by_key[GPU].as_of == "2026-12-03"
    assert (by_key[GPU].sheet, by_key[GPU].row) != ("", 0)
    assert not (user_dir / "raksmart.overlay.toml").exists()


def test_a_changed_answer_is_a_conflict_and_only_the_answers_taken_are_written(
    tmp_path: Path, user_dir: Path
) -> None:
    first = tmp_path / "first.xlsx"
    answer_everything(export(tmp_path, needs=False), first)
    import_questionnaire(first, load_catalog_set(), "raksmart")
    revised = tmp_path / "revised.xlsx"
    answer_everything(
        export(tmp_path, needs=False),
        revised,
        {GPU: "H200 SXM", PRICE: 1.9, "meta.answered_on": "2026-12-10"},
    )
    preview = preview_questionnaire(revised, load_catalog_set(), "raksmart")
    conflicts = {a.key: a for a in preview.conflicts}
    assert set(conflicts) == {GPU, PRICE}
    assert (conflicts[PRICE].now, conflicts[PRICE].answer) == (2.2, 1.9)
    assert conflicts[PRICE].now_source is not None and conflicts[PRICE].now_source.as_of == "2026-12-03"
    assert "first.xlsx" in (conflicts[PRICE].now_source.source or "")
    assert {a.what for a in preview.answers if a.key not in conflicts} == {"same"}
    # take the new price, keep the GPU the catalog says
    keep = preview.kept_back([PRICE])
    assert keep == {GPU}
    import_questionnaire(revised, load_catalog_set(), "raksmart", keep=keep)
    values = offering_values(load_catalog_set().provider("raksmart"), OFFERING)  # type: ignore[arg-type]
    assert values["price.gpu_hour"][0] == 1.9 and values["gpu"][0] == "H100 SXM"
    assert values["price.gpu_hour"][1].as_of == "2026-12-10"  # type: ignore[union-attr]
    assert values["gpu"][1].as_of == "2026-12-03"  # type: ignore[union-attr]


def test_a_bad_answer_makes_the_preview_refuse_as_the_import_does(tmp_path: Path, user_dir: Path) -> None:
    bad = tmp_path / "bad.xlsx"
    answer_everything(export(tmp_path, needs=False), bad, {f"offering[{OFFERING}].gpus_per_node": "eight"})
    with pytest.raises(AnswersInvalid) as raised:
        preview_questionnaire(bad, load_catalog_set(), "raksmart")
    assert [p.key for p in raised.value.problems] == [f"offering[{OFFERING}].gpus_per_node"]
    skipped = preview_questionnaire(bad, load_catalog_set(), "raksmart", skip_invalid=True)
    assert [p.key for p in skipped.problems] == [f"offering[{OFFERING}].gpus_per_node"]
    assert all(a.key != f"offering[{OFFERING}].gpus_per_node" for a in skipped.answers)
    assert not (user_dir / "raksmart.overlay.toml").exists()
