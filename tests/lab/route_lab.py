"""A small routed lab in network namespaces (built with `tests.netns`): an office, an edge router, and one
chain of routers per path to a region host, so that a real traceroute from the office crosses routers
whose interfaces carry backbone addresses (59.43.x.x, 202.97.x.x, ...). No packet leaves the lab: the
office has no default route, only a route to the lab's region block (198.19.0.0/16), and nothing is added
to the root namespace.

    with RouteLab({"gia": ["59.43.1.1", "59.43.2.1"], "gt": ["202.97.1.1", "59.43.3.1"]}) as lab:
        lab.run_in_office(["traceroute", "-n", lab.region("gia")])

Each path gets a region host at 198.19.<n>.2 behind its last router. Router i answers a traceroute from
its office-facing interface, which carries the i-th address given (a host of a /30; the previous router
holds the other one). Leaving the `with` block deletes every namespace, also when setup fails halfway.
"""

from __future__ import annotations

import contextlib
import ipaddress
import os
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence

from tests.netns import Namespace, link, namespaces

OFFICE_ADDRESS = "198.18.0.2"
EDGE_ADDRESS = "198.18.0.1"
OFFICE_NET = "198.18.0.0/30"
REGION_BLOCK = "198.19.0.0/16"


def lab_unavailable_reason() -> str | None:
    """Why the lab cannot run here, or None."""
    if sys.platform != "linux":
        return "the route lab needs Linux network namespaces"
    if os.geteuid() != 0:
        return "the route lab builds network namespaces and needs root (CI runs as root)"
    if shutil.which("ip") is None:
        return "the route lab needs iproute2's `ip` command"
    return None


class RouteLab:
    def __init__(self, paths: Mapping[str, Sequence[str]], *, icmp_ratelimit_ms: int | None = None) -> None:
        """`paths`: path name -> the office-facing address of each router on it, in order.
        `icmp_ratelimit_ms`: net.ipv4.icmp_ratelimit of the routers and region hosts (None keeps the kernel
        default, 1000: after a burst of 6, one time-exceeded or port-unreachable per second per peer)."""
        self.paths = {name: list(addresses) for name, addresses in paths.items()}
        self.icmp_ratelimit_ms = icmp_ratelimit_ms
        self._regions: dict[str, str] = {}
        self._stack = contextlib.ExitStack()
        self.office: Namespace | None = None

    def region(self, path: str) -> str:
        """The region host's address at the end of `path`."""
        return self._regions[path]

    def __enter__(self) -> RouteLab:
        try:
            self._build()
        except BaseException:
            self._stack.close()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self._stack.close()

    def _build(self) -> None:
        count = 2 + sum(len(hops) + 1 for hops in self.paths.values())
        pool = iter(self._stack.enter_context(namespaces(count)))
        office, edge = next(pool), next(pool)
        self.office = office
        self._configure(office, router=False)
        self._configure(edge, router=True)
        link(office, f"{OFFICE_ADDRESS}/30", edge, f"{EDGE_ADDRESS}/30")
        # The office reaches the lab's region block through the edge and nothing else (no default route).
        office.run("ip", "route", "add", REGION_BLOCK, "via", EDGE_ADDRESS)
        for index, (name, addresses) in enumerate(self.paths.items(), start=1):
            region_net = ipaddress.ip_network(f"198.19.{index}.0/24")
            gateway, host_address = (str(region_net.network_address + i) for i in (1, 2))
            self._regions[name] = host_address
            previous = edge
            for address in addresses:
                hosts = [str(h) for h in ipaddress.ip_network(f"{address}/30", strict=False).hosts()]
                if address not in hosts:
                    raise ValueError(f"{address} is not a host address of its /30")
                other = next(h for h in hosts if h != address)
                router = next(pool)
                self._configure(router, router=True)
                link(previous, f"{other}/30", router, f"{address}/30")
                previous.run("ip", "route", "add", str(region_net), "via", address)  # onwards to the region
                router.run("ip", "route", "add", OFFICE_NET, "via", other)  # back to the office
                previous = router
            host = next(pool)
            self._configure(host, router=False)
            link(previous, f"{gateway}/24", host, f"{host_address}/24")
            host.run("ip", "route", "add", OFFICE_NET, "via", gateway)

    def _configure(self, ns: Namespace, *, router: bool) -> None:
        # Time-exceeded from 59.43.x.x arrives at an office with no route back there: no reverse-path filter.
        settings = ["net.ipv4.conf.all.rp_filter=0", "net.ipv4.conf.default.rp_filter=0"]
        if router:
            settings.append("net.ipv4.ip_forward=1")
        if ns is not self.office and self.icmp_ratelimit_ms is not None:
            settings.append(f"net.ipv4.icmp_ratelimit={self.icmp_ratelimit_ms}")
        ns.run("sysctl", "-qw", *settings)

    def run_in_office(
        self, argv: Sequence[str], *, env: Mapping[str, str] | None = None, timeout: float = 120
    ) -> subprocess.CompletedProcess[str]:
        """Run a command inside the office namespace and wait for it (killed, by its PID, on timeout)."""
        assert self.office is not None
        return subprocess.run(
            ["ip", "netns", "exec", self.office.name, *argv],
            env=dict(env) if env is not None else None,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
