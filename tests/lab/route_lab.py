"""A small routed lab in network namespaces: an office, an edge router, and one chain of routers per
path to a region host, so that a real traceroute from the office crosses routers whose interfaces carry
backbone addresses (59.43.x.x, 202.97.x.x, ...). No packet leaves the lab: the office has no default
route, only a route to the lab's region block (198.19.0.0/16), and nothing is added to the root namespace.

    with RouteLab({"gia": ["59.43.1.1", "59.43.2.1"], "gt": ["202.97.1.1", "59.43.3.1"]}) as lab:
        lab.run_in_office(["python", "-m", "desktop.cli", "trace", lab.region("gia")])

Each path gets a region host at 198.19.<n>.2 behind its last router. Router i answers a traceroute from
its office-facing interface, which carries the i-th address given (as .1 of a /30; the previous router
holds the other address of that /30). Teardown deletes every namespace it made (`ip netns del`), also
when setup fails halfway, and clears namespaces left by earlier runs whose process is gone.
"""

from __future__ import annotations

import ipaddress
import itertools
import os
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

OFFICE_ADDRESS = "198.18.0.2"
EDGE_ADDRESS = "198.18.0.1"
OFFICE_NET = "198.18.0.0/30"
REGION_BLOCK = "198.19.0.0/16"
_PREFIX = "lvroute"
_LAB_NUMBERS = itertools.count(1)


def lab_unavailable_reason() -> str | None:
    """Why the lab cannot run here, or None."""
    if os.geteuid() != 0:
        return "the route lab builds network namespaces and needs root (CI runs as root)"
    if shutil.which("ip") is None:
        return "the route lab needs iproute2's `ip` command"
    return None


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, text=True, timeout=30)


def _sysctl(ns: str, *settings: str) -> None:
    subprocess.run(
        ["ip", "netns", "exec", ns, "sysctl", "-qw", *settings],
        check=True,
        capture_output=True,
        text=True,
        timeout=30,
    )


def clear_stale_namespaces() -> None:
    """Delete lab namespaces left by earlier runs whose process no longer exists."""
    try:
        names = subprocess.run(
            ["ip", "netns", "list"], check=True, capture_output=True, text=True, timeout=30
        ).stdout.split()
    except (OSError, subprocess.SubprocessError):
        return
    for name in names:
        parts = name.split("-")
        ours = len(parts) >= 3 and parts[0] == _PREFIX and parts[1].isdigit()
        if ours and not Path(f"/proc/{parts[1]}").exists():
            subprocess.run(["ip", "netns", "del", name], capture_output=True, timeout=30)


class RouteLab:
    def __init__(self, paths: Mapping[str, Sequence[str]], *, icmp_ratelimit_ms: int | None = None) -> None:
        """`paths`: path name -> the office-facing address of each router on it, in order.
        `icmp_ratelimit_ms`: net.ipv4.icmp_ratelimit of the routers and region hosts (None keeps the kernel
        default, 1000: after a burst of 6, one time-exceeded or port-unreachable per second per peer)."""
        self.paths = {name: list(addresses) for name, addresses in paths.items()}
        self.icmp_ratelimit_ms = icmp_ratelimit_ms
        self.tag = f"{_PREFIX}-{os.getpid()}-{next(_LAB_NUMBERS)}"
        self.namespaces: list[str] = []
        self._regions: dict[str, str] = {}

    # -- naming -------------------------------------------------------------------------------------------

    def ns(self, name: str) -> str:
        return f"{self.tag}-{name}"

    @property
    def office(self) -> str:
        return self.ns("office")

    def region(self, path: str) -> str:
        """The region host's address at the end of `path`."""
        return self._regions[path]

    # -- building -----------------------------------------------------------------------------------------

    def __enter__(self) -> RouteLab:
        clear_stale_namespaces()
        try:
            self._build()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _add_ns(self, name: str, *, router: bool) -> str:
        ns = self.ns(name)
        _ip("netns", "add", ns)
        self.namespaces.append(ns)
        _ip("-n", ns, "link", "set", "lo", "up")
        settings = ["net.ipv4.conf.all.rp_filter=0", "net.ipv4.conf.default.rp_filter=0"]
        if router:
            settings.append("net.ipv4.ip_forward=1")
        if name != "office" and self.icmp_ratelimit_ms is not None:
            settings.append(f"net.ipv4.icmp_ratelimit={self.icmp_ratelimit_ms}")
        _sysctl(ns, *settings)
        return ns

    def _link(self, ns_a: str, if_a: str, addr_a: str, ns_b: str, if_b: str, addr_b: str) -> None:
        _ip("-n", ns_a, "link", "add", if_a, "type", "veth", "peer", "name", if_b, "netns", ns_b)
        _ip("-n", ns_a, "addr", "add", addr_a, "dev", if_a)
        _ip("-n", ns_b, "addr", "add", addr_b, "dev", if_b)
        _ip("-n", ns_a, "link", "set", if_a, "up")
        _ip("-n", ns_b, "link", "set", if_b, "up")

    def _build(self) -> None:
        office = self._add_ns("office", router=False)
        edge = self._add_ns("edge", router=True)
        self._link(office, "up0", f"{OFFICE_ADDRESS}/30", edge, "down0", f"{EDGE_ADDRESS}/30")
        # The office reaches the lab's region block through the edge and nothing else (no default route).
        _ip("-n", office, "route", "add", REGION_BLOCK, "via", EDGE_ADDRESS)
        for index, (name, addresses) in enumerate(self.paths.items(), start=1):
            region_net = ipaddress.ip_network(f"198.19.{index}.0/24")
            region_gw, region_host = (str(region_net.network_address + i) for i in (1, 2))
            self._regions[name] = region_host
            previous, previous_if = edge, f"p{index}"
            for hop, address in enumerate(addresses, start=1):
                link = ipaddress.ip_network(f"{address}/30", strict=False)
                hosts = [str(h) for h in link.hosts()]
                if address not in hosts:
                    raise ValueError(f"{address} is not a host address of its /30")
                other = next(h for h in hosts if h != address)
                router = self._add_ns(f"{name}{hop}", router=True)
                self._link(previous, previous_if, f"{other}/30", router, "in0", f"{address}/30")
                # Forward: the previous router sends this path's region block here.
                _ip("-n", previous, "route", "add", str(region_net), "via", address)
                # Back: this router reaches the office through the previous one.
                _ip("-n", router, "route", "add", OFFICE_NET, "via", other)
                previous, previous_if = router, "out0"
            host = self._add_ns(f"{name}-region", router=False)
            self._link(previous, previous_if, f"{region_gw}/24", host, "in0", f"{region_host}/24")
            _ip("-n", host, "route", "add", OFFICE_NET, "via", region_gw)

    # -- using --------------------------------------------------------------------------------------------

    def run_in_office(
        self, argv: Sequence[str], *, env: Mapping[str, str] | None = None, timeout: float = 120
    ) -> subprocess.CompletedProcess[str]:
        """Run a command inside the office namespace and wait for it (killed, by its PID, on timeout)."""
        return subprocess.run(
            ["ip", "netns", "exec", self.office, *argv],
            env=dict(env) if env is not None else None,
            capture_output=True,
            text=True,
            timeout=timeout,
        )

    def close(self) -> None:
        for ns in reversed(self.namespaces):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=30)
        self.namespaces.clear()
