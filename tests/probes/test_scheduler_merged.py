"""A merged plan (an office agent's, of several evaluations): each target waits for its own plan's cadence on
the merged timetable, an address listed under two label sets is probed once and stored under each, and a plan
that follows the store (`replan`) is taken before each round, and kept while the store refuses."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

from probes.errors import StoreError
from probes.peak import PeakWindow
from probes.schedule.plan import OwnCadence, Plan, PlannedTarget, parse_plan
from probes.schedule.scheduler import Scheduler
from probes.store import Store
from probes.target import Method, ProbeOptions, Target

OPTIONS = {m: ProbeOptions(count=3, interval_s=0.01, timeout_s=1.0) for m in Method}
SHANGHAI_EVENING = PeakWindow.parse("20:00-23:00 Asia/Shanghai")


def utc(hour: int, minute: int, second: int = 0) -> float:
    return datetime(2026, 11, 30, hour, minute, second, tzinfo=UTC).timestamp()


def _target(host: str, provider: str, region: str = "r1", name: str | None = None) -> Target:
    return Target(
        Method.ICMP, host=host, port=22, name=name or f"{provider} {host}", provider=provider, region=region
    )


def _plan(targets: tuple[PlannedTarget, ...], every_s: float = 60.0, peak_every_s: float = 60.0) -> Plan:
    return Plan(
        path="agent: a, b",
        name="agent",
        vantage="shanghai",
        every_s=every_s,
        peak_every_s=peak_every_s,
        peak_windows=(SHANGHAI_EVENING,),
        targets=targets,
        options=OPTIONS,
    )


def test_a_target_waits_for_its_own_plans_cadence_outside_its_own_peak(tmp_path: Path) -> None:
    all_day = (PeakWindow.parse("00:00-12:00 UTC"), PeakWindow.parse("12:00-24:00 UTC"))
    plan = _plan(
        (
            PlannedTarget(_target("127.0.0.1", "fast"), None, OwnCadence(60.0, 60.0, ())),
            PlannedTarget(_target("127.0.0.2", "slow"), None, OwnCadence(300.0, 300.0, ())),
            PlannedTarget(_target("127.0.0.3", "peaky"), None, OwnCadence(300.0, 60.0, all_day)),
        )
    )
    with Store(tmp_path / "s.sqlite3") as store:
        scheduler = Scheduler(plan, store)
        first = asyncio.run(scheduler.run_once())
        scheduler.close()
    assert sorted(r.target.provider for r in first.results) == ["fast", "peaky", "slow"]
    t0 = max(r.started_at_us for r in first.results) / 1e6
    # A minute later: the slow one's evaluation measures it every 5 minutes; the other's is inside its peak.
    assert [p.target.provider for p in scheduler.due_targets(t0 + 60)] == ["fast", "peaky"]
    assert [p.target.provider for p in scheduler.due_targets(t0 + 300)] == ["fast", "slow", "peaky"]


def test_one_address_under_two_candidates_labels_is_probed_once_and_stored_under_each(tmp_path: Path) -> None:
    one = _target("127.0.0.1", "vendora", "hk")
    other = _target("127.0.0.1", "vendorb", "hk-2")
    plan = _plan((PlannedTarget(one, None), PlannedTarget(other, None)))
    probed: list[str] = []
    with Store(tmp_path / "s.sqlite3") as store:
        scheduler = Scheduler(
            plan, store, progress=lambda p: probed.append(p.result.target.name) if p.result else None
        )
        report = asyncio.run(scheduler.run_once())
        scheduler.close()
        assert len(probed) == 1  # one probe of the address
        assert [(r.target.provider, r.target.region) for r in report.results] == [
            ("vendora", "hk"),
            ("vendorb", "hk-2"),
        ]
        a, b = report.results
        assert a.samples == b.samples and a.started_at_us == b.started_at_us  # the same measurement
        series = {(s.provider, s.region): s for s in store.series()}
        assert set(series) == {("vendora", "hk"), ("vendorb", "hk-2")}
        assert len(store.rounds()) == 1 and store.counts()["results"] == 2


def test_the_plan_is_taken_from_replan_before_each_round_and_kept_when_it_fails(tmp_path: Path) -> None:
    first = _plan((PlannedTarget(_target("127.0.0.1", "a"), None),))
    second = replace(first, targets=(*first.targets, PlannedTarget(_target("127.0.0.2", "b"), None)))
    answers: list[Plan | Exception | None] = [second, None, StoreError("the store is away")]
    seen: list[str] = []

    def replan() -> Plan | None:
        seen.append("asked")
        answer = answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    with Store(tmp_path / "s.sqlite3") as store:
        clock = [utc(3, 0)]
        scheduler = Scheduler(first, store, clock=lambda: clock[0], replan=replan)
        for minute in (0, 1, 2):
            clock[0] = utc(3, minute)
            report = asyncio.run(scheduler.run_once(clock[0]))
            assert sorted(r.target.provider for r in report.results) == ["a", "b"]
        scheduler.close()
    assert seen == ["asked"] * 3 and scheduler.plan is second


def test_an_empty_merged_plan_measures_nothing_and_says_so(tmp_path: Path) -> None:
    plan = _plan(())
    with Store(tmp_path / "s.sqlite3") as store:
        scheduler = Scheduler(plan, store, clock=lambda: utc(3, 0))
        report = asyncio.run(scheduler.run_once())
        scheduler.close()
        assert report.results == () and store.rounds() == []


def test_a_plan_file_target_has_no_own_cadence() -> None:
    plan = parse_plan('version = 1\n[[targets]]\nhost = "127.0.0.1"\n', "p.toml")
    assert plan.targets[0].own is None
