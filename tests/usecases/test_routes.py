"""A region's route history: changes between consecutive traces of each target (hand-written hop lists,
named as such), and the history read back from a store written through its API."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

from desktop.usecases.routes import TracePoint, hops_changed, route_changes, route_history, traced_regions
from tests.gui.synthetic_routes import N163_PATH, write_route_history

SHANGHAI = ZoneInfo("Asia/Shanghai")
GIA = ((1, ("10.0.0.1",)), (2, ("59.43.1.1",)), (3, ("198.19.1.2",)))


def point(
    at: int, hops: tuple[tuple[int, tuple[str, ...]], ...], line_class: str, target: int = 1
) -> TracePoint:
    return TracePoint(at, target, f"t{target}", line_class, hops, True)


def test_a_silent_hop_or_a_second_balanced_address_is_no_change() -> None:
    silent = ((1, ("10.0.0.1",)), (2, ()), (3, ("198.19.1.2",)))
    balanced = ((1, ("10.0.0.1",)), (2, ("59.43.1.1", "59.43.9.9")), (3, ("198.19.1.2",)))
    assert not hops_changed(GIA, silent)
    assert not hops_changed(GIA, balanced)
    assert hops_changed(GIA, ((1, ("10.0.0.1",)), (2, ("59.43.7.7",)), (3, ("198.19.1.2",))))
    assert hops_changed(GIA, (*GIA[:2], (3, ("59.43.2.2",)), (4, ("198.19.1.2",))))  # one hop longer


def test_changes_are_found_per_target_and_say_which_way_the_line_went() -> None:
    n163 = ((1, ("10.0.0.1",)), (2, ("202.97.1.1",)), (3, ("198.19.1.2",)))
    other = ((1, ("10.0.0.1",)), (2, ("10.9.9.9",)), (3, ("198.19.2.2",)))
    points = [
        point(10, GIA, "cn2-gia"),
        point(15, other, "other", target=2),  # another endpoint on its own path: not a change of t1
        point(20, GIA, "cn2-gia"),
        point(30, n163, "163"),
        point(35, other, "other", target=2),
        point(40, GIA, "cn2-gia"),
    ]
    fall, rise = route_changes(points)
    assert (fall.at_us, fall.previous_us, fall.before, fall.after, fall.direction) == (
        30,
        20,
        "cn2-gia",
        "163",
        "down",
    )
    assert fall.class_changed and fall.hops_changed
    assert (rise.at_us, rise.direction, rise.after) == (40, "up", "cn2-gia")
    moved = route_changes(
        [point(1, GIA, "cn2-gia"), point(2, (GIA[0], (2, ("59.43.7.7",)), GIA[2]), "cn2-gia")]
    )
    assert [(c.class_changed, c.hops_changed, c.direction) for c in moved] == [(False, True, None)]


def test_the_history_of_a_stored_region(tmp_path: Path) -> None:
    db = tmp_path / "routes.sqlite3"
    start = datetime(2026, 11, 28, 9, tzinfo=SHANGHAI)
    change = datetime(2026, 12, 1, 21, tzinfo=SHANGHAI)
    write_route_history(db, start=start, change_at=change, days=4, every_h=6)
    assert traced_regions(db) == [
        ("raksmart", "san-jose", 16, int(datetime(2026, 12, 2, 3, tzinfo=SHANGHAI).timestamp() * 1e6))
    ]
    history = route_history(db, "raksmart", "san-jose")
    assert [p.line_class for p in history.points] == ["cn2-gia"] * 14 + ["163"] * 2
    (fall,) = history.changes
    assert fall.at_us == int(change.timestamp() * 1e6) and fall.after_hops[1][1] == (N163_PATH[1],)
    assert history.rtt_method == "icmp/tcp" and len(history.rtt) == 16
    assert history.claim is not None and history.claim["claimed_line_type"] == "cn2-gia"
    assert history.claim["agrees"] is True  # 14 of 16 traces still show CN2 GIA
    later = route_history(db, "raksmart", "san-jose", since_us=int(change.timestamp() * 1e6))
    assert later.changes == [] and [p.line_class for p in later.points] == ["163"] * 2
    assert later.claim is not None and later.claim["agrees"] is False
    assert traced_regions(tmp_path / "nothing.sqlite3") == []
