"""The report's pictures, drawn with matplotlib (Agg, no pyplot: no window, no global figure state) as PNG bytes
the HTML inlines and the PDF prints. Every figure draws what the analysis computed (`hour_of_day`,
`day_hour_matrix` rows) or what the ranking says (score bounds); none computes a figure of its own.

Text in figures is in the current language; Chinese needs a CJK font, found among the system's (Noto Sans CJK,
Source Han Sans, Microsoft YaHei, PingFang, WenQuanYi) with matplotlib's per-glyph fallback.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from desktop.i18n import _, vantage_name

if TYPE_CHECKING:  # matplotlib loads when a picture is drawn
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

DPI = 130
# Office colours (colour-blind safe: Okabe-Ito), one per office in the evaluation's order.
COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9")
PEAK_SHADE = "#F2D7D5"
_CJK_FONTS = (
    "Noto Sans CJK SC",
    "Noto Sans CJK JP",
    "Source Han Sans SC",
    "Microsoft YaHei",
    "PingFang SC",
    "Heiti SC",
    "WenQuanYi Zen Hei",
)


@dataclass(frozen=True, slots=True)
class Picture:
    png: bytes
    width_px: int
    height_px: int
    alt: str


@cache
def _fonts() -> list[str]:
    from matplotlib import font_manager

    known = {f.name for f in font_manager.fontManager.ttflist}
    return ["DejaVu Sans", *(name for name in _CJK_FONTS if name in known)]


def _figure(width_in: float, height_in: float, rows: int = 1) -> tuple[Figure, list[Axes]]:
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width_in, height_in), dpi=DPI, layout="constrained")
    axes = figure.subplots(rows, 1, sharex=True, squeeze=False)[:, 0].tolist()
    return figure, axes


def _png(figure: Figure, alt: str) -> Picture:
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(figure)
    out = io.BytesIO()
    canvas.print_png(out, metadata={"Software": None})  # type: ignore[no-untyped-call]
    width, height = canvas.get_width_height()
    return Picture(out.getvalue(), width, height, alt)


def _style() -> Any:  # matplotlib's rc parameters (its stubs want each key as a literal)
    return {
        # A list of families (not the generic "sans-serif"): matplotlib then falls back glyph by glyph, so
        # Chinese comes from the CJK font and Latin letters and digits from the first.
        "font.family": _fonts(),
        "font.size": 8,
        "axes.titlesize": 9,
        "axes.spines.top": False,
        "axes.spines.right": False,
        "axes.grid": True,
        "grid.color": "#DDDDDD",
        "grid.linewidth": 0.6,
        "legend.fontsize": 7,
        "legend.frameon": False,
    }


def score_chart(
    labels: Sequence[str], low: Sequence[float], total: Sequence[float], high: Sequence[float]
) -> Picture:
    """Each candidate's score as a bar from its worst case to its best case, its score marked: the ranking's
    `score_min`, `total` and `score_max`."""
    import matplotlib

    with matplotlib.rc_context(_style()):
        height = 0.8 + 0.32 * max(len(labels), 1)
        figure, (axis,) = _figure(6.6, height)
        y = np.arange(len(labels))[::-1]
        spans = np.asarray(high, float) - np.asarray(low, float)
        axis.barh(
            y,
            spans,
            left=low,
            height=0.5,
            color="#BBD3EA",
            edgecolor="#2B5B84",
            linewidth=0.6,
            label=_("from the worst case to the best case of the unknowns"),
        )
        axis.plot(total, y, "D", color="#1B3A57", markersize=5, label=_("score"))
        axis.set_yticks(y, labels)
        axis.set_xlim(0, 1)
        axis.set_xlabel(_("score (0 to 1)"))
        figure.legend(loc="outside upper center", ncols=2)  # above the bars, never over one
        axis.grid(axis="y", visible=False)
        return _png(figure, _("score of each candidate with its bounds"))


def score_bar(low: float, total: float, high: float) -> Picture:
    """One candidate's score bar for a table cell: 0..1, the bounds as a bar, the score as a tick."""
    import matplotlib

    with matplotlib.rc_context(_style()):
        from matplotlib.figure import Figure

        figure = Figure(figsize=(1.3, 0.18), dpi=DPI * 2)
        axis = figure.add_axes((0, 0, 1, 1))
        axis.set_xlim(0, 1)
        axis.set_ylim(0, 1)
        axis.axis("off")
        axis.add_patch(matplotlib.patches.Rectangle((0, 0.25), 1, 0.5, color="#EEEEEE"))
        axis.add_patch(
            matplotlib.patches.Rectangle((low, 0.15), max(high - low, 0.004), 0.7, color="#8FB3D9")
        )
        axis.add_patch(matplotlib.patches.Rectangle((max(total - 0.006, 0), 0), 0.012, 1, color="#1B3A57"))
        return _png(
            figure,
            _("score {total:.2f} (from {low:.2f} to {high:.2f})").format(total=total, low=low, high=high),
        )


def hour_of_day_chart(
    profiles: Sequence[tuple[str, pd.DataFrame]], peak_hours: Sequence[int], tz: str
) -> Picture:
    """RTT median (solid) and p95 (dashed), and loss, per local hour, one colour per office, the peak hours
    shaded: the `hour_of_day` rows as the analysis gives them."""
    import matplotlib

    with matplotlib.rc_context(_style()):
        figure, (rtt, loss) = _figure(6.6, 3.1, rows=2)
        for axis in (rtt, loss):
            for hour in peak_hours:
                axis.axvspan(hour - 0.5, hour + 0.5, color=PEAK_SHADE, linewidth=0, zorder=0)
        for n, (office, frame) in enumerate(profiles):
            colour = COLOURS[n % len(COLOURS)]
            name = vantage_name(office)
            hours = frame["hour"].to_numpy()
            rtt.plot(
                hours,
                frame["rtt_median_ms"].to_numpy(float),
                "-",
                color=colour,
                marker="o",
                markersize=2.5,
                label=_("{office} median").format(office=name),
            )
            rtt.plot(
                hours,
                frame["rtt_p95_ms"].to_numpy(float),
                "--",
                color=colour,
                linewidth=1,
                label=_("{office} p95").format(office=name),
            )
            loss.plot(
                hours,
                frame["loss"].to_numpy(float) * 100,
                "-",
                color=colour,
                marker=".",
                markersize=3,
                label=name,
            )
        rtt.set_ylabel(_("RTT (ms)"))
        rtt.legend(loc="upper left", ncols=4)
        loss.set_ylabel(_("loss (%)"))
        loss.set_ylim(bottom=0)
        loss.set_xlim(-0.5, 23.5)
        loss.set_xticks(range(0, 24, 2))
        loss.set_xlabel(_("hour of the day ({tz}); the peak hours shaded").format(tz=tz))
        return _png(figure, _("RTT and loss by hour of the day, per office"))


def smoke_chart(evenings: Sequence[tuple[str, pd.DataFrame]]) -> Picture:
    """The peak evenings one after another: per office, the band between each peak hour's median and p95
    RTT (the smoke) with the median drawn through it, and the hours with loss marked below (the
    `day_hour_matrix` cells of the peak hours)."""
    import matplotlib

    with matplotlib.rc_context(_style()):
        figure, (axis,) = _figure(6.6, 2.3)
        slots = sorted(
            {(d, h) for _o, frame in evenings for d, h in zip(frame["date"], frame["hour"], strict=True)}
        )
        index = {slot: i for i, slot in enumerate(slots)}
        for n, (office, frame) in enumerate(evenings):
            if frame.empty:
                continue
            colour = COLOURS[n % len(COLOURS)]
            ordered = frame.sort_values(["date", "hour"])
            x = np.array([index[(d, h)] for d, h in zip(ordered["date"], ordered["hour"], strict=True)])
            median = ordered["rtt_median_ms"].to_numpy(float)
            p95 = ordered["rtt_p95_ms"].to_numpy(float)
            axis.fill_between(x, median, p95, color=colour, alpha=0.25, linewidth=0, step="mid")
            axis.plot(
                x, median, "-", color=colour, linewidth=1, drawstyle="steps-mid", label=vantage_name(office)
            )
            lossy = ordered["loss"].to_numpy(float) > 0
            if lossy.any():
                axis.plot(x[lossy], median[lossy], "v", color=colour, markersize=3)
        dates = sorted({d for d, _h in slots})
        step = max(1, len(dates) // 10)
        ticks = [index[next(s for s in slots if s[0] == d)] for d in dates[::step]]
        axis.set_xticks(ticks, [f"{d:%m-%d}" for d in dates[::step]])
        axis.set_ylabel(_("RTT (ms)"))
        axis.set_xlabel(
            _("peak evenings, hour by hour: the median line in its band up to p95; ▼ hours with loss")
        )
        axis.legend(loc="upper left", ncols=4)
        return _png(figure, _("the peak evenings: RTT median and p95 per peak hour"))
