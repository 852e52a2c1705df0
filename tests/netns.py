"""A small network-namespace kit for tests of error paths (unreachable, silent hosts, unprivileged sockets).

Addresses come from the lab range 198.18.0.0/15; namespaces are named after this process so parallel runs
do not collide, and are deleted on exit. Nothing is added to the root namespace. Root only.
"""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import pytest

from tests.conftest import REPO_ROOT

_counter = itertools.count()

needs_root = pytest.mark.skipif(
    sys.platform != "linux" or os.geteuid() != 0,
    reason="needs root on Linux to create network namespaces (CI runs as root)",
)


def ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, text=True)


class Namespace:
    def __init__(self, name: str) -> None:
        self.name = name

    def run(self, *args: str) -> None:
        ip("netns", "exec", self.name, *args)

    def python(
        self,
        args: Sequence[str],
        *,
        unprivileged: bool = False,
        env: dict[str, str] | None = None,
        timeout: float = 60,
    ) -> subprocess.CompletedProcess[str]:
        """Run `python ARGS` inside the namespace with this checkout importable; `unprivileged` drops
        CAP_NET_RAW (as an ordinary user lacks it: raw ICMP sockets are refused, the kernel's unprivileged
        ICMP sockets depend on net.ipv4.ping_group_range) while keeping file access to the interpreter."""
        command = ["ip", "netns", "exec", self.name]
        if unprivileged:
            command += ["setpriv", "--bounding-set=-net_raw", "--inh-caps=-net_raw", "--"]
        environment = dict(os.environ if env is None else env)
        environment["PYTHONPATH"] = str(REPO_ROOT)
        environment.setdefault("HOME", "/tmp")
        return subprocess.run(
            [*command, sys.executable, *args],
            capture_output=True,
            text=True,
            env=environment,
            timeout=timeout,
            cwd="/tmp",
        )

    def sysctl(self, key: str, value: str) -> None:
        self.run("sysctl", "-qw", f"{key}={value}")


@contextmanager
def namespaces(count: int) -> Iterator[list[Namespace]]:
    names = [f"lvt{os.getpid()}n{next(_counter)}" for _ in range(count)]
    created: list[str] = []
    try:
        for name in names:
            ip("netns", "add", name)
            created.append(name)
            ip("netns", "exec", name, "ip", "link", "set", "lo", "up")
        yield [Namespace(n) for n in names]
    finally:
        for name in created:
            subprocess.run(["ip", "netns", "del", name], capture_output=True)


def link(a: Namespace, a_addr: str, b: Namespace, b_addr: str) -> None:
    """A veth pair between two namespaces with the given CIDR addresses, both ends up."""
    a_if, b_if = f"v{next(_counter)}a", f"v{next(_counter)}b"
    ip("link", "add", a_if, "netns", a.name, "type", "veth", "peer", "name", b_if, "netns", b.name)
    a.run("ip", "addr", "add", a_addr, "dev", a_if)
    b.run("ip", "addr", "add", b_addr, "dev", b_if)
    a.run("ip", "link", "set", a_if, "up")
    b.run("ip", "link", "set", b_if, "up")
