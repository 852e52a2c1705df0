"""The anchor tools run inside the lab's office namespace (fping, ping, curl, iperf3) and their outputs
parsed into per-attempt figures, so that they can be compared with truth exactly as linkvet is."""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass
from typing import Any

from tests.lab.netlab import Lab


@dataclass(frozen=True)
class ToolRun:
    """One anchor run: per-attempt RTTs in send order (None = lost), extra figures, and the run's window on
    the monotonic clock (to pick its packets out of the lab's log)."""

    tool: str
    rtts_ms: tuple[float | None, ...]
    figures: dict[str, Any]
    since_ns: int
    until_ns: int
    raw: str


def parse_fping_counts(text: str) -> list[float | None]:
    """Per-attempt RTTs from `fping -C N -q` (its summary line `host : 150 151 - 150`)."""
    for line in text.splitlines():
        if " : " in line:
            values = line.split(" : ", 1)[1].split()
            return [None if v == "-" else float(v) for v in values]
    raise ValueError(f"no fping -C summary line in {text!r}")


_PING_REPLY = re.compile(r"icmp_seq=(\d+) ttl=\d+ time=([\d.]+) ms")
_PING_SUMMARY = re.compile(r"= ([\d.]+)/([\d.]+)/([\d.]+)/([\d.]+) ms")
_PING_SENT = re.compile(r"(\d+) packets transmitted, (\d+) received")


def parse_ping(text: str) -> tuple[list[float | None], dict[str, float]]:
    """Per-attempt RTTs (by icmp_seq, 1-based) and the summary (min/avg/max/mdev, µs precision) of
    iputils `ping -n`."""
    sent_match = _PING_SENT.search(text)
    if not sent_match:
        raise ValueError(f"no ping statistics in {text!r}")
    sent = int(sent_match.group(1))
    rtts: list[float | None] = [None] * sent
    for seq, value in _PING_REPLY.findall(text):
        index = int(seq) - 1
        if 0 <= index < sent and rtts[index] is None:
            rtts[index] = float(value)
    summary: dict[str, float] = {"sent": sent, "received": int(sent_match.group(2))}
    match = _PING_SUMMARY.search(text)
    if match:
        summary.update(
            zip(("min_ms", "avg_ms", "max_ms", "mdev_ms"), map(float, match.groups()), strict=True)
        )
    return rtts, summary


CURL_FORMAT = (
    '{"connect": %{time_connect}, "pretransfer": %{time_pretransfer}, '
    '"starttransfer": %{time_starttransfer}, "total": %{time_total}, '
    '"size": %{size_download}, "speed": %{speed_download}, "code": %{http_code}}\n'
)


def parse_curl(text: str) -> list[dict[str, float]]:
    """One dict per transfer from `curl -w CURL_FORMAT` (times in seconds as curl prints them)."""
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


def parse_iperf3(text: str) -> dict[str, Any]:
    """Receiver-side figures of `iperf3 -J` (sum_received over the non-omitted seconds)."""
    report = json.loads(text)
    if report.get("error"):
        raise RuntimeError(f"iperf3: {report['error']}")
    end = report["end"]
    received = end["sum_received"]
    return {
        "mbps": received["bits_per_second"] / 1e6,
        "bytes": received["bytes"],
        "seconds": received["seconds"],
        "retransmits": end.get("sum_sent", {}).get("retransmits"),
        "intervals_mbps": [i["sum"]["bits_per_second"] / 1e6 for i in report.get("intervals", [])],
    }


# --- running them in the lab -------------------------------------------------------------------------------


def _timed(lab: Lab, tool: str, cmd: list[str], timeout: float) -> tuple[str, int, int]:
    since = time.monotonic_ns()
    proc = lab.office_run(cmd, timeout=timeout)
    until = time.monotonic_ns()
    return proc.stdout + proc.stderr, since, until


def run_fping(lab: Lab, host: str, count: int, period_ms: int, timeout_ms: int) -> ToolRun:
    out, since, until = _timed(
        lab,
        "fping",
        ["fping", "-q", "-C", str(count), "-p", str(period_ms), "-t", str(timeout_ms), host],
        timeout=count * period_ms / 1000 + 30,
    )
    return ToolRun("fping", tuple(parse_fping_counts(out)), {}, since, until, out)


def run_ping(lab: Lab, host: str, count: int, interval_s: float, timeout_s: float) -> ToolRun:
    out, since, until = _timed(
        lab,
        "ping",
        ["ping", "-n", "-c", str(count), "-i", f"{interval_s:g}", "-W", f"{timeout_s:g}", host],
        timeout=count * interval_s + 30,
    )
    rtts, summary = parse_ping(out)
    return ToolRun("ping", tuple(rtts), summary, since, until, out)


def run_curl(lab: Lab, url: str, count: int, *, max_seconds: float | None = None) -> ToolRun:
    cmd = ["curl", "-s", "-o", "/dev/null", "-w", CURL_FORMAT]
    if max_seconds is not None:
        cmd += ["--max-time", f"{max_seconds:g}"]
    out = ""
    since = time.monotonic_ns()
    for _ in range(count):
        out += lab.office_run([*cmd, url], timeout=(max_seconds or 30) + 30).stdout
    until = time.monotonic_ns()
    return ToolRun("curl", (), {"transfers": parse_curl(out)}, since, until, out)


def run_iperf3(lab: Lab, host: str, seconds: float, *, reverse: bool = True, omit_s: int = 0) -> ToolRun:
    cmd = ["iperf3", "-c", host, "-J", "-t", f"{seconds:g}"]
    if reverse:
        cmd.append("-R")
    if omit_s:
        cmd += ["-O", str(omit_s)]
    out, since, until = _timed(lab, "iperf3", cmd, timeout=seconds + omit_s + 60)
    return ToolRun("iperf3", (), parse_iperf3(out), since, until, out)


@dataclass(frozen=True)
class LinkvetRun:
    """`linkvet probe --json` run inside the office: its result objects (the CLI contract) and its window."""

    results: tuple[dict[str, Any], ...]
    since_ns: int
    until_ns: int
    returncode: int
    stderr: str

    @property
    def result(self) -> dict[str, Any]:
        if len(self.results) != 1:
            raise AssertionError(f"expected one result, got {len(self.results)}: {self.stderr}")
        return self.results[0]

    @property
    def rtts_ms(self) -> tuple[float | None, ...]:
        return tuple(s["rtt_ms"] for s in self.result["samples"])


def run_linkvet_probe(lab: Lab, *args: str, timeout: float = 300, backend: str | None = None) -> LinkvetRun:
    """`python -m desktop.cli probe ARGS... --json --no-store` from this checkout, inside the office (on
    the probe backend named, else this platform's)."""
    since = time.monotonic_ns()
    proc = lab.linkvet("probe", *args, "--json", "--no-store", timeout=timeout, backend=backend)
    until = time.monotonic_ns()
    if proc.returncode not in (0, 1):
        raise AssertionError(f"linkvet probe {' '.join(args)} exited {proc.returncode}: {proc.stderr}")
    results = tuple(json.loads(line) for line in proc.stdout.splitlines() if line.strip())
    return LinkvetRun(results, since, until, proc.returncode, proc.stderr)
