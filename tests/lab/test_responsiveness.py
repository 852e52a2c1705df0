"""Latency under load against the lab's truth: `linkvet probe URL -m responsiveness` from the office over an
emulated 40 Mbit/s link (40 ms RTT, no jitter) whose rate limiter keeps a deep drop-tail queue (200 ms each
way), downloading from and uploading to the region's HTTP service.

Each echo linkvet sent is paired, in order, with the emulator's record of it: its true RTT (request in →
reply out) and the time its request and reply waited in the rate limiters (the logged `t_due − t_in`
minus the profile's fixed delay). (The queue holds 200 ms, but TCP fills only part of it: Linux's receive
window autotuning sizes each window to about twice what arrived in one round trip, so the standing queue
settles near one base RTT, ~55 ms here, and grows no further without loss.) linkvet's loaded median must be the truth's median of the echoes it
tagged as sent under load within 2 ms, and its increase the logged queueing of those echoes over the idle
ones within 2 ms. A link the load never fills (a paced 8 Mbit/s download on the same 40 Mbit/s link) shows
no queue and an increase near zero.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from probes.loaded_latency import grade
from tests.lab import truth
from tests.lab.anchors import run_linkvet_probe
from tests.lab.netlab import HTTP_PORT, Lab
from tests.lab.profiles import Profile

pytestmark = pytest.mark.lab

RTT_MS = 40.0
RATE_MBPS = 40.0
DEEP = Profile.constant(RTT_MS, rate_mbps=RATE_MBPS, queue_ms=200.0)
TOLERANCE_MS = 2.0


def _run(lab: Lab, url: str, *extra: str) -> tuple[dict[str, Any], list[truth.Exchange], list[float | None]]:
    host = lab.region().address
    run = run_linkvet_probe(
        lab,
        url,
        "--method",
        "responsiveness",
        "--idle-seconds",
        "3",
        "--max-seconds",
        "8",
        "--max-bytes",
        "200000000",
        *extra,
        timeout=120,
    )
    result = run.result
    assert result["error"] is None, result["message"]
    log = lab.packets(run.since_ns)
    echoes = truth.icmp_echoes(log, host, since_ns=run.since_ns, until_ns=run.until_ns, timeout_s=2.0)
    queued = truth.echo_queueing(
        log,
        host,
        delay_up_ms=RTT_MS / 2,
        delay_down_ms=RTT_MS / 2,
        since_ns=run.since_ns,
        until_ns=run.until_ns,
    )
    assert len(echoes) == len(result["samples"]) == len(queued), (len(echoes), len(result["samples"]))
    return result, echoes, queued


def _phase(result: dict[str, Any], values: list[Any], *phases: str) -> list[Any]:
    return [
        v for s, v in zip(result["samples"], values, strict=True) if s["phase"] in phases and v is not None
    ]


def test_loaded_rtt_and_increase_match_the_queue_the_emulator_logged(lab: Lab) -> None:
    lab.set_profile(DEEP)
    region = lab.region()
    result, echoes, queued = _run(
        lab, region.large_url, "--upload-url", f"http://{region.address}:{HTTP_PORT}/upload"
    )
    assert result["latency_probe"] == "icmp"
    phases = Counter(s["phase"] for s in result["samples"])
    assert phases["idle"] >= 25 and phases["download"] >= 60 and phases["upload"] >= 60, phases
    # every echo linkvet answered is one the emulator delivered, and the other way round
    assert [s["rtt_ms"] is None for s in result["samples"]] == [e.lost for e in echoes]
    true_rtts = [e.rtt_ms for e in echoes]
    idle_queue = truth.median(_phase(result, queued, "idle"))
    assert idle_queue is not None and idle_queue < 0.5  # the idle line has no queue
    increases = []
    for direction in ("download", "upload"):
        true_median = truth.median(_phase(result, true_rtts, direction))
        assert true_median is not None
        assert result[f"{direction}_rtt_median_ms"] == pytest.approx(true_median, abs=TOLERANCE_MS)
        logged = truth.median(_phase(result, queued, direction))
        assert logged is not None and logged > 20, (direction, logged)  # a queue did build
        true_increase = logged - idle_queue
        assert result[f"{direction}_rtt_increase_ms"] == pytest.approx(true_increase, abs=TOLERANCE_MS)
        increases.append(true_increase)
    loaded_truth = truth.median(_phase(result, true_rtts, "download", "upload"))
    assert loaded_truth is not None
    assert result["loaded_rtt_median_ms"] == pytest.approx(loaded_truth, abs=TOLERANCE_MS)
    p90 = truth.percentile(_phase(result, true_rtts, "download", "upload"), 90)
    assert result["loaded_rtt_p90_ms"] == pytest.approx(p90, abs=TOLERANCE_MS)
    assert result["loaded_rtt_increase_ms"] == pytest.approx(sum(increases) / 2, abs=TOLERANCE_MS)
    true_increase = sum(increases) / 2
    # the grade is the truth's (either side of a boundary the 2 ms allowed could cross)
    assert result["grade"] in {grade(true_increase - TOLERANCE_MS), grade(true_increase + TOLERANCE_MS)}
    assert result["rpm"] < 60000 / RTT_MS  # fewer round trips a minute than the idle line allows
    # the load reached the shaped rate (TCP payload of a 40 Mbit/s link, within 10%)
    assert result["download_mbps"] == pytest.approx(RATE_MBPS * 0.965, rel=0.10)
    assert result["upload_mbps"] == pytest.approx(RATE_MBPS * 0.965, rel=0.10)


def test_a_load_that_never_fills_the_link_adds_no_delay(lab: Lab) -> None:
    lab.set_profile(DEEP)
    region = lab.region()
    # 4 connections × 250 kB/s = 8 Mbit/s on a 40 Mbit/s link: no standing queue can form
    url = f"http://{region.address}:{HTTP_PORT}/paced/250/30"
    result, echoes, queued = _run(lab, url)
    logged = truth.median(_phase(result, queued, "download"))
    assert logged is not None and logged < 1.0, logged
    assert abs(result["loaded_rtt_increase_ms"]) < 1.0
    true_median = truth.median(_phase(result, [e.rtt_ms for e in echoes], "download"))
    assert result["loaded_rtt_median_ms"] == pytest.approx(true_median, abs=TOLERANCE_MS)
    assert result["grade"] == "A+"
    assert result["download_mbps"] == pytest.approx(8.0, rel=0.15)
