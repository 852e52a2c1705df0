"""The runner: pacing across targets, progress and sample hooks, bulk methods one at a time, cancellation."""

from __future__ import annotations

import asyncio
import itertools
import time

import pytest

from probes.errors import ErrorKind
from probes.results import ProbeResult, Progress
from probes.runner import Runner, run
from probes.target import Method, ProbeOptions, Target, parse_target


def test_pacing_spaces_packets_across_targets() -> None:
    targets = [parse_target(f"127.0.1.{i}") for i in range(1, 41)]
    started = time.monotonic()
    results = run(targets, ProbeOptions(count=2, interval_s=0.0, timeout_s=1.0), gap_ms=10)
    elapsed = time.monotonic() - started
    assert sum(r.received for r in results) == 80
    # 80 packets at least 10 ms apart: the last leaves no sooner than 0.79 s after the first
    sends = sorted(s.sent_at_us for r in results for s in r.samples)
    assert sends[-1] - sends[0] >= 790_000
    gaps = [b - a for a, b in itertools.pairwise(sends)]
    assert sorted(gaps)[len(gaps) // 2] >= 9_000  # typical spacing honours the gap
    assert elapsed < 3


def test_progress_reports_every_target_once() -> None:
    events: list[Progress] = []
    targets = [parse_target(f"127.0.2.{i}") for i in range(1, 6)]
    run(targets, ProbeOptions(count=1), progress=events.append)
    assert [e.done for e in events] == [0, 1, 2, 3, 4, 5]
    assert all(e.total == 5 for e in events)
    assert events[0].result is None
    assert sorted(str(e.result.target.host) for e in events[1:] if e.result) == [t.host for t in targets]


def test_sample_hook_sees_every_attempt(tcp_listener: int) -> None:
    seen: list[tuple[str, int]] = []
    targets = [parse_target("127.0.0.1"), parse_target(f"127.0.0.1:{tcp_listener}")]
    results = run(
        targets, ProbeOptions(count=4, interval_s=0.01), on_sample=lambda t, s: seen.append((t.key, s.seq))
    )
    assert sorted(seen) == sorted((r.target.key, s.seq) for r in results for s in r.samples)
    assert len(seen) == 8


def test_bulk_methods_run_one_at_a_time(http_server: str) -> None:
    url = f"http://{http_server}/trickle"
    targets = [Target(Method.DOWNLOAD, url=url + f"?n={i}") for i in range(3)] + [parse_target("127.0.0.1")]
    results = run(targets, ProbeOptions(count=1, download_max_seconds=0.4))
    downloads = sorted((r for r in results if r.method is Method.DOWNLOAD), key=lambda r: r.started_at_us)
    for earlier, later in itertools.pairwise(downloads):
        assert later.started_at_us >= earlier.finished_at_us
    ping = next(r for r in results if r.method is Method.ICMP)
    assert ping.finished_at_us <= downloads[0].started_at_us  # latency first, then bulk


def test_results_keep_the_order_of_the_targets() -> None:
    targets = [parse_target(h) for h in ("127.0.3.3", "no-such.invalid", "127.0.3.1")]
    results = run(targets, ProbeOptions(count=1))
    assert [r.target.host for r in results] == ["127.0.3.3", "no-such.invalid", "127.0.3.1"]


def test_cancellation_returns_nothing() -> None:
    async def scenario() -> None:
        runner = Runner(ProbeOptions(count=50, interval_s=0.05))
        task = asyncio.ensure_future(runner.run([parse_target("127.0.0.1")]))
        await asyncio.sleep(0.2)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(scenario())


def test_runner_rejects_nonsense() -> None:
    with pytest.raises(ValueError):
        Runner(concurrency=0)


def test_a_fault_in_one_method_is_that_target_s_error_not_the_round_s(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from probes import runner as runner_module
    from probes.errors import ErrorKind

    async def broken(target, options, ctx):  # type: ignore[no-untyped-def]
        raise ZeroDivisionError("a bug")

    monkeypatch.setitem(runner_module.MEASURES, Method.TCP, broken)
    results = run(
        [parse_target("127.0.0.1"), parse_target("127.0.0.1:9")], ProbeOptions(count=2, interval_s=0.01)
    )
    assert results[0].ok and results[0].received == 2
    assert results[1].error is ErrorKind.INTERNAL
    assert "ZeroDivisionError: a bug" in (results[1].message or "")


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"])  # a train of the run's (an address), a task's
@pytest.mark.parametrize("watched", [False, True])  # samples handed over at the end, or each as it came
def test_a_target_past_its_budget_keeps_what_it_measured(
    monkeypatch: pytest.MonkeyPatch, host: str, watched: bool
) -> None:
    from probes import runner as runner_module
    from probes.errors import ErrorKind

    seen: list[int] = []
    monkeypatch.setattr(runner_module, "_budget_s", lambda method, options: 0.6)
    (result,) = run(
        [parse_target(host)],
        ProbeOptions(count=40, interval_s=0.05),
        gap_ms=0,
        on_sample=(lambda target, sample: seen.append(sample.seq)) if watched else None,
    )
    assert result.error is ErrorKind.DEADLINE
    assert 3 <= result.sent < 40 and result.received == result.sent  # the echoes answered before the deadline
    assert [s.seq for s in result.samples] == list(range(result.sent))
    assert f"{result.sent} of 40 attempts had finished and are kept" in (result.message or "")
    if watched:  # each sample went to the hook once, as it came
        assert sorted(seen) == list(range(result.sent))


def test_trains_to_addresses_need_no_task_each() -> None:
    """ICMP targets at IP addresses are measured without a task, coroutine and timeout each (see
    probes.runner): a run of 200 of them holds a handful of tasks, not 200."""
    most = 0

    async def scenario() -> list[ProbeResult]:
        nonlocal most
        runner = Runner(ProbeOptions(count=5, interval_s=0.1), concurrency=500, gap_ms=0.1)
        measuring = asyncio.ensure_future(runner.run([parse_target(f"127.0.5.{i}") for i in range(1, 201)]))
        while not measuring.done():
            most = max(most, len(asyncio.all_tasks()))
            await asyncio.sleep(0.05)
        return await measuring

    results = asyncio.run(scenario())
    assert [r.error for r in results] == [None] * 200 and sum(r.received for r in results) == 1000
    assert most < 10


def test_a_failing_progress_hook_fails_the_run_instead_of_hanging_it() -> None:
    def progress(event: Progress) -> None:
        if event.result is not None:
            raise RuntimeError("a bug in the hook")

    async def scenario() -> None:
        runner = Runner(ProbeOptions(count=2, interval_s=0.01), progress=progress)
        await asyncio.wait_for(runner.run([parse_target("127.0.0.1"), parse_target("127.0.0.2")]), 30)

    with pytest.raises(ExceptionGroup) as raised:
        asyncio.run(scenario())
    assert raised.group_contains(RuntimeError, match="a bug in the hook")


def test_the_budget_allows_for_waiting_behind_a_long_paced_queue(monkeypatch: pytest.MonkeyPatch) -> None:
    # 200 targets × 2 echoes at 5 ms spacing take 2 s of pacing; every second echo's turn comes after 1 s,
    # so with a per-target budget of 1 s every target would be cut off if waiting in the pacing queue
    # counted against it. (A second of budget beyond the queue: a busy machine's late turns push the queue
    # back, and CI once saw 0.5 s run out.)
    from probes import runner as runner_module

    monkeypatch.setattr(runner_module, "_budget_s", lambda method, options: 1.0)
    targets = [parse_target(f"127.0.4.{i}") for i in range(1, 201)]
    results = run(targets, ProbeOptions(count=2, interval_s=0.0, timeout_s=0.3), gap_ms=5.0)
    # What the runner decided, judged on its own terms: each target's budget is its method's second plus
    # the whole queue's 2 s (400 turns × 5 ms), and a target it cut off had run that long. Whether any is
    # cut off depends on how late a busy machine's turns ran: the queue's own span, measured here, says.
    cut = [r for r in results if r.error is ErrorKind.DEADLINE]
    for result in cut:
        assert "gave up after 3 s" in (result.message or ""), result.message
        assert result.finished_at_us - result.started_at_us >= 2_900_000
    sends = [s.sent_at_us for r in results for s in r.samples]
    span_s = (max(sends) - min(sends)) / 1e6
    assert span_s >= 1.99  # the pacer spaced the 400 turns 5 ms apart at least
    if span_s < 2.5:  # the queue ran about as planned: no target may have been cut off
        assert not cut, (span_s, len(cut))
    kept = [r for r in results if r.error is None]
    assert sum(r.received for r in kept) == 2 * len(kept)


_LOADED_BEFORE_MEASURING = """
import sys
from probes.results import ProbeResult, Progress
from probes.runner import run
from probes.target import Method, ProbeOptions, parse_target

loaded = {}

def progress(event: Progress) -> None:
    if event.done == 0:  # before the first measurement starts
        loaded.update((name, name in sys.modules) for name in ("probes.methods.http", "httpx", "probes.methods.trace"))

run([parse_target("127.0.0.1:9"), parse_target("http://127.0.0.1:9/")], ProbeOptions(count=1, timeout_s=0.5),
    progress=progress)
print(sorted(name for name, present in loaded.items() if present))
"""


def test_every_method_of_the_round_is_loaded_before_the_first_measurement() -> None:
    """Importing httpx mid-round held the event loop up while TCP refusals waited to be seen (timed in user
    space, they read a second late under strace): a round imports its methods first, and only those."""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", _LOADED_BEFORE_MEASURING], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[0] == "['httpx', 'probes.methods.http']"  # not the trace method
