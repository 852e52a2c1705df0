"""`linkvet trace` through routers in network namespaces whose interfaces carry backbone addresses: a
GIA-like path (59.43 only), a GT-like path (202.97 then 59.43) and a 163-like path (202.97 only), traced
from an office namespace that has no default route. Needs root (skipped otherwise, with the reason)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import cli_env
from tests.lab.route_lab import EDGE_ADDRESS, RouteLab, lab_unavailable_reason

_REASON = lab_unavailable_reason()
pytestmark = [pytest.mark.lab, pytest.mark.skipif(_REASON is not None, reason=_REASON or "")]

PATHS = {
    "gia": ["59.43.1.1", "59.43.2.1"],
    "gt": ["202.97.1.1", "59.43.3.1"],
    "n163": ["202.97.2.1", "202.97.3.1"],
}


@pytest.fixture(scope="module")
def lab() -> Iterator[RouteLab]:
    # Routers answer every probe here (no ICMP rate limit), so hop counts are exact; the rate-limited
    # case has its own lab below.
    with RouteLab(PATHS, icmp_ratelimit_ms=0) as built:
        yield built


def linkvet(
    lab: RouteLab, tmp_path: Path, *args: str, prefix: tuple[str, ...] = ()
) -> subprocess.CompletedProcess[str]:
    return lab.run_in_office(
        [*prefix, sys.executable, "-m", "desktop.cli", *args], env=cli_env(tmp_path), timeout=120
    )


def trace_json(lab: RouteLab, tmp_path: Path, *args: str, prefix: tuple[str, ...] = ()) -> dict[str, Any]:
    done = linkvet(lab, tmp_path, "trace", *args, "--json", "--no-store", prefix=prefix)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    return json.loads(done.stdout)


EXPECTED = {
    "gia": ("cn2-gia", "cn2-only", [(2, "59.43.1.1", 4809), (3, "59.43.2.1", 4809)]),
    "gt": ("cn2-gt", "cn2-and-163", [(2, "202.97.1.1", 4134), (3, "59.43.3.1", 4809)]),
    "n163": ("163", "163", [(2, "202.97.2.1", 4134), (3, "202.97.3.1", 4134)]),
}


@pytest.mark.usefixtures("engine_thread")
@pytest.mark.parametrize("path", ["gia", "gt", "n163"])
def test_icmp_trace_classifies_each_path_with_its_evidence(lab: RouteLab, tmp_path: Path, path: str) -> None:
    data = trace_json(lab, tmp_path, lab.region(path), "-q", "3")
    (trace,) = data["traces"]
    assert trace["protocol"] == "icmp" and trace["privileged"] is True
    assert trace["reached"] is True
    hops = trace["hops"]
    assert [h["address"] for h in hops] == [EDGE_ADDRESS, *PATHS[path], lab.region(path)]
    assert [(h["sent"], h["received"], h["loss"]) for h in hops] == [(3, 3, 0.0)] * 4
    assert all(h["rtt_min_ms"] is not None and 0 < h["rtt_min_ms"] < 50 for h in hops)
    assert hops[1]["network"]["asn"] == EXPECTED[path][2][0][2]
    line_class, rule, evidence = EXPECTED[path]
    verdict = trace["verdict"]
    assert (verdict["class"], verdict["rule"]) == (line_class, rule)
    assert [(e["ttl"], e["address"], e["asn"]) for e in verdict["evidence"]] == evidence
    assert all(e["source"] for e in verdict["evidence"])
    assert verdict["doubts"] == []
    assert data["verdict"]["summary"] == f"{line_class} on 1 of 1 trace"


def test_the_portable_backend_traces_through_the_routers_over_icmp_only(
    lab: RouteLab, tmp_path: Path
) -> None:
    """As root the portable backend's raw socket reads the routers' time-exceeded answers itself (no error
    queue): the same hops and verdict as the linux backend's; UDP it refuses, saying why."""
    env = cli_env(tmp_path) | {"LINKVET_PROBE_BACKEND": "portable"}
    command = [
        sys.executable,
        "-m",
        "desktop.cli",
        "trace",
        lab.region("gt"),
        "-q",
        "3",
        "--json",
        "--no-store",
    ]
    done = lab.run_in_office(command, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    (trace,) = json.loads(done.stdout)["traces"]
    assert trace["privileged"] is True and trace["reached"] is True
    assert [h["address"] for h in trace["hops"]] == [EDGE_ADDRESS, *PATHS["gt"], lab.region("gt")]
    assert [h["received"] for h in trace["hops"]] == [3, 3, 3, 3]
    assert trace["verdict"]["class"] == "cn2-gt"
    refused = lab.run_in_office([*command, "--protocol", "udp"], env=env, timeout=120)
    assert refused.returncode == 1 and "Traceback" not in refused.stderr
    assert "the portable probe backend cannot trace over UDP" in refused.stderr


@pytest.mark.parametrize("protocol", ["udp", "tcp"])
def test_udp_and_tcp_traces_see_the_same_gt_path(lab: RouteLab, tmp_path: Path, protocol: str) -> None:
    data = trace_json(lab, tmp_path, lab.region("gt"), "-q", "3", "-P", protocol)
    (trace,) = data["traces"]
    assert trace["privileged"] is False
    assert [h["address"] for h in trace["hops"]] == [EDGE_ADDRESS, *PATHS["gt"], lab.region("gt")]
    assert all(h["received"] == 3 for h in trace["hops"])
    assert trace["verdict"]["class"] == "cn2-gt"


@pytest.mark.usefixtures("engine_thread")
@pytest.mark.skipif(shutil.which("setpriv") is None, reason="needs setpriv to drop CAP_NET_RAW")
def test_unprivileged_icmp_trace_sees_every_hop(lab: RouteLab, tmp_path: Path) -> None:
    """Without CAP_NET_RAW, through the kernel's ping socket (allowed for group 0 in the office only). Each
    time-exceeded also fails the next send on such a socket; no hop may be lost or skipped because of it."""
    sysctl = ["ip", "netns", "exec", lab.office.name, "sysctl", "-qw"]
    subprocess.run([*sysctl, "net.ipv4.ping_group_range=0 0"], check=True, timeout=30)
    try:
        data = trace_json(
            lab, tmp_path, lab.region("gt"), "-q", "4", prefix=("setpriv", "--bounding-set=-net_raw")
        )
    finally:
        subprocess.run([*sysctl, "net.ipv4.ping_group_range=1 0"], check=True, timeout=30)
    (trace,) = data["traces"]
    assert trace["privileged"] is False
    assert [h["address"] for h in trace["hops"]] == [EDGE_ADDRESS, *PATHS["gt"], lab.region("gt")]
    assert [h["received"] for h in trace["hops"]] == [4, 4, 4, 4]
    assert trace["verdict"]["class"] == "cn2-gt"


DEFERRED_ERRORS = """
import asyncio, json, socket, time
from probes.icmp.engine import IcmpEngine
from probes.traceroute.probers import UdpProber

async def main():
    prober = UdpProber(DEST, socket.AF_INET, 1.0, 33434, 0)
    futures = []
    for ttl in (1, 2, 3, 4):
        futures.append(prober.send(ttl))
        time.sleep(0.005)  # blocks the loop: the previous probe's ICMP error is still pending on the socket
    udp = [(a.kind, a.address) for a in await asyncio.gather(*futures)]
    prober.close()
    async with IcmpEngine() as engine:
        futures = []
        for ttl in (1, 2, 3, 4):
            futures.append(engine.send(DEST, socket.AF_INET, 1.0, ttl=ttl))
            time.sleep(0.005)
        icmp = [(str(o.error), o.responder) for o in await asyncio.gather(*futures)]
        raw = engine.privileged()
    print(json.dumps({"udp": udp, "icmp": icmp, "raw": raw}))

asyncio.run(main())
"""


@pytest.mark.usefixtures("engine_thread")
@pytest.mark.skipif(shutil.which("setpriv") is None, reason="needs setpriv to drop CAP_NET_RAW")
def test_a_pending_icmp_error_does_not_swallow_the_next_probe(lab: RouteLab, tmp_path: Path) -> None:
    """On unprivileged sockets (UDP, ping) the kernel reports an earlier probe's ICMP error on the next send
    too. Probes sent while such an error is pending must still go out and be answered."""
    sysctl = ["ip", "netns", "exec", lab.office.name, "sysctl", "-qw"]
    subprocess.run([*sysctl, "net.ipv4.ping_group_range=0 0"], check=True, timeout=30)
    try:
        code = DEFERRED_ERRORS.replace("DEST", repr(lab.region("gt")))
        done = lab.run_in_office(
            ["setpriv", "--bounding-set=-net_raw", sys.executable, "-c", code], env=cli_env(tmp_path)
        )
    finally:
        subprocess.run([*sysctl, "net.ipv4.ping_group_range=1 0"], check=True, timeout=30)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    hops = [EDGE_ADDRESS, *PATHS["gt"], lab.region("gt")]
    assert data["raw"] is False
    assert data["udp"] == [["time-exceeded", a] for a in hops[:3]] + [["reached", hops[3]]]
    assert data["icmp"] == [["ttl_exceeded", a] for a in hops[:3]] + [["None", hops[3]]]


def test_a_claim_that_disagrees_with_the_traces_is_flagged(lab: RouteLab, tmp_path: Path) -> None:
    db = str(tmp_path / "store.sqlite3")
    labels = ("--provider", "acme", "--region", "los-angeles", "--line-type", "cn2-gia", "--db", db)
    done = linkvet(lab, tmp_path, "trace", lab.region("gt"), "-q", "2", "-i", "0.1", "-n", "3", *labels)
    assert done.returncode == 0, done.stderr
    assert "over 3 traces: CN2 GT — cn2-gt on 3 of 3 traces" in done.stdout
    assert (
        "claim check (MISMATCH): claims CN2 GIA, traced via 202.97 (163) on 3 of 3 traces (cn2-gt)"
        in done.stdout
    )
    assert (
        "stored traces of this region (MISMATCH): claims CN2 GIA, traced via 202.97 (163) on 3 of 3 traces"
        in (done.stdout)
    )
    # The same region's endpoint later traced over the GIA path: the stored verdicts now split.
    done = linkvet(lab, tmp_path, "trace", lab.region("gia"), "-q", "2", "-i", "0.1", *labels)
    assert (
        "claim check (AGREES): claims CN2 GIA, traced via 59.43 (CN2), no 163 hop, on 1 of 1 traces"
        in done.stdout
    )
    assert (
        "stored traces of this region (MISMATCH): claims CN2 GIA, traced via 202.97 (163) on 3 of 4 traces"
        in (done.stdout)
    )


def test_a_name_that_does_not_resolve_is_an_error_line_not_a_traceback(lab: RouteLab, tmp_path: Path) -> None:
    # Inside the office namespace no resolver is reachable: the lookup fails without a packet leaving.
    done = linkvet(lab, tmp_path, "trace", "no-such-region.invalid", "--no-store")
    assert done.returncode == 1
    assert "ERROR dns: cannot resolve 'no-such-region.invalid'" in done.stdout
    assert "Traceback" not in done.stderr


def test_rate_limited_routers_show_loss_at_their_hop_only(tmp_path: Path) -> None:
    """Linux routers answer at most 6 time-exceeded at once per sender, then one per second (the kernel's
    default icmp_ratelimit): mtr-style counting shows that as loss at the router's hop, while the
    destination, whose echo replies are not limited, answers every probe."""
    with RouteLab({"gt": PATHS["gt"]}, icmp_ratelimit_ms=1000) as limited:
        data = trace_json(limited, tmp_path, limited.region("gt"), "-q", "10", "-i", "0.02")
    (trace,) = data["traces"]
    hops = trace["hops"]
    assert [h["sent"] for h in hops] == [10, 10, 10, 10]
    assert all(1 <= h["received"] < 10 for h in hops[:-1]), [h["received"] for h in hops]
    assert hops[-1]["received"] == 10 and hops[-1]["loss"] == 0.0
    assert trace["verdict"]["class"] == "cn2-gt"
