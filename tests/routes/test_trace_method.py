"""`trace` as a probe method: through the runner, in plan files, and into the store (schema 2)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from probes.routes import bundled_table, route_summary_from_traces
from probes.runner import run
from probes.schedule.plan import parse_plan
from probes.store import MIGRATIONS, SCHEMA_VERSION, Store, run_metadata
from probes.target import Method, ProbeOptions, Target
from tests.rounds import save_round


def _trace_target() -> Target:
    return Target(
        method=Method.TRACE, host="127.0.0.1", provider="acme", region="lo", line_type="cn2-gia", port=33434
    )


@pytest.mark.linux_backend
def test_the_runner_traces_beside_other_methods() -> None:
    options = {
        Method.TRACE: ProbeOptions(count=3, interval_s=0.05, timeout_s=1.0, trace_protocol="udp"),
        Method.TCP: ProbeOptions(count=2, interval_s=0.05, timeout_s=1.0),
    }
    trace_target = _trace_target()
    tcp_target = Target(method=Method.TCP, host="127.0.0.1", port=9)
    traced, connected = run([trace_target, tcp_target], options)
    assert connected.method is Method.TCP and connected.sent == 2
    assert traced.ok, traced.message
    assert traced.trace is not None
    assert traced.target.key == "trace:127.0.0.1"
    # The samples are the destination's probes: end-to-end statistics.
    assert (traced.sent, traced.received, traced.loss) == (3, 3, 0.0)
    assert traced.metrics["route_class"] == "other"
    assert traced.metrics["protocol"] == "udp"
    assert traced.metrics["reached"] == 1
    assert traced.as_dict()["trace"]["hops"][0]["address"] == "127.0.0.1"


def test_a_trace_that_cannot_be_set_up_is_a_result_not_an_exception() -> None:
    # Ports run past 65535 for UDP: refused by the trace options, reported on the result.
    options = ProbeOptions(count=10, trace_protocol="udp", trace_max_hops=30)
    target = Target(method=Method.TRACE, host="127.0.0.1", port=65530)
    (result,) = run([target], {Method.TRACE: options})
    assert result.error == "invalid"
    assert "run past 65535" in (result.message or "")


def test_plans_accept_trace_targets_and_trace_defaults() -> None:
    plan = parse_plan(
        """
version = 1
[defaults.trace]
count = 3
max_hops = 20
protocol = "tcp"

[[targets]]
name = "la"
host = "198.19.1.2"
methods = ["icmp", "trace"]
port = 443
provider = "acme"
region = "los-angeles"
line_type = "cn2-gia"
""",
        "plan.toml",
    )
    trace_targets = [p.target for p in plan.targets if p.target.method is Method.TRACE]
    assert [t.key for t in trace_targets] == ["trace:198.19.1.2"]
    options = plan.options[Method.TRACE]
    assert (options.count, options.trace_max_hops, options.trace_protocol) == (3, 20, "tcp")
    assert plan.options[Method.ICMP].trace_max_hops == 30  # other methods keep the defaults


def test_plans_refuse_an_unknown_trace_protocol() -> None:
    import pytest

    from probes.errors import PlanError

    with pytest.raises(PlanError, match=r"plan\.toml:4: defaults\.trace\.protocol"):
        parse_plan(
            'version = 1\n[defaults.trace]\ncount = 3\nprotocol = "sctp"\n[[targets]]\nhost = "127.0.0.1"\n',
            "plan.toml",
        )


@pytest.mark.linux_backend
def test_traces_are_stored_with_their_hops_and_verdict(tmp_path: Path) -> None:
    options = ProbeOptions(count=2, interval_s=0.05, timeout_s=1.0, trace_protocol="udp")
    results = run([_trace_target()], {Method.TRACE: options})
    with Store(tmp_path / "s.sqlite3") as store:
        for _ in range(2):
            save_round(
                store,
                results,
                started_us=results[0].started_at_us,
                finished_us=results[0].finished_at_us,
                source="test",
                meta=run_metadata(None),
            )
        stored = store.traces(provider="acme", region="lo")
        assert store.traces(provider="other") == []
        assert store.counts()["samples"] == 4  # the destination probes, as for any method
    assert len(stored) == 2
    first = stored[0]
    assert (first.name, first.line_type, first.protocol, first.reached) == (
        "127.0.0.1",
        "cn2-gia",
        "udp",
        True,
    )
    assert first.route_class == "other" and first.route_rule == "none-reached"
    assert first.hops == ((1, ("127.0.0.1",)),)
    route = route_summary_from_traces("cn2-gia", stored, bundled_table())
    assert route is not None
    assert (route["traces"], route["agrees"], route["agreeing_traces"]) == (2, False, 0)


def test_a_schema_1_store_is_upgraded_to_hold_traces(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    db = sqlite3.connect(path)
    for statement in MIGRATIONS[0]:
        db.execute(statement)
    db.execute("PRAGMA user_version = 1")
    db.commit()
    db.close()
    with Store(path) as store:
        assert store.schema_version == SCHEMA_VERSION >= 2
        assert store.traces() == []
    tables = {
        r[0] for r in sqlite3.connect(path).execute("SELECT name FROM sqlite_master WHERE type = 'table'")
    }
    assert {"traces", "trace_replies"} <= tables


@pytest.mark.linux_backend
def test_the_scheduler_runs_and_stores_a_plan_s_trace_targets(tmp_path: Path) -> None:
    import asyncio

    from probes.schedule.scheduler import Scheduler

    plan = parse_plan(
        """
version = 1
[defaults.trace]
count = 2
interval = 0.05
protocol = "udp"
[[targets]]
name = "lo"
host = "127.0.0.1"
methods = ["trace"]
provider = "acme"
region = "lo"
line_type = "cn2-gt"
""",
        "plan.toml",
    )
    with Store(tmp_path / "s.sqlite3") as store:
        report = asyncio.run(Scheduler(plan, store).run_once())
        assert report.round_id is not None and report.failed == 0
        (stored,) = store.traces(provider="acme", region="lo")
    assert (stored.protocol, stored.route_class, stored.line_type) == ("udp", "other", "cn2-gt")
    route = route_summary_from_traces(stored.line_type, [stored], bundled_table())
    assert route is not None and route["agrees"] is False
