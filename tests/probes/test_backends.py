"""The probe backends: which one a run gets, the portable one measuring on real loopback sockets beside the
linux one (ICMP, TCP, traceroute, a scheduled round stored), and the macOS and Windows backends' parts that
need no macOS or Windows (receive-stamp parsing, the ICMP API's structures, reply parsing, outcome rules).

The Windows reply buffers here are hand-written from the API's documented layout (ipexport.h), not recorded
on Windows; the hosted CI's Windows job runs the backend against the real API."""

from __future__ import annotations

import asyncio
import ctypes
import itertools
import json
import socket
import sqlite3
import struct
import subprocess
import sys
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

import pandas as pd
import pytest

from probes.backends import BACKEND_ENV, backend_named, choose_backend, macos, windows, windows_api
from probes.errors import ErrorKind, IcmpNotPermitted, ProbeBackendError
from probes.routes import bundled_table
from probes.runner import Runner, run
from probes.schedule.plan import parse_plan
from probes.schedule.scheduler import Scheduler
from probes.store import Store
from probes.target import ProbeOptions, parse_target
from probes.timestamps import TimestampSource
from probes.traceroute import TraceOptions
from probes.traceroute.engine import trace_host
from tests.routes.test_trace_loopback import needs_icmp

# The backends of this machine's sockets: on Linux both the linux and the portable one.
SOCKET_BACKENDS = ["linux", "portable"] if sys.platform == "linux" else [choose_backend().name]
FAST = ProbeOptions(count=20, interval_s=0.005, timeout_s=1.0)


# -- which backend a run gets ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("platform", "expected"),
    [("linux", "linux"), ("darwin", "macos"), ("win32", "windows"), ("freebsd14", "portable")],
)
def test_each_platform_gets_its_own_backend_and_others_the_portable_one(platform: str, expected: str) -> None:
    assert choose_backend(platform=platform, environ={}).name == expected
    assert choose_backend("auto", platform=platform, environ={}).name == expected


def test_the_setting_and_the_environment_force_a_backend() -> None:
    assert choose_backend(platform="linux", environ={BACKEND_ENV: "portable"}).name == "portable"
    assert choose_backend(platform="linux", environ={BACKEND_ENV: " Portable "}).name == "portable"
    # the setting given in code wins over the environment
    assert choose_backend("linux", platform="linux", environ={BACKEND_ENV: "portable"}).name == "linux"
    assert Runner(backend="portable").backend.name == "portable"


def test_an_unknown_backend_or_one_for_another_system_is_refused_with_the_choices() -> None:
    with pytest.raises(
        ProbeBackendError, match=r"no probe backend named pcap: choose one of linux, portable"
    ):
        choose_backend(platform="linux", environ={BACKEND_ENV: "pcap"})
    with pytest.raises(
        ProbeBackendError, match=r"the windows probe backend runs on win32, not on .*\(linux\)"
    ):
        choose_backend("windows", platform="linux", environ={})
    if sys.platform != "darwin":
        with pytest.raises(ProbeBackendError, match="runs on darwin"):
            Runner(backend="macos")


def test_the_runner_reads_the_environment_once_when_made(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(BACKEND_ENV, "portable")
    (result,) = run([parse_target("127.0.0.1")], ProbeOptions(count=3, interval_s=0.01))
    assert result.metric("backend") == "portable"


# -- the socket backends on loopback ---------------------------------------------------------------------


@pytest.mark.parametrize("name", SOCKET_BACKENDS)
def test_icmp_on_loopback_answers_every_echo_timed_as_the_backend_says(name: str) -> None:
    backend = backend_named(name)
    (result,) = run([parse_target("127.0.0.1")], FAST, backend=name, gap_ms=0.5)
    assert (result.sent, result.received, result.loss) == (20, 20, 0.0), result.message
    assert result.metric("backend") == name
    assert result.metric("timestamps") == str(backend.best_timestamps)
    assert result.message is None  # the backend's best timing is no news
    assert all(s.rtt_ms is not None and 0 < s.rtt_ms < 50 for s in result.samples)


@pytest.mark.parametrize("name", SOCKET_BACKENDS)
def test_many_targets_share_the_pacer_and_lose_nothing(name: str) -> None:
    targets = [parse_target(f"127.0.1.{i}") for i in range(1, 101)]
    results = run(targets, ProbeOptions(count=3, interval_s=0.02, timeout_s=1.0), backend=name, gap_ms=0.5)
    assert sum(r.received for r in results) == 300
    sends = sorted(s.sent_at_us for r in results for s in r.samples)
    # packets to different targets at least the gap apart (µs truncation and a wall-clock slew allowed)
    assert min(b - a for a, b in itertools.pairwise(sends)) >= 500 * 0.999 - 1


@pytest.mark.skipif(not socket.has_ipv6, reason="no IPv6 in this Python")
@pytest.mark.parametrize("name", SOCKET_BACKENDS)
def test_icmp_over_ipv6_loopback(name: str) -> None:
    (result,) = run([parse_target("::1")], ProbeOptions(count=5, interval_s=0.01), backend=name)
    assert result.received == 5, result.message


@pytest.mark.parametrize("name", SOCKET_BACKENDS)
def test_silence_and_late_replies_are_loss_on_every_backend(name: str, silent_port: int) -> None:
    (late,) = run(
        [parse_target("127.0.0.1")], ProbeOptions(count=3, interval_s=0.01, timeout_s=1e-6), backend=name
    )
    assert (late.received, {s.error for s in late.samples}) == (0, {ErrorKind.LATE})
    (silent,) = run(
        [parse_target(f"127.0.0.1:{silent_port}")], ProbeOptions(count=2, timeout_s=0.2), backend=name
    )
    assert (silent.sent, silent.received) == (2, 0)


@pytest.mark.parametrize("name", SOCKET_BACKENDS)
def test_tcp_connect_times_and_refusals(name: str, tcp_listener: int, closed_port: int) -> None:
    listening, refused = run(
        [parse_target(f"127.0.0.1:{tcp_listener}"), parse_target(f"127.0.0.1:{closed_port}")],
        FAST,
        backend=name,
    )
    assert (listening.received, listening.loss) == (20, 0.0)
    assert listening.metric("backend") == name
    expected = "kernel" if name == "linux" else "user"
    assert listening.metric("timestamps") == expected
    assert all(0 < (s.rtt_ms or 0) < 50 for s in listening.samples)
    assert refused.received == 20 and {s.error for s in refused.samples} == {ErrorKind.REFUSED}


@needs_icmp
@pytest.mark.parametrize("name", SOCKET_BACKENDS)
def test_icmp_traceroute_on_loopback(name: str) -> None:
    options = TraceOptions(protocol="icmp", probes_per_hop=3, round_interval_s=0.02)
    result = asyncio.run(trace_host("127.0.0.1", options, bundled_table(), backend=backend_named(name)))
    assert result.ok and result.reached, result.message
    assert len(result.hops) == 1 and len(result.hops[0].replies) == 3


def test_udp_traceroute_on_the_portable_backend_is_unsupported_and_says_so() -> None:
    options = TraceOptions(protocol="udp", probes_per_hop=1)
    result = asyncio.run(trace_host("127.0.0.1", options, bundled_table(), backend=backend_named("portable")))
    assert result.error is ErrorKind.UNSUPPORTED
    assert "the portable probe backend cannot trace over UDP" in (result.message or "")


@pytest.mark.parametrize("name", SOCKET_BACKENDS)
def test_a_scheduled_round_is_stored_with_its_backend(
    name: str, tmp_path: Path, tcp_listener: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(BACKEND_ENV, name)
    plan = parse_plan(
        'version = 1\n[schedule]\nevery = "5m"\n[defaults]\ncount = 3\ninterval = 0.01\n'
        f'[[targets]]\nname = "lo"\nhost = "127.0.0.1"\n[[targets]]\nname = "port"\nhost = "127.0.0.1"\nmethods = ["tcp"]\nport = {tcp_listener}\n',
        "p.toml",
    )
    with Store(tmp_path / "s.sqlite3") as store:
        report = asyncio.run(Scheduler(plan, store).run_once())
        assert report.round_id is not None and report.failed == 0
        assert len(store.rounds()) == 1
        frame = store.results_frame()
        assert frame.received.sum() == 6
        assert {json.loads(m)["backend"] for m in frame.metrics_json} == {name}
    with closing(sqlite3.connect(tmp_path / "s.sqlite3")) as db:
        (meta,) = db.execute("SELECT meta_json FROM rounds").fetchone()
    assert json.loads(meta)["probe_backend"] == name


# -- macOS: the kernel's receive stamp -------------------------------------------------------------------


def test_macos_receive_stamps_are_read_from_a_timeval() -> None:
    timeval = struct.pack("@qi4x", 1_796_000_000, 123_456)  # Darwin's struct timeval, 16 bytes
    ancdata = [(macos.SOL_SOCKET, macos.SCM_TIMESTAMP, timeval)]
    assert macos.receive_wall_ns(ancdata) == 1_796_000_000_123_456_000
    assert macos.receive_wall_ns([(macos.SOL_SOCKET, 0x01, timeval)]) is None  # SCM_RIGHTS, not a stamp
    assert macos.receive_wall_ns([(macos.SOL_SOCKET, macos.SCM_TIMESTAMP, timeval[:8])]) is None
    assert macos.MACOS_STYLE.datagram_like_raw and macos.MACOS_STYLE.kernel_receive_stamps


def _ipv4_header(source: str, destination: str, protocol: int = 1) -> bytes:
    return struct.pack(
        "!BBHHHBBH4s4s",
        0x45,
        0,
        0,
        0,
        0,
        64,
        protocol,
        0,
        socket.inet_aton(source),
        socket.inet_aton(destination),
    )


def test_macos_datagram_sockets_get_raw_socket_packets_built_and_parsed() -> None:
    """macOS's unprivileged ICMP sockets keep our identifier, want the IPv4 checksum filled in and deliver
    the IPv4 header and routers' errors (icmplib's reading of them): the engine builds and parses for them
    as for a raw socket (`datagram_like_raw`). The packets here are hand-built."""
    from probes.icmp.wire import EchoWire, ones_complement_sum

    token = b"linkvet!"
    wire = EchoWire(v6=False, raw=macos.MACOS_STYLE.datagram_like_raw, ident=0x1234, token=token)
    request = wire.request(7, 24)
    assert request[:1] == b"\x08" and struct.unpack("!HH", request[4:8]) == (0x1234, 7)
    total = ones_complement_sum(request)
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    assert total == 0xFFFF  # the checksum is right: the kernel will not fill it in
    reply = b"\x00" + request[1:]  # an echo reply carries the request's identifier, sequence and data
    assert wire.parse(_ipv4_header("198.18.0.9", "10.0.0.2") + reply, "198.18.0.9") == (
        "198.18.0.9", 7, None, "198.18.0.9"
    )  # fmt: skip
    others = reply[:4] + struct.pack("!H", 0x9999) + reply[6:]  # another program's echo on the host
    assert wire.parse(_ipv4_header("198.18.0.9", "10.0.0.2") + others, "198.18.0.9") is None
    quoted = _ipv4_header("10.0.0.2", "198.18.0.9") + request[:8]
    exceeded = struct.pack("!BBHI", 11, 0, 0, 0) + quoted  # a router's time exceeded, quoting our request
    assert wire.parse(_ipv4_header("198.18.1.1", "10.0.0.2") + exceeded, "198.18.1.1") == (
        "198.18.0.9", 7, ErrorKind.TTL_EXCEEDED, "198.18.1.1"
    )  # fmt: skip
    v6 = EchoWire(v6=True, raw=True, ident=0x1234, token=token)
    assert v6.request(3, 8)[2:4] == b"\x00\x00"  # IPv6: the kernel fills in the checksum
    assert v6.parse(b"\x81" + v6.request(3, 8)[1:], "2001:db8::9") == ("2001:db8::9", 3, None, "2001:db8::9")


# -- Windows: the ICMP API's structures and replies ------------------------------------------------------


def test_windows_structures_have_the_documented_sizes_and_offsets() -> None:
    api = windows_api
    assert (
        ctypes.sizeof(api.IP_OPTION_INFORMATION_64) == 16 and ctypes.sizeof(api.IP_OPTION_INFORMATION_32) == 8
    )
    assert ctypes.sizeof(api.ICMP_ECHO_REPLY_64) == 40 and ctypes.sizeof(api.ICMP_ECHO_REPLY_32) == 28
    for reply, data_at, options_at in ((api.ICMP_ECHO_REPLY_64, 16, 24), (api.ICMP_ECHO_REPLY_32, 16, 20)):
        offsets = {name: getattr(reply, name).offset for name, *_ in reply._fields_}
        assert offsets == {
            "Address": 0, "Status": 4, "RoundTripTime": 8, "DataSize": 12, "Reserved": 14,
            "Data": data_at, "Options": options_at,
        }  # fmt: skip
    assert ctypes.sizeof(api.IPV6_ADDRESS_EX) == 26  # packed to one byte
    assert api.IPV6_ADDRESS_EX.sin6_addr.offset == 6
    assert ctypes.sizeof(api.ICMPV6_ECHO_REPLY) == 36 and api.ICMPV6_ECHO_REPLY.Status.offset == 28
    assert ctypes.sizeof(api.SOCKADDR_IN6) == 28 and api.SOCKADDR_IN6.sin6_addr.offset == 8


def test_windows_addresses_in_the_api_s_byte_order() -> None:
    assert windows_api.ipaddr("1.2.3.4") == 0x04030201  # network-order bytes as a little-endian ULONG
    assert windows_api.ipaddr_text(0x04030201) == "1.2.3.4"
    addr = windows_api.sockaddr_in6("fe80::1%7")
    assert (addr.sin6_family, addr.sin6_scope_id) == (23, 7)
    assert bytes(addr.sin6_addr) == socket.inet_pton(socket.AF_INET6, "fe80::1")


def _reply4(reply: type[ctypes.Structure], status: int, address: str, rtt_ms: int, data: bytes) -> bytes:
    out = reply()
    out.Address = windows_api.ipaddr(address)  # type: ignore[attr-defined]
    out.Status = status  # type: ignore[attr-defined]
    out.RoundTripTime = rtt_ms  # type: ignore[attr-defined]
    out.DataSize = len(data)  # type: ignore[attr-defined]
    return bytes(out) + data + bytes(windows_api.REPLY_SLACK_BYTES)


@pytest.mark.parametrize("reply", [windows_api.ICMP_ECHO_REPLY_64, windows_api.ICMP_ECHO_REPLY_32])
def test_windows_ipv4_replies_are_parsed(reply: type[ctypes.Structure]) -> None:
    buffer = _reply4(reply, windows_api.IP_TTL_EXPIRED_TRANSIT, "198.18.0.1", 3, b"linkvet!")
    assert windows_api.parse_reply4(buffer, reply) == (11013, "198.18.0.1", 3)
    assert len(buffer) == windows_api.reply_buffer_bytes(reply, 8)
    with pytest.raises(ValueError, match="holds no ICMP_ECHO_REPLY"):
        windows_api.parse_reply4(buffer[:10], reply)


def test_windows_ipv6_replies_are_parsed() -> None:
    out = windows_api.ICMPV6_ECHO_REPLY()
    ctypes.memmove(
        ctypes.addressof(out.Address.sin6_addr), socket.inet_pton(socket.AF_INET6, "2001:db8::9"), 16
    )
    out.Status, out.RoundTripTime = windows_api.IP_SUCCESS, 12
    assert windows_api.parse_reply6(bytes(out) + bytes(8)) == (0, "2001:db8::9", 12)


def test_windows_request_data_is_the_token_repeated() -> None:
    assert windows_api.request_payload(20, b"abcdefgh") == b"abcdefghabcdefghabcd"
    assert windows_api.request_payload(0, b"abcdefgh") == b""


@pytest.mark.parametrize(
    ("status", "elapsed_ns", "rtt_ms", "error"),
    [
        (windows_api.IP_SUCCESS, 1_500_000, 1.5, None),
        (windows_api.IP_SUCCESS, 3_000_000_000, None, ErrorKind.LATE),  # after the 2 s timeout
        (windows_api.IP_TTL_EXPIRED_TRANSIT, 800_000, None, ErrorKind.TTL_EXCEEDED),
        (windows_api.IP_DEST_HOST_UNREACHABLE, 800_000, None, ErrorKind.UNREACHABLE),
        (windows_api.IP_REQ_TIMED_OUT, 2_000_000_000, None, ErrorKind.TIMEOUT),
        (windows_api.IP_GENERAL_FAILURE, 10_000, None, ErrorKind.SEND_FAILED),
    ],
)
def test_windows_outcomes(
    status: int, elapsed_ns: int, rtt_ms: float | None, error: ErrorKind | None
) -> None:
    outcome = windows.outcome_of(status, "198.18.0.1", 1_796_000_000_000_000_123, elapsed_ns, 2_000_000_000)
    assert (outcome.rtt_ms, outcome.error) == (rtt_ms, error)
    assert outcome.sent_at_us == 1_796_000_000_000_000
    if error in (ErrorKind.TTL_EXCEEDED, ErrorKind.UNREACHABLE):
        assert outcome.responder == "198.18.0.1" and outcome.answered_ms == elapsed_ns / 1e6
    if rtt_ms is not None:
        assert outcome.timestamps is TimestampSource.USER
    if error is ErrorKind.SEND_FAILED:
        assert outcome.detail == "IcmpSendEcho2 status 11050"


def test_the_windows_engine_off_windows_says_the_api_is_not_here() -> None:
    async def scenario() -> None:
        async with windows.WindowsIcmpEngine() as engine:
            engine.privileged()

    with pytest.raises(IcmpNotPermitted, match=r"the Windows ICMP API \(iphlpapi.dll\) is not here"):
        asyncio.run(scenario())


# -- shown where results are listed and exported ---------------------------------------------------------


def test_the_backend_and_its_timing_are_listed_and_exported(
    run_linkvet: Callable[..., subprocess.CompletedProcess[str]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    db = str(tmp_path / "s.sqlite3")
    monkeypatch.setenv(BACKEND_ENV, "portable")
    probed = run_linkvet("probe", "127.0.0.1", "-c", "3", "-i", "0.01", "--db", db)
    assert probed.returncode == 0, probed.stderr
    header, row = probed.stdout.splitlines()[:2]
    assert "TIMED BY" in header and "portable/user" in row
    monkeypatch.setenv(BACKEND_ENV, "linux")
    assert run_linkvet("probe", "127.0.0.1", "-c", "3", "-i", "0.01", "--db", db).returncode == 0
    listed = run_linkvet("history", "127.0.0.1", "--db", db)
    assert listed.returncode == 0, listed.stderr
    assert (
        "TIMED BY" in listed.stdout and "portable/user" in listed.stdout and "linux/kernel" in listed.stdout
    )
    records = [
        json.loads(line)
        for line in run_linkvet("history", "127.0.0.1", "--db", db, "--json").stdout.splitlines()
    ]
    assert [(r["backend"], r["timestamps"]) for r in records] == [("portable", "user"), ("linux", "kernel")]
    with Store(db) as store:
        assert sorted(store.timed_by()) == [("linux/kernel", 1), ("portable/user", 1)]
    out = tmp_path / "export.xlsx"
    exported = run_linkvet("export", "--db", db, "--out", str(out))
    assert exported.returncode == 0, exported.stderr
    method = pd.read_excel(out, sheet_name="Method").set_index("Item")["Value"]
    assert set(method["Probe backends"].split(", ")) == {
        "linux/kernel: 1",
        "portable/user: 1",
    }
