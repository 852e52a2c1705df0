"""The ICMP engine on real loopback sockets: batched sending and reading at 1,000 targets, pacing seen in the
kernel's own transmit stamps, the fallback when the kernel gives none, what a send this machine refuses
does, replies after the timeout, and IPv4-mapped addresses. Every test runs on both engine threads, the
compiled one and the Python one (the `engine_thread` fixture)."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import socket
from collections import defaultdict

import pytest

from probes.errors import ErrorKind
from probes.icmp import socket as icmp_socket
from probes.icmp.echoes import EchoOutcome
from probes.icmp.engine import IcmpEngine
from probes.pacing import Pacer
from probes.runner import run
from probes.sockets import enable_tx_timestamps
from probes.target import ProbeOptions, parse_target
from probes.timestamps import TimestampSource
from tests.benchmarks.probe_vs_fping import addresses

pytestmark = pytest.mark.usefixtures("engine_thread")

# The kernel stamps on the wall clock, which NTP may slew by up to 500 ppm; sent_at_us is truncated to µs.
_SLEW = 0.001


def _min_gap_us(times_us: list[int]) -> int:
    ordered = sorted(times_us)
    return min(b - a for a, b in itertools.pairwise(ordered))


@pytest.mark.linux_backend
def test_a_thousand_targets_lose_no_reply_and_keep_the_pacing_in_the_kernel_s_stamps() -> None:
    gap_ms, interval_s = 0.5, 0.05
    targets = [parse_target(a) for a in addresses(1000)]
    results = run(
        targets, ProbeOptions(count=3, interval_s=interval_s, timeout_s=2.0), gap_ms=gap_ms, concurrency=1000
    )
    assert [r.target.host for r in results] == [t.host for t in targets]
    assert sum(r.sent for r in results) == 3000
    assert sum(r.received for r in results) == 3000, [r.message for r in results if r.received < 3][:3]
    # Every send time is the kernel's transmit stamp, every RTT kernel to kernel.
    assert {r.metric("timestamps") for r in results} == {str(TimestampSource.KERNEL)}
    assert all(r.message is None for r in results)
    sends = [s.sent_at_us for r in results for s in r.samples]
    assert _min_gap_us(sends) >= gap_ms * 1000 * (1 - _SLEW) - 1  # packets to different targets
    for r in results:  # and each target's attempts at least `interval` apart
        assert _min_gap_us([s.sent_at_us for s in r.samples]) >= interval_s * 1e6 * (1 - _SLEW) - 1
    assert all(0 < (s.rtt_ms or 0) < 1000 for r in results for s in r.samples)


def test_the_engine_thread_paces_trains_and_hands_over_each_outcome_once() -> None:
    seen: dict[str, list[int]] = defaultdict(list)

    async def scenario() -> list[list[int]]:
        pacer = Pacer(0.0002)
        async with IcmpEngine() as engine:
            trains = [
                engine.train(
                    address,
                    socket.AF_INET,
                    count=5,
                    interval_s=0.01,
                    timeout_s=1.0,
                    pacer=pacer,
                    on_outcome=lambda i, o, a=address: seen[a].append(i),
                )
                for address in addresses(50)
            ]
            outcomes = await asyncio.gather(*trains)
        return [[o.sent_at_us for o in train] for train in outcomes if all(o.rtt_ms for o in train)]

    sent = asyncio.run(scenario())
    assert len(sent) == 50  # every echo of every train answered
    assert all(sorted(indexes) == [0, 1, 2, 3, 4] for indexes in seen.values()) and len(seen) == 50
    assert all(times == sorted(times) for times in sent)  # outcomes come back in send order


@pytest.mark.linux_backend
def test_without_transmit_stamps_the_send_is_timed_in_user_space_and_the_result_says_so(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A kernel that refuses SO_TIMESTAMPING (older kernels, other systems): the socket is real, only the
    # kernel's answer to the request for transmit stamps is replaced.
    monkeypatch.setattr(icmp_socket, "enable_tx_timestamps", lambda sock: "SO_TIMESTAMPING refused: test")
    (result,) = run([parse_target("127.0.0.1")], ProbeOptions(count=5, interval_s=0.01), gap_ms=0)
    assert result.received == 5
    assert result.metric("timestamps") == str(TimestampSource.KERNEL_RX)
    assert "send times taken in user space" in (result.message or "")
    assert "SO_TIMESTAMPING refused: test" in (result.message or "")
    assert all(s.rtt_ms is not None and s.rtt_ms > 0 for s in result.samples)


def test_a_socket_that_cannot_give_stamps_says_why() -> None:
    # A TCP socket refuses stamp keys before it is connected: the kernel's own refusal, worded.
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        assert enable_tx_timestamps(sock) == "SO_TIMESTAMPING refused: Invalid argument"
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        assert enable_tx_timestamps(sock) is None


@pytest.mark.linux_backend
def test_a_send_this_machine_refuses_is_not_line_loss_and_the_stamps_stay_matched() -> None:
    """Echoes to the broadcast address are refused by sendto (EACCES without SO_BROADCAST), between echoes to
    loopback on the same socket: the refused target could not be measured (no loss), and the others keep
    kernel stamps at both ends (the stamp keys start again after each refused send)."""
    targets = [parse_target(h) for h in ("127.0.0.1", "255.255.255.255", "127.0.0.2")]
    results = run(targets, ProbeOptions(count=6, interval_s=0.01, timeout_s=1.0), gap_ms=1)
    good, refused, other = results
    assert refused.error is ErrorKind.SEND_FAILED
    assert (refused.sent, refused.received, refused.loss) == (0, 0, None)
    assert {s.error for s in refused.samples} == {ErrorKind.SEND_FAILED} and len(refused.samples) == 6
    assert "could not be measured" in (refused.message or "")
    assert "Permission denied (EACCES)" in (refused.message or "")
    for result in (good, other):
        assert result.ok and result.received == 6
        assert result.metric("timestamps") == str(TimestampSource.KERNEL), result.message


def test_replies_after_the_timeout_are_lost() -> None:
    # A loopback reply takes tens of µs: with a 1 µs timeout every one comes too late.
    (result,) = run([parse_target("127.0.0.1")], ProbeOptions(count=4, interval_s=0.01, timeout_s=1e-6))
    assert (result.sent, result.received, result.loss) == (4, 0, 1.0)
    assert {s.error for s in result.samples} == {ErrorKind.LATE}
    assert "4 replies came after the 1e-06 s timeout" in (result.message or "")
    assert result.ok  # the target was measured: it loses every echo at this timeout


def test_an_ipv4_mapped_address_is_probed_over_ipv4() -> None:
    (result,) = run([parse_target("::ffff:127.0.0.1")], ProbeOptions(count=3, interval_s=0.01))
    assert result.received == 3 and result.loss == 0.0
    assert result.metric("address") == "127.0.0.1"


def test_a_zone_naming_no_interface_is_this_machine_s_error() -> None:
    (result,) = run([parse_target("fe80::1%999999")], ProbeOptions(count=2, interval_s=0.01))
    assert result.error is ErrorKind.SEND_FAILED and result.sent == 0
    assert "no network interface 999999" in (result.message or "")


def test_a_fault_in_the_engine_thread_fails_the_waiting_targets_instead_of_hanging(
    monkeypatch: pytest.MonkeyPatch, engine_thread: str
) -> None:
    from probes.icmp import compiled as icmp_compiled
    from probes.icmp import worker as icmp_worker

    def broken(*args: object) -> None:
        raise ZeroDivisionError("a bug in the thread")

    # Called for every reply read (Python), for every batch of finished echoes handed over (compiled).
    if engine_thread == "python":
        monkeypatch.setattr(icmp_worker.Worker, "_answer", broken)
    else:
        monkeypatch.setattr(icmp_compiled.CompiledWorker, "_hand_over", broken)
    results = run(
        [parse_target("127.0.0.1"), parse_target("127.0.0.2")], ProbeOptions(count=3, interval_s=0.01)
    )
    assert [r.error for r in results] == [ErrorKind.INTERNAL, ErrorKind.INTERNAL]
    assert all("the ICMP engine's thread failed" in (r.message or "") for r in results)
    assert all("a bug in the thread" in (r.message or "") for r in results)


@pytest.mark.skipif(
    os.geteuid() != 0, reason="watching the echo requests on loopback needs a raw socket (root)"
)
def test_a_cancelled_train_sends_no_more_and_the_others_go_on() -> None:
    """A target given up (its future cancelled: a deadline, the user) stops its train: a raw socket watching
    loopback sees no echo request to it after the cancel, while another train goes on to its end."""
    watcher = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
    watcher.setblocking(False)

    def requests_to(address: str) -> int:
        count = 0
        with contextlib.suppress(BlockingIOError):
            while True:
                packet = watcher.recv(2048)
                header = (packet[0] & 0x0F) * 4
                if packet[header] == 8 and socket.inet_ntoa(packet[16:20]) == address:
                    count += 1
        return count

    async def scenario() -> tuple[int, int, list[EchoOutcome]]:
        async with IcmpEngine() as engine:
            given_up = engine.train("127.0.0.3", socket.AF_INET, count=100, interval_s=0.01, timeout_s=1.0)
            other = engine.train("127.0.0.4", socket.AF_INET, count=30, interval_s=0.01, timeout_s=1.0)
            await asyncio.sleep(0.1)
            given_up.cancel()
            await asyncio.sleep(0.01)  # an echo on its way out as the train was cancelled
            before = requests_to("127.0.0.3")
            outcomes = await other
            return before, requests_to("127.0.0.3"), outcomes

    try:
        before, after, outcomes = asyncio.run(scenario())
    finally:
        watcher.close()
    assert 3 <= before < 100
    assert after == 0  # nothing more to the cancelled target in the ~0.2 s the other train went on
    assert len(outcomes) == 30 and all(o.rtt_ms is not None for o in outcomes)
