"""The traceroute engine and `linkvet trace` against real sockets on loopback (one hop: the destination).
Multi-hop paths through routers are in tests/lab/test_route_lab.py."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from probes.errors import IcmpNotPermitted
from probes.icmp.engine import IcmpEngine
from probes.routes import bundled_table
from probes.traceroute import TraceOptions, trace
from tests.conftest import REPO_ROOT, cli_env

TABLE = bundled_table()
RunLinkvet = Callable[..., subprocess.CompletedProcess[str]]


def _icmp_available() -> bool:
    import asyncio

    async def check() -> bool:
        async with IcmpEngine() as engine:
            try:
                engine.privileged()
            except IcmpNotPermitted:
                return False
        return True

    return asyncio.run(check())


needs_icmp = pytest.mark.skipif(
    not _icmp_available(), reason="no ICMP socket here (not root, ping_group_range)"
)


@pytest.mark.usefixtures("engine_thread")
@pytest.mark.parametrize(
    "protocol",
    [
        pytest.param("icmp", marks=needs_icmp),
        pytest.param("udp", marks=pytest.mark.linux_backend),
        pytest.param("tcp", marks=pytest.mark.linux_backend),
    ],
)
def test_loopback_trace_reaches_in_one_hop_with_every_probe_counted(protocol: str) -> None:
    result = trace(
        "127.0.0.1", TraceOptions(protocol=protocol, probes_per_hop=4, round_interval_s=0.05), TABLE
    )  # type: ignore[arg-type]
    assert result.ok, result.message
    assert result.reached
    assert [hop.ttl for hop in result.hops] == [1]
    hop = result.hops[0]
    assert (hop.address, hop.sent, hop.received, hop.loss) == ("127.0.0.1", 4, 4, 0.0)
    assert [r.probe for r in hop.replies] == [0, 1, 2, 3]
    assert all(r.kind == "reached" for r in hop.replies)
    assert 0 < hop.rtt_min_ms <= hop.rtt_median_ms <= hop.rtt_max_ms < 100  # type: ignore[operator]
    assert result.verdict is not None and result.verdict.line_class == "other"
    assert isinstance(result.privileged, bool) if protocol == "icmp" else result.privileged is False


@pytest.mark.parametrize(
    "protocol",
    [
        pytest.param("icmp", marks=needs_icmp),
        pytest.param("udp", marks=pytest.mark.linux_backend),
        pytest.param("tcp", marks=pytest.mark.linux_backend),
    ],
)
@pytest.mark.usefixtures("engine_thread")
def test_ipv6_loopback_trace(protocol: str) -> None:
    result = trace("::1", TraceOptions(protocol=protocol, probes_per_hop=2, round_interval_s=0), TABLE)  # type: ignore[arg-type]
    assert result.ok, result.message
    assert [(h.ttl, h.address, h.received) for h in result.hops] == [(1, "::1", 2)]
    assert result.verdict is not None
    assert any("IPv6" in d for d in result.verdict.doubts)


@pytest.mark.linux_backend
def test_udp_and_tcp_need_no_privileges_and_say_so() -> None:
    for protocol in ("udp", "tcp"):
        result = trace("127.0.0.1", TraceOptions(protocol=protocol, probes_per_hop=1), TABLE)  # type: ignore[arg-type]
        assert result.privileged is False
        assert result.port == (33434 if protocol == "udp" else 80)


@pytest.mark.linux_backend
def test_an_unanswered_udp_port_is_lost_not_reached(tmp_path: Path) -> None:
    import socket

    # A UDP port that is open but never answers: the probe reaches it and nothing comes back. (Each UDP
    # probe goes to the next port, so one probe is sent.)
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as listener:
        listener.bind(("127.0.0.1", 0))
        port = listener.getsockname()[1]
        result = trace(
            "127.0.0.1",
            TraceOptions(protocol="udp", probes_per_hop=1, max_hops=1, timeout_s=0.3, port=port),
            TABLE,
        )
    assert not result.reached
    assert [h.ttl for h in result.hops] == [1]
    assert [(r.kind, r.error) for r in result.hops[0].replies] == [("lost", "timeout")]
    assert result.hops[0].loss == 1.0
    assert result.hops[0].rtt_min_ms is None
    assert result.message == "the destination did not answer within 1 hop"
    assert result.verdict is not None and result.verdict.line_class == "unknown"


@pytest.mark.linux_backend
def test_trace_as_dict_is_json_with_direction_and_nulls_for_no_data() -> None:
    result = trace("127.0.0.1", TraceOptions(protocol="udp", probes_per_hop=2, round_interval_s=0), TABLE)
    data = json.loads(json.dumps(result.as_dict(), allow_nan=False))
    assert data["direction"].startswith("office to region (outbound)")
    assert data["hops"][0]["network"] is None
    assert data["hops"][0]["replies"][0]["kind"] == "reached"
    assert data["verdict"]["class"] == "other"
    assert data["started_at"].endswith("Z")


def test_bad_options_are_refused_with_a_reason() -> None:
    from probes.errors import TargetError

    with pytest.raises(TargetError, match="max hops must be 1-255"):
        TraceOptions(max_hops=0)
    with pytest.raises(TargetError, match="protocol must be one of icmp, udp, tcp"):
        TraceOptions(protocol="sctp")  # type: ignore[arg-type]
    with pytest.raises(TargetError, match="run past 65535"):
        TraceOptions(protocol="udp", port=65500, probes_per_hop=10, max_hops=30)


# -- the command ------------------------------------------------------------------------------------------


@pytest.mark.linux_backend
def test_linkvet_trace_prints_hops_verdict_and_direction(run_linkvet: RunLinkvet) -> None:
    done = run_linkvet("trace", "127.0.0.1", "-P", "udp", "-q", "2", "--no-store")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "the path from this machine (the office) to the region" in out
    assert "HOP  ADDRESS    LOSS" in out
    assert "127.0.0.1" in out and "(destination)" in out
    assert "verdict: other" in out
    assert done.stderr == ""


@pytest.mark.linux_backend
def test_linkvet_trace_json_and_claim(run_linkvet: RunLinkvet) -> None:
    done = run_linkvet(
        "trace",
        "127.0.0.1",
        "-P",
        "tcp",
        "-q",
        "2",
        "-n",
        "2",
        "--line-type",
        "cn2-gia",
        "--json",
        "--no-store",
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 1
    data = json.loads(lines[0])
    assert data["direction"].startswith("This is the path from this machine (the office) to the region")
    assert len(data["traces"]) == 2
    assert data["traces"][0]["hops"][0]["sent"] == 2
    assert data["verdict"] == {
        "class": "other",
        "traces": 2,
        "agreeing": 2,
        "counts": {"other": 2},
        "summary": "other on 2 of 2 traces",
        "doubts": [],
    }
    assert data["claim"]["agrees"] is False
    assert (
        data["claim"]["evidence"]
        == "claims CN2 GIA, traced via none of the listed backbones on 2 of 2 traces (other)"
    )


@pytest.mark.linux_backend
def test_linkvet_trace_stores_traces_and_checks_the_region(run_linkvet: RunLinkvet, tmp_path: Path) -> None:
    from probes.store import Store

    db = tmp_path / "store.sqlite3"
    labels = ("--provider", "acme", "--region", "lo", "--line-type", "local")
    first = run_linkvet("trace", "127.0.0.1", "-P", "udp", "-q", "1", "--db", str(db), *labels)
    assert first.returncode == 0, first.stderr
    second = run_linkvet("trace", "127.0.0.1", "-P", "udp", "-q", "1", "--db", str(db), *labels)
    assert "stored traces of this region (not checkable): claims a local line" in second.stdout
    assert "on 2 of 2 traces" in second.stdout
    with Store(db, readonly=True) as store:
        traces = store.traces(provider="acme", region="lo")
    assert [t.route_class for t in traces] == ["other", "other"]
    assert traces[0].hops == ((1, ("127.0.0.1",)),)


def test_a_bad_network_table_is_a_usage_error_naming_file_and_line(
    run_linkvet: RunLinkvet, tmp_path: Path
) -> None:
    bad = tmp_path / "nets.toml"
    bad.write_text('version = 1\n\n[[prefix]]\ncidr = "59.43.0.0/99"\nasn = 4809\nsource = "x"\n')
    done = run_linkvet("trace", "127.0.0.1", "--networks", str(bad), "--no-store")
    assert done.returncode == 2
    assert done.stdout == ""
    assert f"linkvet: network table: {bad}: prefix #1 (line 3): field 'cidr'" in done.stderr
    assert "Traceback" not in done.stderr


def test_bad_arguments_are_usage_errors(run_linkvet: RunLinkvet) -> None:
    done = run_linkvet("trace", "127.0.0.1", "--max-hops", "300")
    assert done.returncode == 2 and "is not a whole number from 1 to 255" in done.stderr
    done = run_linkvet("trace", "not a host", "--no-store")
    assert done.returncode == 2 and "cannot be part of a host, address or URL" in done.stderr
    done = run_linkvet("trace", "127.0.0.1", "--line-type", "cn3-gia", "--no-store")
    assert done.returncode == 2 and "invalid choice: 'cn3-gia'" in done.stderr


@pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("setpriv") is None,
    reason="dropping CAP_NET_RAW for one command needs root and setpriv",
)
@pytest.mark.linux_backend
def test_without_raw_sockets_icmp_says_not_permitted_and_udp_still_works(tmp_path: Path) -> None:
    """Run as root minus CAP_NET_RAW: the raw socket is refused; unprivileged ICMP needs the group in
    net.ipv4.ping_group_range."""
    group_range = Path("/proc/sys/net/ipv4/ping_group_range").read_text().split()
    gid_allowed = int(group_range[0]) <= os.getgid() <= int(group_range[1])
    base = ["setpriv", "--bounding-set=-net_raw", sys.executable, "-m", "desktop.cli", "trace", "127.0.0.1"]
    env = cli_env(tmp_path)

    def run(*extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*base, *extra, "--no-store"], cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=60
        )

    icmp = run("-q", "1")
    if gid_allowed:
        assert icmp.returncode == 0 and "ICMP (unprivileged socket)" in icmp.stdout
    else:
        assert icmp.returncode == 1
        assert "ERROR permission: ICMP not permitted here" in icmp.stdout
        assert "--protocol udp or --protocol tcp" in icmp.stderr
        assert "Traceback" not in icmp.stderr
    udp = run("-q", "1", "-P", "udp")
    assert udp.returncode == 0, udp.stderr
    assert "UDP port 33434 (unprivileged socket)" in udp.stdout


def test_every_answer_is_heard_as_it_comes_and_the_result_keeps_those_that_count() -> None:
    import asyncio

    from probes.traceroute import trace_repeatedly
    from probes.traceroute.probers import HopAnswer

    heard: list[tuple[int, int, int, str]] = []
    ended: list[int] = []

    def on_reply(index: int, ttl: int, probe: int, answer: HopAnswer) -> None:
        heard.append((index, ttl, probe, answer.kind))
        assert not ended or ended[-1] < index  # a trace's answers come before its end

    results = asyncio.run(
        trace_repeatedly(
            "127.0.0.1",
            TraceOptions(protocol="udp", probes_per_hop=3, round_interval_s=0.01, timeout_s=1.0),
            TABLE,
            2,
            on_reply=on_reply,
            on_trace=lambda index, _result: ended.append(index),
        )
    )
    assert ended == [0, 1]
    for index, result in enumerate(results):
        kept = {(hop.ttl, r.probe, r.kind) for hop in result.hops for r in hop.replies}
        mine = {(ttl, probe, kind) for i, ttl, probe, kind in heard if i == index}
        # everything the result kept was heard; what was heard past the destination was dropped from it
        assert kept <= mine
        assert {ttl for ttl, _p, _k in mine - kept} <= set(range(2, 31))
        assert {(p, k) for t, p, k in kept if t == 1} == {(0, "reached"), (1, "reached"), (2, "reached")}
