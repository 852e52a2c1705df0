"""Plain-text tables and a progress line for the terminal."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TextIO

from probes.results import timed_by
from probes.target import Method

if TYPE_CHECKING:  # the runner pulls in httpx; commands that only print tables need not pay for it
    from probes.results import ProbeResult
    from probes.runner import Progress


def number(value: Any, digits: int = 2, suffix: str = "") -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.{digits}f}{suffix}"
    return f"{value}{suffix}"


def percent(fraction: float | None) -> str:
    return "-" if fraction is None else f"{fraction * 100:.1f}%"


def table(headers: Sequence[str], rows: Sequence[Sequence[str]], out: TextIO) -> None:
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)]
    last = len(headers) - 1

    def line(cells: Sequence[str]) -> str:
        return "  ".join(c if i == last else c.ljust(widths[i]) for i, c in enumerate(cells)).rstrip()

    out.write(line(headers) + "\n")
    for row in rows:
        out.write(line(row) + "\n")


def result_rows(results: Sequence[ProbeResult]) -> tuple[list[str], list[list[str]]]:
    """Headers and rows for a set of results, with the columns their methods have in common."""
    methods = {r.method for r in results}
    if methods <= {Method.ICMP, Method.TCP}:
        headers = [
            "TARGET",
            "METHOD",
            "SENT",
            "RECV",
            "LOSS",
            "MIN ms",
            "MEDIAN ms",
            "P95 ms",
            "MAX ms",
            "JITTER ms",
            "TIMED BY",
            "NOTE",
        ]
        rows = [
            [
                r.target.name,
                str(r.method),
                str(r.sent),
                str(r.received),
                percent(r.loss),
                number(r.rtt_min_ms),
                number(r.rtt_median_ms),
                number(r.rtt_p95_ms),
                number(r.rtt_max_ms),
                number(r.jitter_ms),
                timed_by(r.metrics),
                note(r),
            ]
            for r in results
        ]
        return headers, rows
    headers = ["TARGET", "METHOD", "OK", "LOSS", "MEDIAN ms", "FIGURES", "NOTE"]
    rows = [
        [
            r.target.name,
            str(r.method),
            f"{r.received}/{r.sent}",
            percent(r.loss),
            number(r.rtt_median_ms),
            figures(r),
            note(r),
        ]
        for r in results
    ]
    return headers, rows


def figures(result: ProbeResult) -> str:
    m = result.metrics
    if result.method is Method.HTTP:
        return (
            f"status {number(m.get('status'))}  dns {number(m.get('dns_ms'))}  connect "
            f"{number(m.get('connect_ms'))}  tls {number(m.get('tls_ms'))}  ttfb {number(m.get('ttfb_ms'))}  "
            f"total {number(m.get('total_ms'))} ms"
        )
    if result.method is Method.DOWNLOAD:
        size = m.get("bytes")
        mib = None if size is None else float(size) / 1048576
        return (
            f"{number(m.get('throughput_mbps'), 1)} Mbit/s (steady {number(m.get('steady_mbps'), 1)})  "
            f"{number(mib, 1)} MiB in {number(m.get('seconds'))} s  ttfb {number(m.get('ttfb_ms'))} ms"
        )
    if result.method is Method.IPERF3:
        return (
            f"down {number(m.get('download_mbps'), 1)} Mbit/s  up {number(m.get('upload_mbps'), 1)} Mbit/s  "
            f"retransmits {number(m.get('retransmits'))}"
        )
    return ""


def note(result: ProbeResult) -> str:
    if result.error is not None:
        return f"ERROR {result.error}: {result.message or ''}".strip()
    return result.message or ""


class ProgressLine:
    """A one-line progress bar on stderr, drawn only when stderr is a terminal."""

    def __init__(self, out: TextIO = sys.stderr, enabled: bool | None = None) -> None:
        self.out = out
        self.enabled = out.isatty() if enabled is None else enabled
        self._drawn = False

    def __call__(self, progress: Progress) -> None:
        if not self.enabled or progress.total == 0:
            return
        width = 30
        filled = int(width * progress.done / progress.total)
        self.out.write(
            f"\r[{'#' * filled}{'.' * (width - filled)}] {progress.done}/{progress.total} targets"
            f"  {progress.elapsed_s:.1f} s"
        )
        self.out.flush()
        self._drawn = True

    def finish(self) -> None:
        if self._drawn:
            self.out.write("\r\033[K")
            self.out.flush()
