"""The lab itself: profiles, header parsing and the anchors' parsers (anywhere), and on a live lab (root)
that the emulator applies what it is asked and that its log agrees with independent tools."""

from __future__ import annotations

import json
import os
import statistics
import struct
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from tests.lab import anchors, truth
from tests.lab.conftest import needs
from tests.lab.netlab import IPERF3_PORT, Lab, delete_stale_namespaces, lab_unavailable_reason
from tests.lab.packetlog import (
    DOWN,
    FORWARDED,
    ICMP,
    LOST_BURST,
    LOST_RANDOM,
    NO_LAG,
    SYN,
    TCP,
    UDP,
    UP,
    ip_to_int,
    parse_header,
)
from tests.lab.profiles import (
    Direction,
    GilbertElliott,
    Profile,
    ProfileError,
    Segment,
    symmetric_segment,
)

# --- anywhere ----------------------------------------------------------------------------------------------


def test_gilbert_elliott_from_loss_has_the_asked_mean_loss_and_burst() -> None:
    ge = GilbertElliott.from_loss(0.08, 4.0)
    assert ge.mean_loss == pytest.approx(0.08)
    assert 1 / ge.p_leave_bad == pytest.approx(4.0)
    with pytest.raises(ProfileError, match="mean_burst"):
        GilbertElliott.from_loss(0.1, 0.5)


def test_profile_segments_follow_the_schedule_and_repeat() -> None:
    profile = Profile(
        (symmetric_segment(20, 150, label="off-peak"), symmetric_segment(20, 260, burst_loss=0.08)),
        repeat=True,
    )
    assert [profile.index_at(t) for t in (0, 19.9, 20, 39.9, 40, 65)] == [0, 0, 1, 1, 0, 1]
    assert profile.segment_at(25).rtt_ms == 260
    assert profile.segment_at(25).up.expected_loss == pytest.approx(0.08)
    assert profile.windows(50) == [(0, 20, 0), (20, 40, 1), (40, 60, 0)]
    once = Profile(profile.segments)
    assert once.index_at(1000) == 1
    assert once.windows(50)[-1] == (20, float("inf"), 1)


def test_profile_round_trips_as_json_and_rejects_bad_values() -> None:
    profile = Profile(
        (
            Segment(
                5,
                Direction(delay_ms=75, jitter_ms=2, burst=GilbertElliott(0.01, 0.3)),
                Direction(rate_mbps=50),
            ),
        )
    )
    assert Profile.from_dict(json.loads(json.dumps(profile.as_dict()))) == profile
    with pytest.raises(ProfileError, match="delay_ms"):
        Direction(delay_ms=-1)
    with pytest.raises(ProfileError, match="loss"):
        Direction(loss=1.5)
    with pytest.raises(ProfileError, match="duration_s"):
        Profile((Segment(0),))
    with pytest.raises(ProfileError, match="malformed"):
        Profile.from_dict({"segments": [{"up": {}}]})


def _ipv4(proto: int, src: str, dst: str, l4: bytes) -> bytes:
    header = struct.pack(
        "!BBHHHBBH4s4s",
        0x45,
        0,
        20 + len(l4),
        0,
        0,
        64,
        proto,
        0,
        bytes(map(int, src.split("."))),
        bytes(map(int, dst.split("."))),
    )
    return header + l4


def test_parse_header_reads_icmp_echo_and_tcp_syn() -> None:
    echo = _ipv4(ICMP, "198.18.0.1", "198.18.1.1", struct.pack("!BBHHH", 8, 0, 0, 0x1234, 7) + b"x" * 56)
    proto, kind, src, dst, ident, seq, _, _, ip_len, payload = parse_header(echo)
    assert (proto, kind, ident, seq, ip_len, payload) == (ICMP, 8, 0x1234, 7, 84, 56)
    assert (src, dst) == (ip_to_int("198.18.0.1"), ip_to_int("198.18.1.1"))
    syn = _ipv4(
        TCP,
        "198.18.0.1",
        "198.18.1.1",
        struct.pack("!HHIIHHHH", 40000, 80, 1000, 0, (5 << 12) | SYN, 0, 0, 0),
    )
    proto, kind, _, _, sport, dport, seq, ack, ip_len, payload = parse_header(syn)
    assert (proto, kind, sport, dport, seq, ack, ip_len, payload) == (TCP, SYN, 40000, 80, 1000, 0, 40, 0)
    assert parse_header(b"\x60" + b"\x00" * 39)[0] == 0  # IPv6: not ours


FPING_C = "198.18.1.1 : 150 151 - 150.5\n"
PING = """PING 198.18.1.1 (198.18.1.1) 56(84) bytes of data.
64 bytes from 198.18.1.1: icmp_seq=1 ttl=64 time=150 ms
64 bytes from 198.18.1.1: icmp_seq=3 ttl=64 time=151 ms

--- 198.18.1.1 ping statistics ---
3 packets transmitted, 2 received, 33.3333% packet loss, time 2003ms
rtt min/avg/max/mdev = 150.219/150.609/151.000/0.390 ms
"""


def test_anchor_parsers_read_recorded_outputs() -> None:
    assert anchors.parse_fping_counts(FPING_C) == [150.0, 151.0, None, 150.5]
    rtts, summary = anchors.parse_ping(PING)
    assert rtts == [150.0, None, 151.0]
    assert summary["avg_ms"] == 150.609 and summary["received"] == 2
    curl = anchors.parse_curl(
        '{"connect": 0.150, "pretransfer": 0.150, "starttransfer": 0.301, '
        '"total": 0.302, "size": 10, "speed": 33, "code": 200}\n'
    )
    assert curl[0]["starttransfer"] == 0.301


def test_without_root_the_lab_says_why_it_cannot_run(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    reason = lab_unavailable_reason()
    assert reason is not None and "needs root" in reason and "CI runs it as root" in reason


# --- on a live lab (root) ----------------------------------------------------------------------------------

lab_only = pytest.mark.lab


def _office_python(lab: Lab, code: str) -> None:
    proc = lab.office_run([sys.executable, "-c", code], timeout=60)
    assert proc.returncode == 0, proc.stderr


@lab_only
def test_office_has_no_default_route_and_reaches_only_the_lab(lab: Lab) -> None:
    routes = lab.office_run(["ip", "route", "show", "default"])
    assert routes.stdout.strip() == ""
    table = lab.office_run(["ip", "-4", "route", "show"]).stdout
    assert "198.18.0.0/15" in table and table.count("\n") == 1, table


@lab_only
@needs("ping")
def test_applied_delay_matches_the_request_and_ping_agrees_with_the_log(lab: Lab) -> None:
    lab.set_profile(Profile.constant(150.0))
    host = lab.region().address
    run = anchors.run_ping(lab, host, count=100, interval_s=0.02, timeout_s=1)
    log = lab.packets(run.since_ns)
    forwarded = log[log["fate"] == FORWARDED]
    late_us = (forwarded["t_out_ns"] - forwarded["t_due_ns"]) / 1e3
    assert np.median(late_us) < 50, f"departures late by {np.median(late_us):.1f} µs (median)"
    assert np.percentile(late_us, 90) < 1000
    echoes = truth.icmp_echoes(log, host, since_ns=run.since_ns, until_ns=run.until_ns)
    assert len(echoes) == 100 and truth.lost(echoes) == 0
    true_rtts = truth.rtts(echoes)
    # The truth includes the region's stack and the emulator's own lateness: a few tens of µs over 150 ms.
    assert 150.0 <= statistics.median(true_rtts) < 150.3
    # ping's own average (µs precision) sees the same path, plus its own stack's few µs.
    assert run.figures["avg_ms"] - statistics.fmean(true_rtts) == pytest.approx(0.0, abs=0.3)
    sniffed = log["read_lag_ns"] != NO_LAG
    assert sniffed.mean() > 0.99, "arrival times should come from kernel timestamps"


@lab_only
@needs("ping")
def test_jitter_does_not_reorder_unless_asked(lab: Lab) -> None:
    host = lab.region().address
    for reorder in (False, True):
        one_way = Direction(delay_ms=20, jitter_ms=8, reorder=reorder)
        lab.set_profile(Profile((Segment(3600, one_way, one_way),)))
        run = anchors.run_ping(lab, host, count=150, interval_s=0.002, timeout_s=1)
        log = lab.packets(run.since_ns)
        replies = log[(log["direction"] == DOWN) & (log["proto"] == ICMP) & (log["fate"] == FORWARDED)]
        order = replies[np.argsort(replies["t_out_ns"], kind="stable")]["dport"].astype(int)
        out_of_order = int(np.sum(np.diff(order) < 0))
        applied = (replies["t_out_ns"] - replies["t_in_ns"]) / 1e6
        if reorder:
            assert out_of_order > 0
            assert np.std(applied) == pytest.approx(8, rel=0.3)
        else:
            assert out_of_order == 0
            assert np.std(applied) > 2


def _udp_blast(lab: Lab, count: int) -> tuple[int, int]:
    since = time.monotonic_ns()
    host = lab.region().address
    _office_python(
        lab,
        "import socket, time\n"
        "s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
        f"for i in range({count}):\n"
        f"    s.sendto(i.to_bytes(4, 'big'), ({host!r}, 9))\n"
        "    time.sleep(0.0002) if i % 8 == 7 else None\n",
    )
    lab.settle()
    return since, time.monotonic_ns()


def _up_udp(lab: Lab, since: int, until: int) -> np.ndarray:
    log = lab.packets(since)
    sel = log[(log["direction"] == UP) & (log["proto"] == UDP) & (log["t_in_ns"] <= until)]
    return np.sort(sel, order="t_in_ns")


@lab_only
def test_random_loss_has_the_asked_rate(lab: Lab) -> None:
    lab.set_profile(Profile.constant(10.0, loss=0.10))
    sent = _up_udp(lab, *_udp_blast(lab, 8000))
    assert len(sent) == 8000
    rate = float(np.mean(sent["fate"] == LOST_RANDOM))
    assert rate == pytest.approx(0.10, abs=0.012)  # ±3.5 σ of a binomial over 8000


@lab_only
def test_bursty_loss_has_the_asked_rate_and_burst_length(lab: Lab) -> None:
    lab.set_profile(Profile.constant(10.0, burst_loss=0.10, mean_burst=5))
    sent = _up_udp(lab, *_udp_blast(lab, 8000))
    lost = (sent["fate"] == LOST_BURST).astype(int)
    assert float(lost.mean()) == pytest.approx(0.10, abs=0.035)
    edges = np.diff(np.concatenate(([0], lost, [0])))
    runs = np.flatnonzero(edges == -1) - np.flatnonzero(edges == 1)
    assert float(runs.mean()) == pytest.approx(5.0, abs=1.5)
    assert float(runs.mean()) > 2.5  # independent loss at 10% would give runs of ~1.1


@lab_only
@needs("iperf3")
def test_rate_limit_carries_the_shaped_rate(lab: Lab) -> None:
    lab.set_profile(Profile.constant(40.0, rate_mbps=50.0, queue_ms=100))
    host = lab.region().address
    run = anchors.run_iperf3(lab, host, seconds=6, reverse=True, omit_s=2)
    log = lab.packets(run.since_ns)
    omitted_ns = run.since_ns + int(3e9)  # past iperf3's connect and its 2 omitted seconds
    delivery = truth.tcp_delivery(log, host, port=IPERF3_PORT, since_ns=omitted_ns, until_ns=run.until_ns)
    capacity = delivery.capacity_mbps(50.0)
    assert capacity == pytest.approx(50.0 * 1448 / 1500)  # MTU 1500, TCP timestamps on
    steady = delivery.rate_mbps()
    assert steady is not None and steady == pytest.approx(capacity, rel=0.02)
    assert run.figures["mbps"] == pytest.approx(capacity, rel=0.03)
    assert sum(lab.device_drops().values()) == 0


@lab_only
@needs("ping")
def test_time_varying_profile_switches_segments_on_time(lab: Lab) -> None:
    profile = Profile((symmetric_segment(1.5, 40), symmetric_segment(1.5, 120)), repeat=True)
    epoch = lab.set_profile(profile)
    host = lab.region().address
    run = anchors.run_ping(lab, host, count=90, interval_s=0.05, timeout_s=1)
    log = lab.packets(run.since_ns)
    deviations = []
    for echo in truth.icmp_echoes(log, host, since_ns=run.since_ns, until_ns=run.until_ns):
        elapsed = (echo.sent_ns - epoch) / 1e9
        assert echo.segment == profile.index_at(elapsed)
        into_segment = elapsed % 1.5
        # Away from the switches: the reply leaves in the same segment, and no packet of the slower
        # segment is still ahead of it (without reordering, a packet never overtakes one sent before).
        if 0.13 < into_segment < 1.5 - 0.13:
            assert echo.rtt_ms is not None
            deviations.append(echo.rtt_ms - profile.segment_at(elapsed).rtt_ms)
    assert len(deviations) > 40
    # Each echo takes its segment's RTT (the two differ by 80 ms); a busy machine may hold a departure
    # for a millisecond or two now and then, hence the 90th percentile rather than the worst case.
    assert 0 <= float(np.median(deviations)) < 0.3
    assert float(np.percentile(np.abs(deviations), 90)) < 0.5


@pytest.mark.lab
def test_a_lab_tears_down_its_processes_and_namespaces(tmp_path: Path) -> None:
    reason = lab_unavailable_reason()
    if reason:
        pytest.skip(reason)
    with Lab(tmp_path / "lab", large_file_mb=1) as lab:
        pids = lab.pids
        names = lab.netns_names
        assert set(pids) >= {"emulator", "r1-tcp", "r1-http"}
        assert all(name in os.listdir("/run/netns") for name in names)
    for pid in pids.values():
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
    assert not set(names) & set(os.listdir("/run/netns"))


@pytest.mark.lab
def test_namespaces_left_by_a_killed_run_are_deleted() -> None:
    reason = lab_unavailable_reason()
    if reason:
        pytest.skip(reason)
    dead = subprocess.Popen(["true"])
    dead.wait()
    stale = f"lvlab{dead.pid}x1-office"
    subprocess.run(["ip", "netns", "add", stale], check=True)
    try:
        assert stale in delete_stale_namespaces()
        assert stale not in os.listdir("/run/netns")
    finally:
        subprocess.run(["ip", "netns", "del", stale], capture_output=True)
