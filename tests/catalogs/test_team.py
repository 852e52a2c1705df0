"""A team's vendor facts as records (`catalogs.team`): replayed into the overlay one person's file would hold
(history, verified facts standing, keys taken out, checks), the offices' conflicting answers kept and listed
until someone chooses, an overlay's changes turned back into records, and the team's facts merged over a
user's catalogs naming the store they came from."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from catalogs.errors import FormatVersionError, SchemaError
from catalogs.overlay import OverlayFact, OverlayFile, StoredCheck
from catalogs.team import TeamRecord, changes_between, parse_record, team_overlays
from catalogs.user import TeamFacts, load_with_user

OFFERING = "high-defence-gpu-server"
PRICE = f"offering[{OFFERING}].price.gpu_hour"
DAY_US = 86_400_000_000
T0 = 1_796_000_000_000_000


class Records:
    def __init__(self) -> None:
        self.made: list[TeamRecord] = []

    def fact(
        self, key: str, value: Any, office: str | None, *, standing: str = "claimed", source: str = "answer"
    ) -> int:
        body = {"value": value, "standing": standing, "source": source, "as_of": "2026-12-01"}
        return self._add("fact", key, body, office)

    def choice(self, key: str, record: int, office: str) -> int:
        return self._add("choice", key, {"record": record}, office)

    def forget(self, key: str, office: str) -> int:
        return self._add("forget", key, {}, office)

    def _add(self, kind: str, key: str, body: dict[str, Any], office: str | None) -> int:
        ident = len(self.made) + 1
        who = f"{office or 'someone'}-user@host"
        self.made.append(TeamRecord(ident, "raksmart", kind, key, body, office, who, T0 + ident * DAY_US))
        return ident

    def overlay(self) -> Any:
        overlays, problems = team_overlays(self.made)
        assert problems == []
        return overlays["raksmart"]


def test_records_replay_into_the_overlay_with_history_and_a_verified_fact_standing() -> None:
    records = Records()
    records.fact(PRICE, 3.1, "shanghai")
    records.fact(PRICE, 2.9, "shanghai")  # the same office's newer answer: an update, no conflict
    records.fact(f"offering[{OFFERING}].gpu", "H100 PCIe", None, standing="verified", source="verified on h1")
    records.fact(f"offering[{OFFERING}].gpu", "H100 SXM", "beijing")  # a claim never replaces it
    team = records.overlay()
    price = team.overlay.fact(PRICE)
    assert price.value == 2.9 and [h.value for h in price.history] == [3.1]
    assert team.overlay.fact(f"offering[{OFFERING}].gpu").value == "H100 PCIe"
    assert team.conflicts == ()
    assert team.recorded[PRICE].id == 2 and team.recorded[PRICE].office == "shanghai"
    records.forget(PRICE, "beijing")
    assert records.overlay().overlay.fact(PRICE) is None


def test_two_offices_answers_that_differ_are_both_kept_the_newer_used_until_someone_chooses() -> None:
    records = Records()
    shanghai = records.fact(PRICE, 3.1, "shanghai")
    beijing = records.fact(PRICE, 2.9, "beijing")
    team = records.overlay()
    (conflict,) = team.conflicts
    assert conflict.key == PRICE and conflict.used == beijing
    assert [(a.record, a.value, a.office) for a in conflict.answers] == [
        (beijing, 2.9, "beijing"),
        (shanghai, 3.1, "shanghai"),
    ]
    assert team.overlay.fact(PRICE).value == 2.9
    records.choice(PRICE, shanghai, "beijing")
    chosen = records.overlay()
    assert chosen.conflicts == () and chosen.overlay.fact(PRICE).value == 3.1
    assert chosen.recorded[PRICE].id == shanghai
    # A newer answer that differs from the choice is a conflict again (the choice is its chooser's answer).
    again = records.fact(PRICE, 2.5, "shanghai")
    (conflict,) = records.overlay().conflicts
    assert conflict.used == again and {a.record for a in conflict.answers} == {again, shanghai}


def test_agreeing_offices_and_test_addresses_are_no_conflict() -> None:
    records = Records()
    records.fact(PRICE, 3.1, "shanghai")
    records.fact(PRICE, 3.1, "beijing")
    records.fact("region[san-jose].endpoints", [{"kind": "ping", "host": "127.0.0.41"}], "shanghai")
    records.fact("region[san-jose].endpoints", [{"kind": "ping", "host": "127.0.0.42"}], "beijing")
    assert records.overlay().conflicts == ()


def test_an_overlays_changes_become_records() -> None:
    before = OverlayFile(
        provider="raksmart",
        facts=(
            OverlayFact(key=PRICE, value=3.1, source="a", as_of="2026-12-01"),
            OverlayFact(key=f"offering[{OFFERING}].gpu", value="H100 SXM", source="a", as_of="2026-12-01"),
        ),
    )
    check = StoredCheck(
        offering=OFFERING,
        host="gpu-01",
        created_at="2026-12-04T10:00:00Z",
        fact="gpu",
        scope="offering",
        verdict="confirmed",
    )
    after = before.model_copy(
        update={
            "facts": (
                OverlayFact(key=PRICE, value=2.9, source="b", as_of="2026-12-02"),
                OverlayFact(key="service.delivery_days", value=3, source="b", as_of="2026-12-02"),
            ),
            "checks": (check,),
        }
    )
    changes = changes_between(before, after)
    assert [(kind, key) for kind, key, _body in changes] == [
        ("fact", PRICE),
        ("fact", "service.delivery_days"),
        ("forget", f"offering[{OFFERING}].gpu"),
        ("check", "gpu"),
    ]
    assert changes[0][2] == {"value": 2.9, "standing": "claimed", "source": "b", "as_of": "2026-12-02"}
    assert changes_between(after, after) == []


def test_a_record_that_cannot_be_read_is_said_and_left_out() -> None:
    with pytest.raises(FormatVersionError, match="newer linkvet"):
        parse_record(1, "raksmart", "fact", PRICE, 2, "{}", None, "me@h", T0)
    with pytest.raises(SchemaError, match="not a JSON table"):
        parse_record(1, "raksmart", "fact", PRICE, 1, "[1, 2", None, "me@h", T0)
    good = parse_record(
        1,
        "raksmart",
        "fact",
        PRICE,
        1,
        json.dumps({"value": 3.1, "source": "a", "as_of": "2026-12-01"}),
        "shanghai",
        "me@h",
        T0,
    )
    bad = TeamRecord(2, "raksmart", "fact", PRICE, {"value": 3.1}, "beijing", "me@h", T0)  # no source
    overlays, problems = team_overlays([good, bad])
    assert overlays["raksmart"].overlay.fact(PRICE).value == 3.1
    assert len(problems) == 1 and "record 2 of raksmart" in str(problems[0])


def test_the_teams_facts_are_merged_over_the_users_catalogs_naming_the_store(tmp_path: Path) -> None:
    folder = tmp_path / "catalogs"
    folder.mkdir()
    (folder / "raksmart.overlay.toml").write_text(
        'format = "linkvet-catalog-overlay"\nformat_version = 1\nprovider = "raksmart"\n\n[[facts]]\n'
        f'key = "{PRICE}"\nvalue = 4.0\nsource = "my own note"\nas_of = "2026-11-01"\n\n[[facts]]\n'
        f'key = "offering[{OFFERING}].gpus_per_node"\nvalue = 8\nsource = "my own note"\nas_of = "2026-11-01"\n',
        encoding="utf-8",
    )
    records = Records()
    records.fact(PRICE, 2.2, "shanghai", source="vendor answer")
    added = {"source": "added by the user", "as_of": "2026-12-01"}
    vendorb = [
        TeamRecord(
            8, "vendorb", "fact", "provider.name", {"value": "Vendor B", **added}, "beijing", "b@h", T0
        ),
        TeamRecord(
            9, "vendorb", "fact", "region[sha-1].name", {"value": "Sha 1", **added}, "beijing", "b@h", T0
        ),
    ]
    overlays, _problems = team_overlays([*records.made, *vendorb])
    team = TeamFacts("the team store postgresql://db", {p: o.overlay for p, o in overlays.items()})
    loaded = load_with_user(user_dir=folder, team=team)
    assert loaded.errors == ()
    raksmart = loaded.provider("raksmart")
    assert raksmart is not None and raksmart.team == team.label
    offering = next(o for o in raksmart.offerings if o.id == OFFERING)
    price = offering.prices[0].provenance("gpu_hour")
    assert offering.prices[0].gpu_hour == 2.2 and price.file == team.label and price.source == "vendor answer"
    assert offering.gpus_per_node == 8 and offering.provenance("gpus_per_node").file == str(
        folder / "raksmart.overlay.toml"
    )
    only_team = loaded.provider("vendorb")  # a provider only the team's facts define
    assert only_team is not None and only_team.path is None and only_team.region("sha-1") is not None
    broken = TeamFacts(
        team.label,
        {
            "raksmart": OverlayFile(
                provider="raksmart",
                facts=(
                    OverlayFact(
                        key=f"offering[{OFFERING}].gpus_per_node", value=-3, source="x", as_of="2026-12-01"
                    ),
                ),
            )
        },
    )
    problems = load_with_user(user_dir=folder, team=broken).errors
    assert problems and str(problems[0]).startswith(
        "the team store postgresql://db, the team's facts of raksmart:"
    )
