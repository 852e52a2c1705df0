"""Bring the emulated-link lab up and down.

Topology (all addresses in 198.18.0.0/15, nothing in the root namespace):

    office netns (198.18.0.1, no default route)          region netns "r1" (198.18.1.1), "r2" (198.18.2.1) …
      lvtun ──► emulator process (userspace, logs every packet) ◄── lvtun
                                                           services: ICMP echo (kernel), TCP :9000,
                                                           HTTP :80 (/large.bin), iperf3 -s :5201

Every process the lab starts is remembered by its Popen (killed by PID) and also carries
PR_SET_PDEATHSIG, so it dies with the test process; namespaces are named `lvlab<pid>x<n>-…` so that a later lab
can delete the ones a killed run left behind (their owner pid no longer exists).

"""

from __future__ import annotations

import itertools
import json
import os
import re
import select
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import numpy as np

from tests.lab.packetlog import read_log
from tests.lab.profiles import Profile

REPO_ROOT = Path(__file__).resolve().parents[2]
OFFICE_ADDRESS = "198.18.0.1"
TUN_DEV = "lvtun"
TCP_PORT = 9000
HTTP_PORT = 80
IPERF3_PORT = 5201
LARGE_FILE = "large.bin"
NETNS_PREFIX = "lvlab"
_STALE = re.compile(rf"^{NETNS_PREFIX}(\d+)x\d+-")
_instances = itertools.count(1)


class LabError(RuntimeError):
    """The lab could not be built or driven (the message says which step and why)."""


def lab_unavailable_reason() -> str | None:
    """Why the lab cannot run here, or None if it can."""
    if sys.platform != "linux":
        return "the emulated-link lab needs Linux network namespaces"
    if os.geteuid() != 0:
        return "the emulated-link lab needs root (network namespaces, TUN devices); CI runs it as root"
    if not os.path.exists("/dev/net/tun"):
        return "the emulated-link lab needs /dev/net/tun"
    for tool in ("ip", "setpriv", "ss"):
        if shutil.which(tool) is None:
            return f"the emulated-link lab needs `{tool}` (iproute2 / util-linux)"
    return None


@dataclass(frozen=True)
class Region:
    name: str
    index: int
    netns: str
    address: str

    @property
    def http_url(self) -> str:
        return f"http://{self.address}:{HTTP_PORT}/"

    @property
    def large_url(self) -> str:
        return f"http://{self.address}:{HTTP_PORT}/{LARGE_FILE}"


def _run(*cmd: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
    if check and proc.returncode != 0:
        raise LabError(f"`{' '.join(cmd)}` failed ({proc.returncode}): {proc.stderr.strip()}")
    return proc


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def delete_stale_namespaces() -> list[str]:
    """Delete lab namespaces whose owning test process is gone (a run that was SIGKILLed)."""
    deleted = []
    for name in sorted(os.listdir("/run/netns")) if os.path.isdir("/run/netns") else []:
        match = _STALE.match(name)
        if match and not _pid_alive(int(match.group(1))):
            _run("ip", "netns", "del", name, check=False)
            deleted.append(name)
    return deleted


class Lab:
    """An office namespace joined to one namespace per region through the userspace emulator.

    Use as a context manager (or call `start()`/`stop()`); `stop()` is idempotent and safe after a partial
    start."""

    def __init__(
        self,
        workdir: Path,
        regions: Sequence[str] = ("r1",),
        *,
        seed: int = 1,
        spin_us: float = 250.0,
        priority: str = "fifo",
        large_file_mb: int = 128,
        profile: Profile | None = None,
    ) -> None:
        self.workdir = Path(workdir)
        self.tag = f"{NETNS_PREFIX}{os.getpid()}x{next(_instances)}"
        self.office_netns = f"{self.tag}-office"
        self.office_address = OFFICE_ADDRESS
        self.regions = {
            name: Region(name, i, f"{self.tag}-{name}", f"198.18.{i}.1")
            for i, name in enumerate(regions, start=1)
        }
        self.seed = seed
        self.spin_us = spin_us
        self.priority = priority
        self.large_file_mb = large_file_mb
        self.has_iperf3 = shutil.which("iperf3") is not None
        self.initial_profile = profile or Profile.constant(0.0)
        self.log_path = self.workdir / "packets.bin"
        self.control_path = self.workdir / "emulator.sock"
        self._procs: list[tuple[str, subprocess.Popen[str], IO[str]]] = []
        self._netns: list[str] = []
        self._started = False

    # --- lifecycle -----------------------------------------------------------------------------------------

    def __enter__(self) -> Lab:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> Lab:
        reason = lab_unavailable_reason()
        if reason:
            raise LabError(reason)
        delete_stale_namespaces()
        self.workdir.mkdir(parents=True, exist_ok=True)
        try:
            self._make_netns(self.office_netns, self.office_address)
            for region in self.regions.values():
                self._make_netns(region.netns, region.address)
            self._start_emulator()
            self._make_www()
            for region in self.regions.values():
                self._start_services(region)
            for region in self.regions.values():
                self._wait_reachable(region)
        except BaseException:
            self.stop()
            raise
        self._started = True
        return self

    def stop(self) -> None:
        """Stop every process this lab started (by PID) and delete its namespaces."""
        for _, proc, _ in reversed(self._procs):
            if proc.poll() is None:
                proc.terminate()
        for _, proc, stderr in reversed(self._procs):
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=5)
            if proc.stdout:
                proc.stdout.close()
            stderr.close()
        self._procs.clear()
        for netns in reversed(self._netns):
            _run("ip", "netns", "del", netns, check=False)
        self._netns.clear()
        (self.workdir / "www" / LARGE_FILE).unlink(missing_ok=True)  # generated again on the next start
        self._started = False

    # --- building ------------------------------------------------------------------------------------------

    def _make_netns(self, netns: str, address: str) -> None:
        _run("ip", "netns", "add", netns)
        self._netns.append(netns)
        _run("ip", "-n", netns, "link", "set", "lo", "up")
        _run(
            "ip",
            "netns",
            "exec",
            netns,
            "sysctl",
            "-q",
            "-w",
            "net.ipv6.conf.all.disable_ipv6=1",
            "net.ipv6.conf.default.disable_ipv6=1",
        )
        _run("ip", "-n", netns, "tuntap", "add", "dev", TUN_DEV, "mode", "tun")
        _run("ip", "-n", netns, "link", "set", TUN_DEV, "txqueuelen", "10000")
        # The whole lab range is on-link over the TUN device; no default route anywhere.
        _run("ip", "-n", netns, "addr", "add", f"{address}/15", "dev", TUN_DEV)
        _run("ip", "-n", netns, "link", "set", TUN_DEV, "up")

    def _spawn(self, label: str, cmd: list[str], netns: str | None = None) -> subprocess.Popen[str]:
        full = ["setpriv", "--pdeathsig", "TERM", "--", *cmd]
        if netns:
            full = ["ip", "netns", "exec", netns, *full]
        env = dict(os.environ, PYTHONPATH=str(REPO_ROOT))
        stderr = (self.workdir / f"{label}.stderr").open("w")
        try:
            proc = subprocess.Popen(
                full,
                cwd=REPO_ROOT,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=stderr,
                text=True,
            )
        except BaseException:
            stderr.close()
            raise
        self._procs.append((label, proc, stderr))
        return proc

    def _await_ready(self, label: str, proc: subprocess.Popen[str], timeout: float = 15.0) -> None:
        assert proc.stdout is not None
        ready, _, _ = select.select([proc.stdout], [], [], timeout)
        line = proc.stdout.readline().strip() if ready else ""
        if line != "ready":
            err = (self.workdir / f"{label}.stderr").read_text()[-2000:]
            raise LabError(f"{label} did not start (exit {proc.poll()}): {err}")

    def _start_emulator(self) -> None:
        config: dict[str, Any] = {
            "control": str(self.control_path),
            "log": str(self.log_path),
            "seed": self.seed,
            "spin_us": self.spin_us,
            "priority": self.priority,
            "office": {"netns": self.office_netns, "dev": TUN_DEV},
            "regions": [
                {
                    "name": r.name,
                    "netns": r.netns,
                    "dev": TUN_DEV,
                    "address": r.address,
                    "profile": self.initial_profile.as_dict(),
                }
                for r in self.regions.values()
            ],
        }
        for stale in (self.log_path, self.log_path.with_suffix(".meta.jsonl"), self.control_path):
            stale.unlink(missing_ok=True)
        cfg = self.workdir / "emulator.json"
        cfg.write_text(json.dumps(config, indent=1))
        proc = self._spawn("emulator", [sys.executable, "-m", "tests.lab.emulator", str(cfg)])
        self._await_ready("emulator", proc)

    def _make_www(self) -> None:
        www = self.workdir / "www"
        www.mkdir(exist_ok=True)
        (www / "index.html").write_text("<html><body>linkvet lab</body></html>\n")
        large = www / LARGE_FILE
        if not large.exists() or large.stat().st_size != self.large_file_mb << 20:
            block = np.random.default_rng(self.seed).bytes(1 << 20)
            with large.open("wb") as fh:
                for _ in range(self.large_file_mb):
                    fh.write(block)

    def _start_services(self, region: Region) -> None:
        py = [sys.executable, "-m", "tests.lab.services"]
        tcp = self._spawn(f"{region.name}-tcp", [*py, "tcp", region.address, str(TCP_PORT)], region.netns)
        self._await_ready(f"{region.name}-tcp", tcp)
        http = self._spawn(
            f"{region.name}-http",
            [*py, "http", region.address, str(HTTP_PORT), str(self.workdir / "www")],
            region.netns,
        )
        self._await_ready(f"{region.name}-http", http)
        if not self.has_iperf3:
            return  # tests that need it skip (tests.lab.conftest.needs)
        self._spawn(
            f"{region.name}-iperf3",
            ["iperf3", "-s", "-B", region.address, "-p", str(IPERF3_PORT)],
            region.netns,
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            listening = _run("ip", "netns", "exec", region.netns, "ss", "-Htln", f"sport = :{IPERF3_PORT}")
            if listening.stdout.strip():
                return
            time.sleep(0.05)
        raise LabError(f"iperf3 -s did not start in {region.netns}")

    def _wait_reachable(self, region: Region) -> None:
        check = (
            f"import socket; socket.create_connection(({region.address!r}, {TCP_PORT}), timeout=5).close()"
        )
        proc = self.office_run([sys.executable, "-c", check], timeout=10)
        if proc.returncode != 0:
            raise LabError(f"{region.address} unreachable from the office: {proc.stderr.strip()}")

    # --- driving -------------------------------------------------------------------------------------------

    @property
    def pids(self) -> dict[str, int]:
        """The processes this lab started (emulator, services), by label."""
        return {label: proc.pid for label, proc, _ in self._procs}

    @property
    def netns_names(self) -> list[str]:
        return list(self._netns)

    def region(self, name: str = "r1") -> Region:
        return self.regions[name]

    def office_command(self, cmd: Sequence[str]) -> list[str]:
        """`cmd` wrapped to run inside the office namespace."""
        return ["ip", "netns", "exec", self.office_netns, *cmd]

    def office_run(
        self,
        cmd: Sequence[str],
        *,
        timeout: float = 120,
        env: dict[str, str] | None = None,
        cwd: Path | None = None,
    ) -> subprocess.CompletedProcess[str]:
        """Run `cmd` inside the office namespace; capture its output."""
        return subprocess.run(
            self.office_command(cmd),
            capture_output=True,
            text=True,
            timeout=timeout,
            env=env,
            cwd=cwd,
        )

    def linkvet_env(self, home: Path) -> dict[str, str]:
        env = dict(os.environ)
        env["PYTHONPATH"] = str(REPO_ROOT)
        for var, sub in (("XDG_DATA_HOME", "data"), ("XDG_STATE_HOME", "state"), ("XDG_CONFIG_HOME", "cfg")):
            env[var] = str(home / sub)
        return env

    def linkvet(
        self,
        *args: str,
        home: Path | None = None,
        timeout: float = 300,
        backend: str | None = None,
    ) -> subprocess.CompletedProcess[str]:
        """Run `python -m desktop.cli ARGS...` from this checkout inside the office namespace (with
        `backend`: on that probe backend, through LINKVET_PROBE_BACKEND)."""
        home = home or self.workdir / "linkvet-home"
        home.mkdir(parents=True, exist_ok=True)
        env = self.linkvet_env(home)
        if backend is not None:
            env["LINKVET_PROBE_BACKEND"] = backend
        return self.office_run(
            [sys.executable, "-m", "desktop.cli", *args], timeout=timeout, env=env, cwd=home
        )

    def control(self, request: dict[str, Any]) -> dict[str, Any]:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(10)
            sock.connect(str(self.control_path))
            sock.sendall(json.dumps(request).encode() + b"\n")
            data = b""
            while not data.endswith(b"\n"):
                chunk = sock.recv(65536)
                if not chunk:
                    break
                data += chunk
        reply: dict[str, Any] = json.loads(data)
        if not reply.get("ok"):
            raise LabError(f"emulator refused {request.get('cmd')}: {reply.get('error')}")
        return reply

    def set_profile(self, profile: Profile, region: str = "r1") -> int:
        """Apply `profile` to a region's link from now on; returns the profile's epoch (monotonic ns)."""
        reply = self.control({"cmd": "set_profile", "region": region, "profile": profile.as_dict()})
        return int(reply["epoch_ns"])

    def settle(self, until_ns: int | None = None, timeout: float = 10.0) -> None:
        """Wait until every packet that reached the emulator before `until_ns` (default: now) has left or
        been dropped, and its record is on disk."""
        until_ns = time.monotonic_ns() if until_ns is None else until_ns
        deadline = time.monotonic() + timeout
        while True:
            reply = self.control({"cmd": "flush"})
            oldest = reply["oldest_pending_in_ns"]
            if oldest is None or oldest > until_ns:
                return
            if time.monotonic() > deadline:
                raise LabError("emulator did not settle")
            time.sleep(0.02)

    def packets(self, since_ns: int = 0) -> np.ndarray:
        """Every packet record so far (after settling), from `since_ns` on (by arrival time)."""
        self.settle()
        log = read_log(self.log_path)
        return log[log["t_in_ns"] >= since_ns]

    def stats(self) -> dict[str, Any]:
        return self.control({"cmd": "stats"})

    def device_drops(self) -> dict[str, int]:
        """Packets the TUN devices dropped outside the emulator (should stay 0: such a loss has no record)."""
        drops = {}
        for netns in [self.office_netns, *(r.netns for r in self.regions.values())]:
            out = _run("ip", "-n", netns, "-s", "-j", "link", "show", TUN_DEV).stdout
            stats = json.loads(out)[0]["stats64"]
            drops[netns] = int(stats["rx"]["dropped"]) + int(stats["tx"]["dropped"])
        return drops


def install_sigterm_teardown() -> None:
    """Turn SIGTERM into KeyboardInterrupt (if nobody else handles it) so fixtures' teardown runs."""
    if signal.getsignal(signal.SIGTERM) in (signal.SIG_DFL, None):

        def _raise(signum: int, frame: object) -> None:
            raise KeyboardInterrupt(f"signal {signum}")

        signal.signal(signal.SIGTERM, _raise)
