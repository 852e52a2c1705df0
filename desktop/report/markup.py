"""The pieces the report's HTML is written with: every text escaped (`esc`), tables, inline pictures,
headings, notes, the evidence states in colour and words, figures in their units with a dash for unknown,
UTC times, offices with their carriers. No Qt; what a browser and Qt's HTML subset both lay out."""

from __future__ import annotations

import base64
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from html import escape

from catalogs.link_quality import LinkSummary, PeriodStats
from desktop.i18n import N_, _, vantage_name
from desktop.report import charts
from desktop.report.model import OfficeLine

DASH = "–"
STATE_WORDS = {
    "missing": N_("missing"),
    "partial": N_("partial"),
    "done": N_("done"),
    "contradicted": N_("contradicted"),
}
STATE_COLOURS = {"missing": "#B03A2E", "partial": "#9A7D0A", "done": "#1E8449", "contradicted": "#B03A2E"}
CARRIERS = {"ct": N_("China Telecom"), "cu": N_("China Unicom"), "cm": N_("China Mobile")}
PAGE_WIDTH_PX = 680  # A4 less 15 mm margins, at 96 px an inch


def esc(value: object) -> str:
    return escape(str(value), quote=True)


def img(picture: charts.Picture, width_px: int | None = None) -> str:
    width = width_px or min(PAGE_WIDTH_PX, round(picture.width_px * 96 / charts.DPI))
    height = round(picture.height_px * width / picture.width_px)
    data = base64.b64encode(picture.png).decode("ascii")
    return (
        f'<img src="data:image/png;base64,{data}" width="{width}" height="{height}" alt="{esc(picture.alt)}">'
    )


def table(
    headers: Sequence[str],
    rows: Iterable[Sequence[str]],
    numeric: Sequence[int] = (),
    widths: Sequence[int] | None = None,
) -> str:
    """A table: `headers` plain text (escaped here), the cells HTML already (escape text with `esc`);
    `widths` in percent of the page, per column."""
    head = "".join(
        f'<th width="{widths[i]}%">{esc(h)}</th>' if widths else f"<th>{esc(h)}</th>"
        for i, h in enumerate(headers)
    )
    body = "".join(
        "<tr>"
        + "".join(f'<td class="num">{c}</td>' if i in numeric else f"<td>{c}</td>" for i, c in enumerate(row))
        + "</tr>"
        for row in rows
    )
    return (
        f'<table class="grid" width="100%" border="1" cellspacing="0" cellpadding="3">'
        f"<tr>{head}</tr>{body}</table>"
    )


def ms(value: float | None) -> str:
    return DASH if value is None else _("{value:.0f} ms").format(value=value)


def pct(value: float | None, decimals: int = 1) -> str:
    return DASH if value is None else f"{value * 100:.{decimals}f} %"


def mbps(value: float | None) -> str:
    return DASH if value is None else _("{value:.1f} Mbit/s").format(value=value)


def state(state: str, text: str) -> str:
    colour = STATE_COLOURS.get(state, "#1C2833")
    word = _(STATE_WORDS[state]) if state in STATE_WORDS else state
    return f'<span style="color: {colour}"><b>{esc(word)}</b></span> {esc(text)}'


def utc(us: int | None) -> str:
    if us is None:
        return DASH
    return datetime.fromtimestamp(us / 1e6, tz=UTC).strftime("%Y-%m-%d %H:%M UTC")


def day(us: int | None) -> str:
    if us is None:
        return DASH
    return datetime.fromtimestamp(us / 1e6, tz=UTC).strftime("%Y-%m-%d")


def office(line: OfficeLine) -> str:
    return office_name(line.office, line.carrier)


def office_name(office: str, carrier: str | None) -> str:
    """An office as people read it, with its carrier where known: "shanghai (China Telecom)"."""
    name = vantage_name(office)
    if carrier:
        return _("{office} ({carrier})").format(office=name, carrier=_(CARRIERS.get(carrier, carrier)))
    return name


def h2(text: str, *, page_break: bool = False) -> str:
    return f'<h2 class="break">{esc(text)}</h2>' if page_break else f"<h2>{esc(text)}</h2>"


def h3(text: str) -> str:
    return f"<h3>{esc(text)}</h3>"


def note(text: str) -> str:
    return f'<p class="note">{esc(text)}</p>'


def missing(text: str, command: str | None) -> str:
    """An empty part: what is missing and the command that fills it."""
    out = f'<p class="missing">{esc(text)}'
    if command:
        out += " " + _("Fill it with: {command}").format(command=f"<code>{esc(command)}</code>")
    return out + "</p>"


def side(summary: LinkSummary | None, which: str) -> PeriodStats:
    if summary is None:
        return PeriodStats()
    found = summary.peak if which == "peak" else summary.offpeak
    return found or PeriodStats()
