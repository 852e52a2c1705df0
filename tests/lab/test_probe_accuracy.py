"""linkvet's numbers against the lab's truth, probing from inside the office namespace through the CLI
contract (`python -m desktop.cli probe ... --json`).

Tolerances are those of issue 3 and are not loosened: at ~150 ms RTT, icmp/tcp median within 1 ms of the
truth and p95 within 2 ms, lost count equal to the truth's (±1 only when a reply came within a few ms of the
timeout); http connect and TTFB within 2 ms; download and iperf3 throughput within 5% of the shaped rate.

icmp and tcp run on both probe backends that run here, each held to the same tolerances and to the median
per-attempt error it is stated to keep (`PER_ATTEMPT_MS`; the README's platform table gives the measured
figures): the linux backend times with kernel stamps, the portable one (LINKVET_PROBE_BACKEND=portable) in
user space, which costs it 0.1–0.4 ms per attempt on a quiet machine. The median, not the mean: on a
loaded machine one user-space attempt was seen 311 ms late (the process waited that long for a CPU),
which alone moves a mean of 100 by 3 ms; the p95 tolerance (`P95_MS`: 2 ms on linux, 5 ms on the portable
backend, its stated busy-machine precision) still catches lateness that is common.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tests.lab import truth
from tests.lab.accuracy import compare
from tests.lab.anchors import run_linkvet_probe
from tests.lab.conftest import needs
from tests.lab.netlab import HTTP_PORT, IPERF3_PORT, TCP_PORT, Lab
from tests.lab.packetlog import DOWN, UP
from tests.lab.profiles import Profile

pytestmark = pytest.mark.lab

# ~150 ms RTT with jitter, random and bursty loss, per direction.
LOSSY_150 = Profile.constant(150.0, jitter_ms=2.0, loss=0.02, burst_loss=0.03, mean_burst=3.0)
CLEAN_150 = Profile.constant(150.0, jitter_ms=1.0)
SHAPED_MBPS = 50.0
SHAPED_150 = Profile.constant(150.0, rate_mbps=SHAPED_MBPS, queue_ms=100.0)
SHAPED_150_DEEP = Profile.constant(150.0, rate_mbps=SHAPED_MBPS, queue_ms=250.0)
LOSSY_SHAPED_150 = Profile.constant(150.0, rate_mbps=SHAPED_MBPS, queue_ms=100.0, loss=0.01)
TIMEOUT_S = 0.9  # under TCP's initial 1 s SYN retransmission timeout: a lost SYN is a lost attempt
COUNT = 100
HTTP_COUNT = 8
# The median |measured − true| per attempt each probe backend is held to (measured well below this on this
# machine's 2 shared CPUs; see the README's platform table and tests/benchmarks/lab_side_by_side.py).
PER_ATTEMPT_MS = {"linux": 0.1, "portable": 0.5}
# The p95 bound: issue 3's 2 ms for the linux backend; the portable backend's user-space stamps wait for a CPU
# on a busy machine (measured p95 error up to 5.1 ms with two CPU-bound processes beside it, README's platform
# table), so it is held to what it is stated to keep there.
P95_MS = {"linux": 2.0, "portable": 5.0}
BACKENDS = ("linux", "portable")


def _check_rtt_and_loss(
    method: str,
    run_rtts: tuple[float | None, ...],
    result: dict[str, Any],
    exchanges: list[truth.Exchange],
    backend: str = "linux",
) -> None:
    cmp = compare(f"linkvet {method}", run_rtts, exchanges, TIMEOUT_S)
    assert result["backend"] == backend
    errors = cmp.sample_errors_ms
    assert errors and float(np.median(np.abs(errors))) <= PER_ATTEMPT_MS[backend], cmp.describe()
    assert len(exchanges) == result["sent"] == COUNT, cmp.describe()
    assert abs(cmp.lost_measured - cmp.lost_true) <= cmp.allowed_loss_difference, cmp.describe()
    assert result["sent"] - result["received"] == cmp.lost_measured
    true_median, true_p95 = cmp.true_median(), cmp.true_p95()
    assert true_median is not None and true_p95 is not None
    assert result["rtt_median_ms"] == pytest.approx(true_median, abs=1.0), cmp.describe()
    assert result["rtt_p95_ms"] == pytest.approx(true_p95, abs=P95_MS[backend]), cmp.describe()


@pytest.mark.parametrize("backend", BACKENDS)
def test_icmp_rtt_and_loss_match_truth(lab: Lab, backend: str) -> None:
    lab.set_profile(LOSSY_150)
    host = lab.region().address
    run = run_linkvet_probe(
        lab,
        host,
        "--method",
        "icmp",
        "--count",
        str(COUNT),
        "--interval",
        "0.1",
        "--timeout",
        str(TIMEOUT_S),
        backend=backend,
    )
    result = run.result
    assert result["method"] == "icmp" and result["error"] is None, result["message"]
    exchanges = truth.icmp_echoes(
        lab.packets(run.since_ns), host, since_ns=run.since_ns, until_ns=run.until_ns, timeout_s=TIMEOUT_S
    )
    _check_rtt_and_loss("icmp", run.rtts_ms, result, exchanges, backend)
    assert result["timestamps"] == ("kernel" if backend == "linux" else "user")


@pytest.mark.parametrize("backend", BACKENDS)
def test_tcp_rtt_and_loss_match_truth(lab: Lab, backend: str) -> None:
    lab.set_profile(LOSSY_150)
    host = lab.region().address
    run = run_linkvet_probe(
        lab,
        host,
        "--method",
        "tcp",
        "--port",
        str(TCP_PORT),
        "--count",
        str(COUNT),
        "--interval",
        "0.1",
        "--timeout",
        str(TIMEOUT_S),
        backend=backend,
    )
    result = run.result
    assert result["method"] == "tcp" and result["port"] == TCP_PORT
    exchanges = truth.tcp_handshakes(
        lab.packets(run.since_ns),
        host,
        TCP_PORT,
        since_ns=run.since_ns,
        until_ns=run.until_ns,
        timeout_s=TIMEOUT_S,
    )
    _check_rtt_and_loss("tcp", run.rtts_ms, result, exchanges, backend)


def test_http_connect_and_ttfb_match_truth(lab: Lab) -> None:
    lab.set_profile(CLEAN_150)
    region = lab.region()
    # At the default 1 s interval the attempts (3 RTTs each) do not overlap: see the report on issue 3 for
    # what overlapping attempts do to these figures.
    run = run_linkvet_probe(lab, region.http_url, "--method", "http", "--count", str(HTTP_COUNT))
    result = run.result
    assert result["method"] == "http" and result["status"] == 200 and result["error"] is None
    assert result["ttfb_source"] == "kernel"  # both instants from the socket's kernel timestamps
    exchanges = truth.http_exchanges(
        lab.packets(run.since_ns), region.address, HTTP_PORT, since_ns=run.since_ns, until_ns=run.until_ns
    )
    assert len(exchanges) == HTTP_COUNT
    true_connect = truth.median([e.connect_ms for e in exchanges if e.connect_ms is not None])
    true_ttfb = truth.median([e.request_to_first_byte_ms for e in exchanges if e.request_to_first_byte_ms])
    assert true_connect is not None and true_ttfb is not None
    assert result["connect_ms"] == pytest.approx(true_connect, abs=2.0)
    assert result["ttfb_ms"] == pytest.approx(true_ttfb, abs=2.0)


def _first_body_ns(log: np.ndarray, run: Any, region: Any) -> int:
    """When the download's body could first be read: the in-order data went past the response's header
    segment (linkvet counts `seconds` and its steady window from its first body byte, which it read then;
    a body segment lost after the header does not move it)."""
    flow = truth.in_order(log, region.address, direction=DOWN, port=HTTP_PORT, since_ns=run.since_ns)
    return flow.first_past_ns(flow.first_segment_bytes)


def _delivered_in_steady_window(lab: Lab, run: Any, region: Any) -> float:
    """What the link delivered (the packet log, each byte once) over linkvet's own steady window, in Mbit/s
    of payload."""
    result = run.result
    log = lab.packets(run.since_ns)
    first = _first_body_ns(log, run, region)
    start = first + int(result["steady_from_s"] * 1e9)
    end = first + int(result["steady_to_s"] * 1e9)
    window = truth.tcp_delivery(
        log, region.address, direction=DOWN, port=HTTP_PORT, since_ns=start, until_ns=end
    )
    return window.new_payload_bytes * 8 / ((end - start) / 1e9) / 1e6


def test_download_throughput_matches_the_shaped_rate(lab: Lab) -> None:
    """On a link a single TCP flow keeps full (its queue, 250 ms, holds more than the 150 ms round trip, so
    TCP's back-off after a loss does not leave it idle), the steady rate is the link's: within 5% of the
    TCP payload a 50 Mbit/s link carries (48.27 Mbit/s; no TCP figure can reach the IP rate itself), and
    within 5% of what the log shows the link delivered over the same window."""
    lab.set_profile(SHAPED_150_DEEP)
    region = lab.region()
    run = run_linkvet_probe(
        lab, region.large_url, "--method", "download", "--max-seconds", "10", "--max-bytes", "150000000"
    )
    result = run.result
    assert result["error"] is None, result["message"]
    log = lab.packets(run.since_ns)
    delivery = truth.tcp_delivery(log, region.address, direction=DOWN, port=HTTP_PORT, since_ns=run.since_ns)
    capacity = delivery.capacity_mbps(SHAPED_MBPS)  # TCP payload the shaped link can carry
    assert result["steady_mbps"] == pytest.approx(capacity, rel=0.05)
    assert result["steady_mbps"] == pytest.approx(_delivered_in_steady_window(lab, run, region), rel=0.05)
    # The whole-transfer average (slow start included) is what the log delivered over the same span: from
    # the first body bytes for `seconds` (data still in flight when linkvet stops reading is left out).
    first = _first_body_ns(log, run, region)
    window = truth.tcp_delivery(
        log,
        region.address,
        direction=DOWN,
        port=HTTP_PORT,
        since_ns=first,
        until_ns=first + int(result["seconds"] * 1e9),
    )
    true_average = window.new_payload_bytes * 8 / result["seconds"] / 1e6
    assert result["throughput_mbps"] == pytest.approx(true_average, rel=0.05)


def test_download_steady_rate_of_a_short_transfer_is_what_the_link_delivered(lab: Lab) -> None:
    """A 4 s transfer over a 150 ms line spends its steady window in TCP's loss recovery (the 100 ms queue
    empties after each back-off), so it cannot show the shaped rate; it must show what the link delivered
    then, whatever the reader's stalls while TCP held data back behind a lost segment."""
    lab.set_profile(SHAPED_150)
    region = lab.region()
    run = run_linkvet_probe(lab, region.large_url, "--method", "download", "--max-seconds", "4")
    result = run.result
    assert result["error"] is None, result["message"]
    assert result["steady_mbps"] == pytest.approx(_delivered_in_steady_window(lab, run, region), rel=0.05)


def test_download_steady_rate_over_a_lossy_line_is_what_the_link_delivered(lab: Lab) -> None:
    """With 1% of the packets lost at random each way, TCP always has data waiting behind a hole, more of it
    some moments than others: the steady rate still counts what crossed the link in its window (within 2%;
    it read 0.4% off or better in the lab, where in-order bytes per segment read up to 6% low)."""
    lab.set_profile(LOSSY_SHAPED_150)
    region = lab.region()
    run = run_linkvet_probe(lab, region.large_url, "--method", "download", "--max-seconds", "6")
    result = run.result
    assert result["error"] is None, result["message"]
    assert result["steady_mbps"] == pytest.approx(_delivered_in_steady_window(lab, run, region), rel=0.02)


def _iperf3_run(lab: Lab, profile: Profile = SHAPED_150) -> tuple[dict[str, Any], np.ndarray, int]:
    lab.set_profile(profile)
    run = run_linkvet_probe(lab, lab.region().address, "--method", "iperf3", "--port", str(IPERF3_PORT))
    result = run.result
    assert result["error"] is None, result["message"]
    return result, lab.packets(run.since_ns), run.since_ns


@needs("iperf3")
def test_iperf3_reports_what_the_link_delivered(lab: Lab) -> None:
    """Each direction's receiver counts `seconds` after leaving out the first `omitted_s` of the test (TCP
    slow start), as its application reads the data: in order. So the truth is the log's in-order delivery of
    the data connection over that span (the upload test runs first; its span ends with its last segment).
    The wire's count over the same span is lower by what TCP held back behind a loss when the span began
    (at 2 s the flow is still recovering from slow start's overshoot) and released within it."""
    result, log, since = _iperf3_run(lab)
    host = lab.region().address
    for direction, reported in ((UP, result["upload_mbps"]), (DOWN, result["download_mbps"])):
        flow = truth.in_order(log, host, direction=direction, port=IPERF3_PORT, since_ns=since)
        start = flow.first_ns + int(result["omitted_s"] * 1e9)
        end = start + int(result["seconds"] * 1e9) if direction == DOWN else flow.last_ns
        true_mbps = flow.rate_mbps(start, end)
        assert reported == pytest.approx(true_mbps, rel=0.01), (direction, reported, true_mbps)
    assert result["throughput_mbps"] == result["download_mbps"]


@needs("iperf3")
def test_iperf3_throughput_matches_the_shaped_rate(lab: Lab) -> None:
    """Both directions within 5% of what the shaped link can carry as TCP payload (48.27 Mbit/s at 50 Mbit/s
    of IP bytes: no TCP figure can reach the IP rate itself), on a link a single TCP flow keeps full (a
    250 ms queue, as in the download test: over a 100 ms one TCP's back-off after each loss leaves the link
    idle, which iperf3 alone shows too; the test above holds each figure to what the link delivered then)."""
    result, log, since = _iperf3_run(lab, SHAPED_150_DEEP)
    host = lab.region().address
    down = truth.tcp_delivery(log, host, direction=DOWN, port=IPERF3_PORT, min_payload=1000, since_ns=since)
    capacity = down.capacity_mbps(SHAPED_MBPS)
    message = (
        f"download {result['download_mbps']:.1f} Mbit/s over {result['seconds']:.1f} s "
        f"(the link carries {capacity:.2f} Mbit/s of TCP payload)"
    )
    assert result["download_mbps"] == pytest.approx(capacity, rel=0.05), message
    up = truth.tcp_delivery(log, host, direction=UP, port=IPERF3_PORT, min_payload=1000, since_ns=since)
    assert result["upload_mbps"] == pytest.approx(up.capacity_mbps(SHAPED_MBPS), rel=0.05)


@pytest.mark.parametrize("method", ["icmp", "tcp"])
def test_a_timeout_shorter_than_the_rtt_counts_every_reply_lost(lab: Lab, method: str) -> None:
    """At 150 ms RTT with a 50 ms timeout every reply comes too late: each attempt is lost (the README's
    definition), whether the reply came before linkvet gave up waiting (`late`) or after (`timeout`)."""
    lab.set_profile(CLEAN_150)
    host = lab.region().address
    port = ["--port", str(TCP_PORT)] if method == "tcp" else []
    run = run_linkvet_probe(
        lab, host, "--method", method, *port, "--count", "6", "--interval", "0.1", "--timeout", "0.05"
    )
    result = run.result
    assert (result["sent"], result["received"], result["loss"]) == (6, 0, 1.0), result["message"]
    assert {s["error"] for s in result["samples"]} <= {"late", "timeout"}
    assert all(s["rtt_ms"] is None for s in result["samples"])
    assert run.returncode == 0  # measured: the line loses everything at this timeout
