"""What an office agent measures (`desktop.usecases.office_agent`): the evaluations that name its office (none:
those that name no office), each one's plan merged into one (labels kept per candidate, each evaluation's
cadence), read again from the store and said there (its health); from the plans it kept last time when its
server is away at its start. And how `eval show` judges each office's agent (`agent_health`)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from catalogs.evaluation.alerting import EvaluationSchedule
from catalogs.evaluation.model import EXAMPLE_EVALUATION, Candidate, Office, read_evaluation_file
from desktop.usecases.agent_health import office_agents, state_of
from desktop.usecases.evaluation import save_evaluation
from desktop.usecases.evaluation_plan import evaluation_plan
from desktop.usecases.offerings import load_catalog_set
from desktop.usecases.office_agent import AGENT_PLAN, Follower, followed, merged_plan
from probes.peak import PeakWindow
from probes.store import AgentHealth, Store
from tests.postgres_server import PostgresServer

EXAMPLE = read_evaluation_file(EXAMPLE_EVALUATION)
T0 = 1_800_000_000_000_000


def _team(name: str, *offices: str, endpoint: str = "127.0.0.11", every_s: float | None = None):  # type: ignore[no-untyped-def]
    candidate = Candidate("lambda", "asia-northeast-1", None, None, (endpoint,), False)
    return replace(
        EXAMPLE,
        name=name,
        offices=tuple(Office(o) for o in offices),
        candidates=(candidate,),
        schedule=EvaluationSchedule(every_s=every_s, peak_every_s=every_s),
    )


def test_an_agent_follows_the_evaluations_that_name_its_office_or_none() -> None:
    evaluations = [
        _team("b", "shanghai"),
        _team("a", "shanghai", "beijing"),
        _team("c"),
        _team("d", "beijing"),
    ]
    assert [e.name for e in followed(evaluations, "shanghai")] == ["a", "b"]
    assert [e.name for e in followed(evaluations, None)] == ["c"]
    assert followed(evaluations, "guangzhou") == []


def test_the_merged_plan_keeps_each_candidates_labels_and_each_evaluations_cadence() -> None:
    catalogs = load_catalog_set(include_user=False)
    fast = _team("fast", "shanghai", every_s=60)
    slow = replace(
        _team("slow", "shanghai", every_s=600),
        candidates=(Candidate("gcp", "asia-northeast1", None, None, ("127.0.0.11", "127.0.0.12"), False),),
    )
    same = _team("same", "shanghai", every_s=600)  # the fast one's candidate again: one series
    plans = {e.name: evaluation_plan(e, catalogs, "shanghai") for e in (fast, slow, same)}
    merged = merged_plan(plans, "shanghai")
    assert (merged.name, merged.vantage, merged.every_s, merged.peak_every_s) == (
        AGENT_PLAN,
        "shanghai",
        60,
        60,
    )
    icmp = [(p.target.host, p.target.provider) for p in merged.targets if p.target.method == "icmp"]
    assert icmp == [("127.0.0.11", "lambda"), ("127.0.0.11", "gcp"), ("127.0.0.12", "gcp")]
    by = {(p.target.host, p.target.provider, str(p.target.method)): p for p in merged.targets}
    assert by[("127.0.0.11", "lambda", "icmp")].own.every_s == 60  # type: ignore[union-attr]  # the faster of two
    assert by[("127.0.0.12", "gcp", "icmp")].own.every_s == 600  # type: ignore[union-attr]
    assert by[("127.0.0.11", "gcp", "trace")].every_s == 900  # its own `every`
    idle = merged_plan({}, "shanghai")
    assert idle.targets == () and idle.every_s == 60


def test_the_follower_reads_the_store_again_and_says_the_agents_health(tmp_path: Path) -> None:
    db = tmp_path / "team.sqlite3"
    with Store(db) as store:
        save_evaluation(store, _team("q1", "shanghai"))
        follower = Follower(db, "shanghai", carrier="ct")
        plan = follower.replan(store)
        assert plan is not None and [p.target.host for p in plan.targets] == ["127.0.0.11", "127.0.0.11"]
        # A candidate added, another evaluation of the office: the next replan has both.
        changed = _team("q1", "shanghai")
        changed = changed.with_candidate(
            Candidate("gcp", "asia-northeast1", None, None, ("127.0.0.12",), False)
        )
        save_evaluation(store, changed)
        save_evaluation(store, _team("q2", "shanghai", endpoint="127.0.0.13"))
        save_evaluation(store, _team("other", "beijing", endpoint="127.0.0.14"))
        plan = follower.replan(store)
        assert plan is not None and sorted({p.target.host for p in plan.targets}) == [
            "127.0.0.11",
            "127.0.0.12",
            "127.0.0.13",
        ]
        assert plan.path == "agent: q1, q2"
        # A window changed: the next replan's timetable has it.
        evening = PeakWindow.parse("19:00-22:30 Asia/Shanghai")
        save_evaluation(store, replace(changed, peak_windows=(evening,)))
        plan = follower.replan(store)
        assert plan is not None and str(evening) in {str(w) for w in plan.peak_windows}
        # A candidate taken out: the next replan no longer measures it.
        save_evaluation(
            store, replace(changed, peak_windows=(evening,)).without_candidate("gcp/asia-northeast1")
        )
        plan = follower.replan(store)
        assert plan is not None and sorted({p.target.host for p in plan.targets}) == [
            "127.0.0.11",
            "127.0.0.13",
        ]
        health = {(h.vantage, h.evaluation_or_plan): h for h in store.agents()}
        assert set(health) == {("shanghai", "q1"), ("shanghai", "q2")}
        said = health[("shanghai", "q1")]
        assert said.carrier == "ct" and said.spooled_rounds == 0 and said.last_round_us is None and said.pid
    assert follower.cache.is_file()


def test_an_agent_whose_server_is_away_at_its_start_measures_what_it_measured_last(
    own_postgres: PostgresServer, tmp_path: Path
) -> None:
    url = own_postgres.url()
    with Store(url) as store:
        save_evaluation(store, _team("q1", "shanghai"))
        Follower(store.path, "shanghai").start(store)  # kept for next time
    own_postgres.stop()
    with Store(url, connect_now=False) as away:
        following = Follower(away.path, "shanghai").start(away)
        assert list(following.plans) == ["q1"]
        assert [p.target.host for p in following.merged.targets] == ["127.0.0.11", "127.0.0.11"]
        assert Follower(away.path, "beijing").start(away).plans == {}  # nothing kept for that office


@pytest.mark.parametrize(
    ("said_us", "spooled", "state"),
    [(T0 - 60_000_000, 0, "measuring"), (T0 - 60_000_000, 4, "spooling"), (T0 - 901_000_000, 0, "silent")],
)
def test_an_office_agents_state_is_judged_by_its_evaluations_cadence(
    said_us: int, spooled: int, state: str
) -> None:
    evaluation = _team("q1", "shanghai", "beijing")
    health = AgentHealth("shanghai", "q1", "sh-01", 7, "1.0", said_us, spooled, said_us, "ct")
    assert state_of(health, evaluation, T0) == state
    agents = office_agents(evaluation, [health, replace(health, vantage="old-office")], T0)
    assert [(a.office, a.state) for a in agents] == [
        ("shanghai", state),
        ("beijing", "none"),
        ("old-office", state),
    ]
    assert agents[1].as_dict()["host"] is None and agents[0].as_dict()["agent_carrier"] == "ct"
