"""iperf3 against a server the target runs: one test in each direction, by running the `iperf3` program
(an argument list, no shell) with `-J` and reading its JSON. The first `iperf3_omit_s` seconds of each test
(TCP slow start: about two seconds at 150 ms RTT) are left out of the figures (`-O`), as iperf3 users do.

    upload_mbps      office → region (iperf3's default direction), as the receiver measured it
    download_mbps    region → office (`-R`), as the receiver (this office) measured it
    throughput_mbps  = download_mbps, the direction data flows when the office pulls from the region
    retransmits      TCP retransmissions the sender counted, both directions
    bytes, seconds   received in the download direction (after the omitted warm-up)
    omitted_s        the warm-up left out of each direction
    loaded_rtt_ms    the mean TCP RTT the kernel saw while uploading (latency under load), when reported
An iperf3 result has no per-attempt samples (no RTT per attempt to report); a failed direction is the
result's error and message, and the other direction's figures are kept.
"""

from __future__ import annotations

import asyncio
import json
import shutil
from dataclasses import dataclass
from typing import Any

from probes.errors import ErrorKind
from probes.i18n import _, clauses
from probes.methods._context import RunContext
from probes.results import MetricValue, ProbeResult
from probes.target import DEFAULT_IPERF3_PORT, ProbeOptions, Target
from probes.timestamps import now_us


@dataclass(frozen=True, slots=True)
class Direction:
    mbps: float | None
    bytes: int | None
    seconds: float | None
    retransmits: int | None
    loaded_rtt_ms: float | None
    error: ErrorKind | None
    message: str | None


def parse_report(report: dict[str, Any]) -> Direction:
    """The figures of one `iperf3 -J` report (receiver side), or its error."""
    if report.get("error"):
        text = str(report["error"])
        lowered = text.lower()
        if "refused" in lowered:
            kind = ErrorKind.REFUSED
        elif "no route" in lowered or "unreachable" in lowered:
            kind = ErrorKind.UNREACHABLE
        elif "timed out" in lowered or "timeout" in lowered:
            kind = ErrorKind.TIMEOUT
        elif "resolve" in lowered or "name or service" in lowered:
            kind = ErrorKind.DNS
        else:
            kind = ErrorKind.TOOL_FAILED
        return Direction(None, None, None, None, None, kind, f"iperf3: {text}")
    end = report.get("end") or {}
    received = end.get("sum_received") or end.get("sum") or {}
    sent = end.get("sum_sent") or {}
    bps = received.get("bits_per_second")
    if bps is None:
        return Direction(
            None, None, None, None, None, ErrorKind.PROTOCOL, _("iperf3 reported no receiver figures")
        )
    return Direction(
        mbps=float(bps) / 1e6,
        bytes=int(received.get("bytes", 0)),
        seconds=float(received.get("seconds", 0.0)),
        retransmits=sent.get("retransmits"),
        loaded_rtt_ms=_mean_sender_rtt_ms(end),
        error=None,
        message=None,
    )


def _mean_sender_rtt_ms(end: dict[str, Any]) -> float | None:
    rtts = [
        stream["sender"]["mean_rtt"]
        for stream in end.get("streams") or []
        if (stream.get("sender") or {}).get("sender") and (stream["sender"].get("mean_rtt") or 0) > 0
    ]
    return sum(rtts) / len(rtts) / 1000.0 if rtts else None


async def run_direction(binary: str, host: str, port: int, options: ProbeOptions, reverse: bool) -> Direction:
    args = [
        binary,
        "-c",
        host,
        "-p",
        str(port),
        "-J",
        "-t",
        f"{options.iperf3_seconds:g}",
        "-O",
        f"{options.iperf3_omit_s:g}",
        "--connect-timeout",
        str(int(options.timeout_s * 1000)),
    ]
    if reverse:
        args.append("-R")
    try:
        process = await asyncio.create_subprocess_exec(
            *args, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
        )
    except FileNotFoundError:
        return Direction(
            None,
            None,
            None,
            None,
            None,
            ErrorKind.TOOL_MISSING,
            _(
                "iperf3 is not installed (looked for {binary!r}); install it, e.g. `apt-get install iperf3`"
            ).format(binary=binary),
        )
    except PermissionError as exc:
        return Direction(
            None,
            None,
            None,
            None,
            None,
            ErrorKind.TOOL_MISSING,
            _("cannot run {binary!r}: {reason}").format(binary=binary, reason=exc),
        )
    limit = options.iperf3_seconds + options.iperf3_omit_s + options.timeout_s + 10
    try:
        stdout, stderr = await asyncio.wait_for(process.communicate(), limit)
    except TimeoutError:
        process.kill()
        await process.wait()
        return Direction(
            None,
            None,
            None,
            None,
            None,
            ErrorKind.TIMEOUT,
            _("iperf3 did not finish within {seconds} s").format(seconds=f"{limit:.0f}"),
        )
    except asyncio.CancelledError:
        process.kill()
        await process.wait()
        raise
    try:
        report = json.loads(stdout.decode("utf-8", "replace") or "{}")
    except json.JSONDecodeError:
        detail = stderr.decode("utf-8", "replace").strip() or stdout[:200].decode("utf-8", "replace")
        return Direction(
            None,
            None,
            None,
            None,
            None,
            ErrorKind.TOOL_FAILED,
            _("iperf3 printed no JSON report: {detail}").format(detail=detail),
        )
    return parse_report(report)


async def measure(target: Target, options: ProbeOptions, ctx: RunContext) -> ProbeResult:
    started = now_us()
    assert target.host is not None
    binary = shutil.which(ctx.iperf3_binary) or ctx.iperf3_binary
    port = target.port or DEFAULT_IPERF3_PORT
    directions: dict[str, Direction] = {}
    for name, reverse in (("upload", False), ("download", True)):
        await ctx.pacer.turn()
        directions[name] = await run_direction(binary, target.host, port, options, reverse)
        if directions[name].error is ErrorKind.TOOL_MISSING:
            break
    up, down = directions.get("upload"), directions.get("download")
    metrics: dict[str, MetricValue] = {
        "upload_mbps": up.mbps if up else None,
        "download_mbps": down.mbps if down else None,
        "throughput_mbps": down.mbps if down else None,
        "bytes": down.bytes if down else None,
        "seconds": down.seconds if down else None,
        "retransmits": sum(d.retransmits or 0 for d in directions.values()),
        "loaded_rtt_ms": up.loaded_rtt_ms if up else None,
        "omitted_s": options.iperf3_omit_s,
    }
    failed = {name: d for name, d in directions.items() if d.error is not None}
    # The download direction carries the headline figure: without it the target was not measured.
    headline = failed.get("download") or (
        next(iter(failed.values())) if len(failed) == len(directions) else None
    )
    if "download" not in directions and failed:
        headline = next(iter(failed.values()))
    error = headline.error if headline is not None else None
    shown = {"upload": _("upload"), "download": _("download")}
    message = (
        clauses(
            _("{direction}: {message}").format(direction=shown[name], message=d.message)
            for name, d in failed.items()
            if d.message
        )
        or None
    )
    return ProbeResult(target, started, now_us(), error=error, message=message, metrics=metrics)
