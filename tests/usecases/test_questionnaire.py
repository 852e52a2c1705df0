"""The questionnaire round trip (issue 13 §1): a workbook exported for RakSmart, answered as a vendor would
(with openpyxl here: every drop-down given one of its allowed values, every number a valid one; and once
through LibreOffice), imported into the user's catalog, ranked — RakSmart's coverage and score move as the
answers say, each fact's source is visible in `catalog list`, the Catalog screen's rows and the export; bad
answers give the loader's messages with sheet, row and key and write nothing."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from openpyxl import load_workbook
from openpyxl.worksheet.worksheet import Worksheet

from catalogs.needs import EXAMPLE_NEEDS, load_needs
from catalogs.scoring import rank_offerings
from desktop.usecases.offerings import load_catalog_set, offering_rows, rows_with_reference
from desktop.usecases.questionnaire import (
    AnswersInvalid,
    QuestionnaireRequest,
    export_questionnaire,
    import_questionnaire,
)
from desktop.usecases.questionnaire_workbook import ANSWER, EVIDENCE, KEY

OFFERING = "high-defence-gpu-server"
# What RakSmart "answers" where the value matters for ranking; every other drop-down gets its first allowed
# value and every other number the middle of its range.
ANSWERS: dict[str, Any] = {
    "meta.answered_by": "Li Wei, sales engineer",
    "meta.answered_on": "2026-12-03",
    "service.sla_uptime_percent": 99.9,
    "service.ddos_protection_gbit_s": 1000,
    "service.delivery_days": 3,
    f"offering[{OFFERING}].gpu": "H100 SXM",
    f"offering[{OFFERING}].gpus_per_node": 8,
    f"offering[{OFFERING}].gpu_memory_gb": 80,
    f"offering[{OFFERING}].intra_node.kind": "nvswitch",
    f"offering[{OFFERING}].intra_node.bandwidth_gbytes_s": 900,
    f"offering[{OFFERING}].inter_node.fabric": "infiniband",
    f"offering[{OFFERING}].inter_node.bandwidth_gbit_s": 3200,
    f"offering[{OFFERING}].inter_node.rails": 8,
    f"offering[{OFFERING}].storage.local_nvme_tb": 15.36,
    f"offering[{OFFERING}].storage.network_gbit_s": 100,
    f"offering[{OFFERING}].price.gpu_hour": 2.2,
    f"offering[{OFFERING}].price.node_month": 12_000,
    f"offering[{OFFERING}].currency": "USD",
    f"offering[{OFFERING}].min_term_days": 30,
    f"offering[{OFFERING}].max_gpus": 256,
    f"offering[{OFFERING}].regions": "san-jose",
    "region[san-jose].endpoints": "203.0.113.10, https://lg.example.net/",
}


@pytest.fixture
def user_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "user-catalogs"
    monkeypatch.setenv("LINKVET_CATALOG_DIR", str(folder))
    return folder


def export(tmp_path: Path, language: str = "en", needs: bool = True) -> Path:
    out = tmp_path / f"raksmart-{language}.xlsx"
    export_questionnaire(
        QuestionnaireRequest(
            load_catalog_set(),
            "raksmart",
            out,
            needs=load_needs(EXAMPLE_NEEDS) if needs else None,
            language=language,
        )
    )
    return out


def validations(ws: Worksheet) -> dict[str, Any]:
    """Answer cell (e.g. "H12") → its data validation."""
    found = {}
    for validation in ws.data_validations.dataValidation:
        for cell in str(validation.sqref).split():
            found[cell] = validation
    return found


def allowed(book: Any, validation: Any) -> list[str]:
    formula = validation.formula1 or ""
    if formula.startswith('"'):
        return formula.strip('"').split(",")
    match = re.match(r"Lists!\$([A-Z]+)\$1:\$\1\$(\d+)", formula)
    assert match, formula
    lists = book["Lists"]
    return [lists[f"{match[1]}{n}"].value for n in range(1, int(match[2]) + 1)]


def answer_everything(source: Path, target: Path, overrides: dict[str, Any] | None = None) -> int:
    """Answer every question with a drop-down or a number range as a vendor would, and the keys of
    `ANSWERS`; returns how many cells were answered."""
    wanted = {**ANSWERS, **(overrides or {})}
    book = load_workbook(source)
    answered = 0
    for ws in book.worksheets:
        if ws["A2"].value != "key":  # About, Lists
            continue
        checks = validations(ws)
        for row in ws.iter_rows(min_row=3, max_col=EVIDENCE + 1):
            key = row[KEY].value
            if not key:
                continue
            cell = row[ANSWER]
            validation = checks.get(cell.coordinate)
            if key in wanted:
                value = wanted[key]
                if validation is not None and validation.type == "list" and key not in (overrides or {}):
                    assert str(value) in allowed(book, validation), (key, value)
            elif validation is not None and validation.type == "list":
                value = allowed(book, validation)[0]
            elif validation is not None and validation.type in ("decimal", "whole"):
                low, high = float(validation.formula1), float(validation.formula2)
                value = (low + high) / 2 if validation.type == "decimal" else int((low + high) // 2)
            else:
                continue
            cell.value = value
            answered += 1
    book.save(target)
    return answered


def raksmart(ranking: Any) -> Any:
    return max((e for e in ranking.entries if e.provider == "raksmart"), key=lambda e: e.score_min)


def test_the_workbook_has_what_the_vendor_needs_and_locks_the_rest(tmp_path: Path, user_dir: Path) -> None:
    book = load_workbook(export(tmp_path))
    assert book.sheetnames == ["Provider", "Offerings", "About", "Lists"]
    assert book["Lists"].sheet_state == "hidden"
    about = {row[0]: row[1] for row in book["About"].iter_rows(values_only=True)}
    assert about["format"] == "linkvet-questionnaire" and about["format_version"] == 1
    assert about["provider"] == "raksmart"
    for name in ("Provider", "Offerings"):
        ws = book[name]
        assert ws.protection.sheet is True
        assert ws.column_dimensions["A"].hidden is True
        header = [c.value for c in ws[2]]
        assert header[:9] == [
            "key",
            "Question",
            "Why it matters",
            "Unit",
            "Allowed values",
            "What linkvet knows now",
            "Its source",
            "Answer",
            "Evidence (spec sheet link, test IP, document name)",
        ]
        for row in ws.iter_rows(min_row=3):
            if row[KEY].value:
                assert row[ANSWER].protection.locked is False and row[EVIDENCE].protection.locked is False
                assert all(c.protection.locked for c in row[KEY:ANSWER])
    offerings = book["Offerings"]
    rows = {row[KEY].value: row for row in offerings.iter_rows(min_row=3) if row[KEY].value}
    checks = validations(offerings)
    fabric = checks[rows[f"offering[{OFFERING}].inter_node.fabric"][ANSWER].coordinate]
    assert fabric.type == "list" and allowed(book, fabric) == [
        "infiniband",
        "roce",
        "ethernet",
        "efa",
        "other",
    ]
    gpu = checks[rows[f"offering[{OFFERING}].gpu"][ANSWER].coordinate]
    assert "H100 SXM" in allowed(book, gpu)  # a long list, on the hidden Lists sheet
    per_node = checks[rows[f"offering[{OFFERING}].gpus_per_node"][ANSWER].coordinate]
    assert (per_node.type, per_node.formula1, per_node.formula2) == ("whole", "1", "72")
    price = checks[rows[f"offering[{OFFERING}].price.gpu_hour"][ANSWER].coordinate]
    assert price.type == "decimal" and float(price.formula1) > 0
    # what linkvet knows now, with its source, so the vendor corrects rather than retypes
    provider = {row[KEY].value: row for row in book["Provider"].iter_rows(min_row=3) if row[KEY].value}
    ddos = provider["service.ddos_protection_gbit_s"]
    assert ddos[5].value == "1000" and "source document 001" in ddos[6].value
    assert provider["region[san-jose].line_types"][5].value == "cn2-gia, bgp"
    # with --needs: the questions come in the order their answers could move the ranking, and the job's
    # needs are stated
    texts = [str(c.value) for c in offerings["B"] if c.value]
    assert any("we need" in t.lower() or "documents ask 200–400 Gbit/s" in t for t in texts)
    order = [str(r[KEY].value) for r in offerings.iter_rows(min_row=3) if r[KEY].value]
    assert order.index(f"offering[{OFFERING}].intra_node.kind") < order.index(f"offering[{OFFERING}].cooling")
    assert order.index(f"offering[{OFFERING}].price.gpu_hour") < order.index(
        f"offering[{OFFERING}].storage.local_nvme_tb"
    )


def test_the_questions_are_written_in_chinese_with_the_answer_column_headed_回答(
    tmp_path: Path, user_dir: Path
) -> None:
    book = load_workbook(export(tmp_path, "zh_CN", needs=False))
    assert book.sheetnames[:3] == ["服务商", "服务器配置", "说明"]
    ws = book["服务器配置"]
    header = [c.value for c in ws[2]]
    assert header[0] == "key" and header[ANSWER] == "回答"
    questions = {row[KEY].value: row[1].value for row in ws.iter_rows(min_row=3) if row[KEY].value}
    assert questions[f"offering[{OFFERING}].inter_node.fabric"] == "服务器之间用于训练的网络"
    assert "yes / no" in [row[4].value for row in ws.iter_rows(min_row=3) if row[KEY].value]  # values stay


def test_answered_imported_and_ranked_raksmart_moves_as_the_answers_say(
    tmp_path: Path, user_dir: Path
) -> None:
    needs = load_needs(EXAMPLE_NEEDS)
    before = raksmart(rank_offerings(needs, load_catalog_set()))
    answered = tmp_path / "answered.xlsx"
    assert answer_everything(export(tmp_path), answered) >= 30
    result = import_questionnaire(answered, load_catalog_set(), "raksmart")
    assert result.overlay == user_dir / "raksmart.overlay.toml" and result.overlay.exists()
    assert {c.what for c in result.changes} == {"added"}
    catalogs = load_catalog_set()
    after = raksmart(rank_offerings(needs, catalogs))
    assert before.coverage < 0.1 and after.coverage > 0.8
    assert after.score_min > before.score_min and after.total > before.total
    assert after.region == "san-jose" and after.gpu == "H100 SXM" and after.gpus_per_node == 8
    fabric = after.judgement("inter_node_fabric")
    assert fabric.score == 1.0
    assert (
        fabric.source.source
        == "RakSmart's answer to the linkvet questionnaire (Li Wei, sales engineer; answered.xlsx)"
    )  # type: ignore[union-attr]
    assert fabric.source.as_of == "2026-12-03"  # type: ignore[union-attr]
    # each fact's source visible where the catalogs are listed (catalog list --json, the Catalog screen)
    row = next(r for r in offering_rows(catalogs, provider="raksmart"))
    fact = row["fact_sources"]["offering.inter_node.fabric"]
    assert fact["file"] == str(user_dir / "raksmart.overlay.toml") and fact["standing"] == "claimed"
    assert "answered.xlsx" in fact["source"]
    screen_row = next(r for r in rows_with_reference(catalogs) if r["provider"] == "raksmart")
    assert screen_row["fact_sources"]["offering.gpu"]["source"] == fact["source"]
    # the bundled catalog file is not touched
    assert (
        "H100"
        not in Path(catalogs.provider("raksmart").path).read_text(encoding="utf-8").split("[[offerings]]")[1]
    )  # type: ignore[arg-type]


def test_importing_twice_changes_nothing_and_a_changed_answer_keeps_the_earlier_value(
    tmp_path: Path, user_dir: Path
) -> None:
    answered = tmp_path / "answered.xlsx"
    answer_everything(export(tmp_path), answered)
    import_questionnaire(answered, load_catalog_set(), "raksmart")
    first = (user_dir / "raksmart.overlay.toml").read_bytes()
    again = import_questionnaire(answered, load_catalog_set(), "raksmart")
    assert {c.what for c in again.changes} == {"unchanged"}
    assert (user_dir / "raksmart.overlay.toml").read_bytes() == first
    revised = tmp_path / "revised.xlsx"
    answer_everything(
        export(tmp_path),
        revised,
        {f"offering[{OFFERING}].price.gpu_hour": 1.9, "meta.answered_on": "2026-12-10"},
    )
    changed = import_questionnaire(revised, load_catalog_set(), "raksmart")
    price = next(c for c in changed.changes if c.key.endswith("price.gpu_hour"))
    assert (price.what, price.before, price.after) == ("changed", 2.2, 1.9)
    text = (user_dir / "raksmart.overlay.toml").read_text(encoding="utf-8")
    assert "[[facts.history]]" in text and 'replaced_on = "' in text
    from desktop.usecases.catalog_facts import fact_lines

    catalog = load_catalog_set().provider("raksmart")
    line = next(
        f for f in fact_lines(catalog, OFFERING) if f.key.startswith(f"offering[{OFFERING}].price.gpu_hour")
    )  # type: ignore[arg-type]
    assert line.value == 1.9 and [h.value for h in line.history] == [2.2]


def test_bad_answers_are_reported_with_sheet_row_key_and_nothing_is_written(
    tmp_path: Path, user_dir: Path
) -> None:
    answered = tmp_path / "bad.xlsx"
    answer_everything(
        export(tmp_path),
        answered,
        {
            f"offering[{OFFERING}].gpus_per_node": "eight",  # text in a number
            f"offering[{OFFERING}].cooling": "water",  # a value outside the list
            f"offering[{OFFERING}].price.gpu_hour": -2.5,  # a negative price
        },
    )
    book = load_workbook(answered)
    offerings = book["Offerings"]
    rows = {row[KEY].value: row for row in offerings.iter_rows(min_row=3) if row[KEY].value}
    rows[f"offering[{OFFERING}].max_gpus"][ANSWER].value = "=A1*2"  # a formula
    spare = offerings.max_row + 1
    offerings.cell(spare, KEY + 1, f"offering[{OFFERING}].warp_drive")  # a key no question has
    offerings.cell(spare, ANSWER + 1, "yes")
    book.save(answered)
    with pytest.raises(AnswersInvalid) as raised:
        import_questionnaire(answered, load_catalog_set(), "raksmart")
    problems = {p.key: p for p in raised.value.problems}
    assert set(problems) == {
        f"offering[{OFFERING}].gpus_per_node",
        f"offering[{OFFERING}].cooling",
        f"offering[{OFFERING}].price.gpu_hour",
        f"offering[{OFFERING}].max_gpus",
        f"offering[{OFFERING}].warp_drive",
    }
    per_node = problems[f"offering[{OFFERING}].gpus_per_node"]
    assert (
        per_node.sheet == "Offerings" and per_node.row == rows[f"offering[{OFFERING}].gpus_per_node"][0].row
    )
    assert per_node.given == "eight" and per_node.expected == "a whole number from 1 to 72"
    assert "'nvswitch'" not in problems[f"offering[{OFFERING}].cooling"].message
    assert problems[f"offering[{OFFERING}].cooling"].expected == "air / liquid / hybrid"
    assert problems[f"offering[{OFFERING}].price.gpu_hour"].message == "-2.5 is outside the range asked for"
    assert problems[f"offering[{OFFERING}].max_gpus"].message == "a formula is not an answer"
    assert "no question has this key" in problems[f"offering[{OFFERING}].warp_drive"].message
    assert f"Offerings, row {per_node.row}, offering[{OFFERING}].gpus_per_node" in str(raised.value)
    assert not (user_dir / "raksmart.overlay.toml").exists()
    # --skip-invalid writes the valid ones and lists the rest
    skipped = import_questionnaire(answered, load_catalog_set(), "raksmart", skip_invalid=True)
    assert {p.key for p in skipped.skipped} == set(problems)
    assert skipped.overlay.exists() and "gpus_per_node" not in skipped.overlay.read_text(encoding="utf-8")


def test_an_answer_date_that_is_not_one_is_reported_on_its_row(tmp_path: Path, user_dir: Path) -> None:
    answered = tmp_path / "answered.xlsx"
    answer_everything(export(tmp_path), answered, {"meta.answered_on": "last Tuesday"})
    with pytest.raises(AnswersInvalid) as raised:
        import_questionnaire(answered, load_catalog_set(), "raksmart")
    (problem,) = raised.value.problems
    assert (problem.sheet, problem.key, problem.given, problem.expected) == (
        "Provider",
        "meta.answered_on",
        "last Tuesday",
        "YYYY-MM-DD",
    )
    assert not (user_dir / "raksmart.overlay.toml").exists()
    assert import_questionnaire(answered, load_catalog_set(), "raksmart", as_of="2026-12-05").answers >= 30


def test_answer_text_is_stored_as_text_and_neutralised_where_it_is_shown_again(
    tmp_path: Path, user_dir: Path
) -> None:
    answered = tmp_path / "answered.xlsx"
    answer_everything(export(tmp_path), answered)
    book = load_workbook(answered)
    provider = book["Provider"]
    row = next(r for r in provider.iter_rows(min_row=3) if r[KEY].value == "service.support_hours")
    row[ANSWER].value = '=HYPERLINK("http://evil.example/","click")'
    row[ANSWER].data_type = "s"  # typed as text (a leading apostrophe in a spreadsheet), not a formula
    book.save(answered)
    import_questionnaire(answered, load_catalog_set(), "raksmart")
    catalog = load_catalog_set().provider("raksmart")
    assert catalog is not None and catalog.service is not None
    assert catalog.service.support_hours == '=HYPERLINK("http://evil.example/","click")'  # stored as text
    again = load_workbook(export(tmp_path))
    shown = next(r for r in again["Provider"].iter_rows(min_row=3) if r[KEY].value == "service.support_hours")
    assert shown[5].value == '\'=HYPERLINK("http://evil.example/","click")' and shown[5].data_type == "s"


def test_a_questionnaire_for_another_provider_or_not_one_at_all_is_refused(
    tmp_path: Path, user_dir: Path
) -> None:
    from desktop.usecases.errors import InputError

    with pytest.raises(InputError, match="is for provider raksmart, not lambda"):
        import_questionnaire(export(tmp_path), load_catalog_set(), "lambda")
    junk = tmp_path / "junk.xlsx"
    junk.write_bytes(b"PK\x03\x04 not really")
    with pytest.raises(InputError, match="not an xlsx workbook"):
        import_questionnaire(junk, load_catalog_set(), "raksmart")


def test_libreoffice_opens_the_questionnaire_and_its_saved_answers_import(
    tmp_path: Path, user_dir: Path
) -> None:
    from tests.export.libreoffice import ALL_SHEETS_CSV, convert

    exported = export(tmp_path)
    done = convert(exported, ALL_SHEETS_CSV, tmp_path / "csv", tmp_path / "profile")
    assert done.returncode == 0, done.stderr
    offerings_csv = (tmp_path / "csv" / "raksmart-en-Offerings.csv").read_text(encoding="utf-8")
    assert "How the GPUs inside a server are connected" in offerings_csv
    answered = tmp_path / "answered.xlsx"
    answer_everything(exported, answered)
    resaved = tmp_path / "resaved"
    done = convert(answered, "xlsx:Calc MS Excel 2007 XML", resaved, tmp_path / "profile")
    assert done.returncode == 0, done.stderr
    result = import_questionnaire(resaved / "answered.xlsx", load_catalog_set(), "raksmart")
    assert result.answers >= 30 and {c.what for c in result.changes} == {"added"}


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.lists(
        st.tuples(
            st.integers(min_value=0, max_value=10_000),
            st.one_of(
                st.booleans(),
                st.integers(min_value=-(10**9), max_value=10**9),
                st.floats(allow_nan=False, allow_infinity=False),
                # what a cell can hold (an xlsx cell cannot hold control characters)
                st.text(alphabet=st.characters(blacklist_categories=("Cc", "Cs")), max_size=40),
            ),
        ),
        min_size=1,
        max_size=12,
    )
)
def test_any_answers_import_or_are_refused_with_sheet_row_and_key(
    tmp_path: Path, user_dir: Path, values: list[tuple[int, Any]]
) -> None:
    """Issue 12: questionnaire answers are untrusted input; whatever is typed, the import either writes a
    valid overlay or refuses with its own error naming sheet, row and key, and writes nothing."""
    from desktop.usecases.errors import InputError

    exported = tmp_path / "q.xlsx"
    if not exported.exists():
        exported = export(tmp_path, needs=False)
    book = load_workbook(exported)
    cells = [
        row[ANSWER]
        for ws in book.worksheets
        if ws["A2"].value == "key"
        for row in ws.iter_rows(min_row=3, max_col=EVIDENCE + 1)
        if row[KEY].value
    ]
    for index, value in values:
        cells[index % len(cells)].value = value
    answered = tmp_path / "fuzz.xlsx"
    book.save(answered)
    overlay = user_dir / "raksmart.overlay.toml"
    overlay.unlink(missing_ok=True)
    try:
        import_questionnaire(answered, load_catalog_set(), "raksmart")
    except AnswersInvalid as exc:
        assert exc.problems and all(p.key and p.message for p in exc.problems)
        assert not overlay.exists()
    except InputError as exc:  # e.g. a date answered as something that is not one
        assert str(exc)
        assert not overlay.exists()
    else:
        from catalogs.user import load_with_user

        assert load_with_user().ok
