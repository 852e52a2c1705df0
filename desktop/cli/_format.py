"""Tables and a progress bar for the terminal, laid out by display width (rich: a CJK character takes two
columns, so `洛杉矶-CN2线路` and `la-bgp` line up); untrusted text is escaped by
`desktop.cli._safe_text.printable`. A table is plain text in columns two spaces apart, with no box and no
colour, so output piped to a file reads the same as on the screen; only a terminal gets bold headers."""

from __future__ import annotations

import sys
from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING, Any, TextIO

from desktop.cli._safe_text import printable
from desktop.i18n import _
from probes.results import timed_by
from probes.target import Method

if TYPE_CHECKING:  # the runner pulls in httpx; commands that only print tables need not pay for it
    from probes.results import ProbeResult, Progress


def number(value: Any, digits: int = 2, suffix: str = "") -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.{digits}f}{suffix}"
    return f"{value}{suffix}"


def percent(fraction: float | None) -> str:
    return "-" if fraction is None else f"{fraction * 100:.1f}%"


def table(
    headers: Sequence[str], rows: Sequence[Sequence[str]], out: TextIO, right: Collection[int] = ()
) -> None:
    """Columns as wide as their widest cell in display columns (rich's `cell_len`: a CJK character takes
    two), two spaces apart, no cell wrapped or cut (the columns numbered in `right` aligned to the right, as
    numbers are); every cell goes through `printable` (no control character of a name or a host's message
    reaches the terminal, no newline splits a row). Laid out here rather than by rich's Table, which takes
    seconds for the tens of thousands of rows a plan may list (`schedule --check`)."""
    from rich.cells import cell_len

    terminal = out.isatty()
    shown = [[printable(cell) for cell in row] for row in [headers, *rows]]
    columns = max((len(row) for row in shown), default=0)
    widths = [max((cell_len(row[i]) for row in shown if i < len(row)), default=0) for i in range(columns)]

    def line(cells: Sequence[str], bold: bool = False) -> str:
        parts = []
        for index, cell in enumerate(cells):
            gap = " " * (widths[index] - cell_len(cell))
            padded = gap + cell if index in right else cell + gap
            parts.append(f"\x1b[1m{padded}\x1b[0m" if bold and cell else padded)
        return "  ".join(parts).rstrip() + "\n"

    out.write(line(shown[0], bold=terminal) + "".join(line(row) for row in shown[1:]))


def result_rows(results: Sequence[ProbeResult]) -> tuple[list[str], list[list[str]]]:
    """Headers and rows for a set of results, with the columns their methods have in common."""
    methods = {r.method for r in results}
    if methods <= {Method.ICMP, Method.TCP}:
        headers = [
            _("TARGET"),
            _("METHOD"),
            _("SENT"),
            _("RECV"),
            _("LOSS"),
            _("MIN ms"),
            _("MEDIAN ms"),
            _("P95 ms"),
            _("MAX ms"),
            _("JITTER ms"),
            _("TIMED BY"),
            _("NOTE"),
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
    headers = [_("TARGET"), _("METHOD"), _("OK"), _("LOSS"), _("MEDIAN ms"), _("FIGURES"), _("NOTE")]
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
        return _(
            "status {status}  dns {dns}  connect {connect}  tls {tls}  ttfb {ttfb}  total {total} ms"
        ).format(
            status=number(m.get("status")),
            dns=number(m.get("dns_ms")),
            connect=number(m.get("connect_ms")),
            tls=number(m.get("tls_ms")),
            ttfb=number(m.get("ttfb_ms")),
            total=number(m.get("total_ms")),
        )
    if result.method is Method.DOWNLOAD:
        size = m.get("bytes")
        mib = None if size is None else float(size) / 1048576
        return _("{rate} Mbit/s (steady {steady})  {mib} MiB in {seconds} s  ttfb {ttfb} ms").format(
            rate=number(m.get("throughput_mbps"), 1),
            steady=number(m.get("steady_mbps"), 1),
            mib=number(mib, 1),
            seconds=number(m.get("seconds")),
            ttfb=number(m.get("ttfb_ms")),
        )
    if result.method is Method.RESPONSIVENESS:
        up = m.get("upload_mbps")
        words = {
            "idle": number(m.get("idle_rtt_median_ms")),
            "loaded": number(m.get("loaded_rtt_median_ms")),
            "p90": number(m.get("loaded_rtt_p90_ms")),
            "added": _signed(m.get("loaded_rtt_increase_ms")),
            "grade": m.get("grade") or "-",
            "rpm": number(m.get("rpm"), 0),
            "down": number(m.get("download_mbps"), 1),
            "up": number(up, 1),
            "probe": m.get("latency_probe"),
        }
        if up is None:
            text = _(
                "idle {idle} ms  loaded {loaded} ms (p90 {p90})  {added} ms  grade {grade}  {rpm} RPM  "
                "down {down} Mbit/s ({probe})"
            )
        else:
            text = _(
                "idle {idle} ms  loaded {loaded} ms (p90 {p90})  {added} ms  grade {grade}  {rpm} RPM  "
                "down {down} / up {up} Mbit/s ({probe})"
            )
        return text.format(**words)
    if result.method is Method.IPERF3:
        return _("down {down} Mbit/s  up {up} Mbit/s  retransmits {retransmits}").format(
            down=number(m.get("download_mbps"), 1),
            up=number(m.get("upload_mbps"), 1),
            retransmits=number(m.get("retransmits")),
        )
    return ""


def _signed(value: Any) -> str:
    return f"{value:+.2f}" if isinstance(value, int | float) and not isinstance(value, bool) else "-"


def note(result: ProbeResult) -> str:
    if result.error is not None:
        return _("ERROR {kind}: {message}").format(kind=result.error, message=result.message or "").strip()
    return result.message or ""


class ProgressLine:
    """A progress bar on stderr (rich's), drawn only when stderr is a terminal and gone when finished; it
    counts `what` (default: targets)."""

    def __init__(
        self, out: TextIO = sys.stderr, enabled: bool | None = None, what: str | None = None
    ) -> None:
        self.out = out
        self.enabled = out.isatty() if enabled is None else enabled
        self.what = what
        self._bar: Any = None
        self._task: Any = None

    def __call__(self, progress: Progress) -> None:
        self.count(progress.done, progress.total)

    def count(self, done: int, total: int) -> None:
        if not self.enabled or total == 0:
            return
        if self._bar is None:
            from rich import progress as bars
            from rich.console import Console

            self._bar = bars.Progress(
                bars.BarColumn(),
                bars.MofNCompleteColumn(),
                bars.TextColumn(self.what or _("targets")),
                bars.TimeElapsedColumn(),
                console=Console(file=self.out, highlight=False),
                transient=True,
                auto_refresh=False,  # drawn on each report, no thread of its own
            )
            self._bar.start()
            self._task = self._bar.add_task("", total=total)
        self._bar.update(self._task, completed=done, total=total)
        self._bar.refresh()

    def finish(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None
