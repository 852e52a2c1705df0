"""The window in team mode keeps what the user learns about vendors with the team (issue 32 §2): with a
PostgreSQL store set in the settings (and no LINKVET_DB), an offering typed into the form and a questionnaire
imported through the dialog are records in the store with this office and user, nothing is written to the
catalog folder, the Catalog and Score screens read the team's facts (another office's answers too), and with
the store set back to the data folder's SQLite file the folder's catalogs are shown again. A real server
(tests/postgres_server.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from desktop.usecases.offerings import load_catalog_set
from desktop.usecases.overlay_home import overlay_home
from desktop.usecases.questionnaire import import_questionnaire
from probes.store import Store
from probes.store_location import StoreUrl
from tests.gui.test_catalog_editing import NEW, import_dialog, new_offering, ranked
from tests.usecases.test_questionnaire import OFFERING, answer_everything, export


@pytest.fixture
def team(window, qtbot, postgres_url: str, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """The window on a team store, as the office beijing; its Catalog and Score screens loaded from it."""
    monkeypatch.delenv("LINKVET_DB", raising=False)
    monkeypatch.setenv("LINKVET_OFFICE", "beijing")
    window.context.settings.store_url = postgres_url
    catalog = window.go_to("catalog")
    qtbot.waitUntil(lambda: catalog.model.rowCount() > 0 and not catalog.loading, timeout=20_000)
    score = window.go_to("score")
    qtbot.waitUntil(lambda: score.ranking is not None and not score.busy, timeout=20_000)
    window.go_to("catalog")
    yield catalog, score
    window.context.settings.store_url = ""  # what the screens load after this test: the data folder's file
    window.context.workers.wait(30_000)


def _user_dir() -> Path:
    return Path(os.environ["LINKVET_CATALOG_DIR"])


def _records(url: str) -> list[tuple[str, str | None, str]]:
    with Store(url, readonly=True) as store:
        return [(f.key, f.office, f.recorded_by) for f in store.vendor_facts(provider="raksmart")]


def _listed(catalog) -> set[str]:  # type: ignore[no-untyped-def]
    return {
        catalog.model.row(r)["id"]
        for r in range(catalog.model.rowCount())
        if catalog.model.row(r)["provider"] == "raksmart"
    }


def test_an_offering_saved_from_the_form_is_a_team_record_that_every_screen_reads(
    window, team, qtbot, postgres_url: str
) -> None:
    catalog, score = team
    form = new_offering(catalog, qtbot)
    assert form.problems == [] and form.save_button.isEnabled(), form.status.text()
    form.save_button.click()
    qtbot.waitUntil(lambda: not form.isVisible(), timeout=10_000)
    assert "the team store postgresql://" in window.statusBar().currentMessage()
    records = _records(postgres_url)
    assert {k for k, _o, _w in records} >= {f"offering[{NEW}].gpu", f"offering[{NEW}].price.gpu_hour"}
    assert {o for _k, o, _w in records} == {"beijing"} and all(w for _k, _o, w in records)
    assert not (_user_dir() / "raksmart.overlay.toml").exists()  # in the store, not the folder
    qtbot.waitUntil(lambda: not catalog.loading and NEW in _listed(catalog), timeout=20_000)
    qtbot.waitUntil(lambda: NEW in ranked(score, "raksmart") and not score.busy, timeout=20_000)
    assert ranked(score, "raksmart")[NEW].gpu == "H200 SXM"
    # Another office's answers, recorded in the store, are what the window ranks on once it loads again.
    answered = _user_dir().parent / "shanghai.xlsx"
    answer_everything(export(_user_dir().parent, needs=False), answered)
    url = StoreUrl(postgres_url)
    import_questionnaire(
        answered,
        load_catalog_set(db=url),
        "raksmart",
        source="Li Wei (sales)",
        folder=overlay_home(db=url, office="shanghai"),
    )
    before = ranked(score, "raksmart")[OFFERING].coverage
    window.context.catalog_events.changed.emit()
    qtbot.waitUntil(
        lambda: not score.busy and ranked(score, "raksmart")[OFFERING].coverage > before, timeout=20_000
    )
    assert {o for _k, o, _w in _records(postgres_url)} == {"beijing", "shanghai"}
    # The data folder's SQLite store: no team, the folder's catalogs (which never had the offering).
    window.context.settings.store_url = ""
    qtbot.waitUntil(lambda: not catalog.loading and NEW not in _listed(catalog), timeout=20_000)
    qtbot.waitUntil(lambda: not score.busy and NEW not in ranked(score, "raksmart"), timeout=20_000)


def test_a_questionnaire_imported_through_the_dialog_goes_to_the_team_store(
    team, qtbot, postgres_url: str, tmp_path: Path
) -> None:
    catalog, score = team
    before = ranked(score, "raksmart")[OFFERING]
    answered = tmp_path / "answered.xlsx"
    price = f"offering[{OFFERING}].price.gpu_hour"
    answer_everything(export(tmp_path, needs=False), answered, {price: 1.9})
    dialog = import_dialog(catalog, answered)
    dialog.preview_button.click()
    qtbot.waitUntil(lambda: not dialog.running, timeout=20_000)
    assert dialog.preview is not None and dialog.import_button.isEnabled(), dialog.status.text()
    dialog.import_button.click()
    qtbot.waitUntil(lambda: dialog.imported is not None, timeout=20_000)
    assert "the team store postgresql://" in dialog.status.text()
    assert not (_user_dir() / "raksmart.overlay.toml").exists()
    records = _records(postgres_url)
    assert price in {k for k, _o, _w in records} and {o for _k, o, _w in records} == {"beijing"}
    qtbot.waitUntil(
        lambda: (
            not score.busy
            and ranked(score, "raksmart")[OFFERING].coverage > before.coverage
            and ranked(score, "raksmart")[OFFERING].price_gpu_hour == 1.9
        ),
        timeout=20_000,
    )
