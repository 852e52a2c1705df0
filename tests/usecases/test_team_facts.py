"""Where a user's facts are kept (`desktop.usecases.overlay_home`) and the team's facts read for the catalogs
(`desktop.usecases.team_facts`), on a real PostgreSQL store: the folder with a SQLite store, the team's store
with a PostgreSQL one; the window's edits and an acceptance report recorded with office, who and when; a
change another office made meanwhile never undone; a store that cannot be read leaves the catalogs loading,
said once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from catalogs.overlay import OverlayFact
from desktop.usecases.accept_import import import_report
from desktop.usecases.offerings import load_catalog_set
from desktop.usecases.overlay_home import FolderHome, TeamHome, overlay_home
from desktop.usecases.team_facts import team_facts
from desktop.usecases.user_catalogs import apply_facts, delete_offering, own_fields, save_offering
from probes.store import Store
from probes.store_location import StoreUrl, parse_location
from tests.accept.conftest import CATALOGS
from tests.accept.test_accept_import import report_of

OFFERING = "high-defence-gpu-server"


@pytest.fixture
def team(postgres_url: str) -> StoreUrl:
    location = parse_location(postgres_url)
    assert isinstance(location, StoreUrl)
    return location


def test_the_home_is_the_folder_with_sqlite_and_the_team_store_with_postgresql(
    team: StoreUrl, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("LINKVET_DB", raising=False)
    monkeypatch.setenv("LINKVET_OFFICE", "shanghai")
    assert isinstance(overlay_home(), FolderHome)
    assert isinstance(overlay_home(db=tmp_path / "s.sqlite3"), FolderHome)
    assert isinstance(overlay_home(tmp_path / "mine"), FolderHome)
    home = overlay_home(db=team)
    assert isinstance(home, TeamHome) and home.office == "shanghai" and "@" in home.recorded_by
    monkeypatch.setenv("LINKVET_DB", team.url)
    assert isinstance(overlay_home(), TeamHome)
    assert overlay_home(db=team, office="beijing").office == "beijing"  # type: ignore[attr-defined]


def test_the_windows_edits_go_to_the_team_store_with_office_and_who(team: StoreUrl) -> None:
    home = TeamHome(team, "shanghai", "li@sh-pc")
    catalogs = load_catalog_set(db=team)
    save_offering(catalogs, "raksmart", OFFERING, {"gpus_per_node": 8}, "Li Wei (sales)", "2026-12-03", home)
    created = TeamHome(team, "beijing", "wang@bj-pc")
    catalogs = load_catalog_set(db=team)
    save_offering(catalogs, "raksmart", "my-h100", {"gpu": "H100 SXM"}, "quote", "2026-12-03", created)
    catalogs = load_catalog_set(db=team)
    raksmart = catalogs.provider("raksmart")
    assert raksmart is not None and raksmart.team is not None
    offering = next(o for o in raksmart.offerings if o.id == OFFERING)
    assert offering.gpus_per_node == 8 and offering.provenance("gpus_per_node").file == raksmart.team
    assert own_fields(raksmart, OFFERING) == {"gpus_per_node"}
    delete_offering(catalogs, "raksmart", "my-h100", TeamHome(team, "beijing", "wang@bj-pc"))
    with Store(team) as store:
        records = [(r.kind, r.key, r.office, r.recorded_by) for r in store.vendor_facts(provider="raksmart")]
    assert records == [
        ("fact", f"offering[{OFFERING}].gpus_per_node", "shanghai", "li@sh-pc"),
        ("fact", "offering[my-h100].gpu", "beijing", "wang@bj-pc"),
        ("forget", "offering[my-h100].gpu", "beijing", "wang@bj-pc"),
    ]
    assert all(o.id != "my-h100" for o in load_catalog_set(db=team).provider("raksmart").offerings)  # type: ignore[union-attr]


def test_a_change_another_office_made_meanwhile_is_not_undone(team: StoreUrl) -> None:
    catalogs = load_catalog_set(db=team)
    key = f"offering[{OFFERING}].gpus_per_node"
    slow = TeamHome(team, "shanghai", "li@sh")
    slow.current("raksmart")  # read, then another office writes before this one does
    apply_facts(
        catalogs,
        "raksmart",
        [OverlayFact(key=key, value=8, source="b", as_of="2026-12-03")],
        TeamHome(team, "beijing", "w@bj"),
    )
    price = f"offering[{OFFERING}].price.gpu_hour"
    before = slow.current("raksmart")  # what a use-case read: now with Beijing's fact
    after = before.model_copy(
        update={"facts": (*before.facts, OverlayFact(key=price, value=2.2, source="a", as_of="2026-12-03"))}
    )
    slow._read["raksmart"] = before.model_copy(update={"facts": ()})  # as if read before Beijing wrote
    slow.write(after.model_copy(update={"facts": tuple(f for f in after.facts if f.key != key)}))
    overlay = TeamHome(team).current("raksmart")
    assert overlay.fact(key) is not None and overlay.fact(key).value == 8  # type: ignore[union-attr]
    assert overlay.fact(price) is not None


def test_an_acceptance_report_goes_to_the_team_store(team: StoreUrl, tmp_path: Path) -> None:
    report = report_of("pcie-sold-as-nvswitch", "h100-sxm-8x", tmp_path)
    catalogs = load_catalog_set([CATALOGS], db=team)
    result = import_report(report, catalogs, TeamHome(team, "shanghai", "li@sh"))
    assert str(result.overlay).startswith("the team store postgresql://") and result.checks_added > 0
    with Store(team) as store:
        kinds = {r.kind for r in store.vendor_facts(provider="trialco")}
    assert "check" in kinds  # and its verified facts, where the report gives any
    again = import_report(report, load_catalog_set([CATALOGS], db=team), TeamHome(team, "beijing", "w@bj"))
    assert again.checks_added == 0 and not [c for c in again.changes if c.what in ("added", "changed")]
    trialco = load_catalog_set([CATALOGS], db=team).provider("trialco")
    assert trialco is not None and trialco.checks and trialco.team is not None


def test_a_team_store_that_cannot_be_read_leaves_the_catalogs_loading(tmp_path: Path) -> None:
    away = parse_location("postgresql://nobody@127.0.0.1:1/nowhere?connect_timeout=2")
    facts, problems = team_facts(away)
    assert facts is None and len(problems) == 1
    assert "the team's vendor facts could not be read" in str(problems[0]) and "ranking without them" in str(
        problems[0]
    )
    loaded = load_catalog_set(db=away)
    assert loaded.providers and any("could not be read" in str(e) for e in loaded.errors)
    assert team_facts(tmp_path / "s.sqlite3") == (None, [])
    assert json.dumps([str(e) for e in loaded.errors])  # plain text, no traceback
