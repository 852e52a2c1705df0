"""The report as one self-contained HTML document: the pictures inlined as PNG data, the styles inline, no
script, nothing fetched (it opens offline and prints on A4). The PDF is this same document printed by Qt's
rich-text engine, so the markup keeps to what both a browser and Qt's HTML subset lay out alike (tables with
attributes, headings, paragraphs, inline images with their size, simple class selectors); a browser gets
the finer print styles (@page, page breaks) on top. Every text from the store, the catalogs and vendors is
escaped.

    page 1      the decision: the recommendation and whether its place is decided (else what decides it and
                the questions to ask), the candidates' table, the winner-flip band, the evidence's period and
                amount, the scores with their bounds
    per candidate  the line by hour of day per office (peak shaded), the peak evenings (smoke), under load and
                throughput, the route out and back with carriers, acceptance, the vendor's answers
    then        the time to move the data; the method (definitions, backends and times, scoring, commands)
"""

from __future__ import annotations

import base64
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from html import escape
from typing import Any

from catalogs.link_quality import LinkSummary, PeriodStats
from catalogs.scoring import RankedOffering, Ranking, method_title, order_title
from desktop.i18n import N_, _, ngettext, vantage_name
from desktop.report import charts
from desktop.report.decision import decide, winner_of
from desktop.report.model import REPORT_FORMAT_VERSION, CandidateReport, OfficeLine, ReportData
from desktop.usecases.evaluation_score import OfficeRanking

DASH = "–"
STATE_WORDS = {
    "missing": N_("missing"),
    "partial": N_("partial"),
    "done": N_("done"),
    "contradicted": N_("contradicted"),
}
STATE_COLOURS = {"missing": "#B03A2E", "partial": "#9A7D0A", "done": "#1E8449", "contradicted": "#B03A2E"}
CARRIERS = {"ct": N_("China Telecom"), "cu": N_("China Unicom"), "cm": N_("China Mobile")}
MB_PER_TB = 1e6
PAGE_WIDTH_PX = 680  # A4 less 15 mm margins, at 96 px an inch

STYLE = """
body { font-family: "DejaVu Sans", "Segoe UI", "Helvetica Neue", Arial, "Noto Sans CJK SC", "Source Han Sans SC",
  "Microsoft YaHei", "PingFang SC", sans-serif; font-size: 10pt; color: #1C2833; max-width: 190mm; margin: 0 auto; }
h1 { font-size: 17pt; color: #1B3A57; margin-bottom: 2pt; }
h2 { font-size: 13pt; color: #1B3A57; margin-top: 14pt; border-bottom: 1px solid #AAB7B8; }
h3 { font-size: 11pt; color: #1B3A57; margin-top: 10pt; }
p, li { line-height: 135%; }
.sub { color: #566573; font-size: 9pt; }
.decision { background-color: #EBF5FB; border: 1px solid #AED6F1; padding: 6pt; }
.verdict { font-size: 12pt; font-weight: bold; }
.missing { color: #B03A2E; }
.note { color: #566573; font-size: 8.5pt; }
table.grid { border-collapse: collapse; width: 100%; margin: 4pt 0; }
table.grid th { background-color: #D6EAF8; text-align: left; font-size: 8.5pt; }
table.grid td { font-size: 8.5pt; vertical-align: top; }
table.grid th, table.grid td { border: 1px solid #AAB7B8; padding: 2pt 3pt; }
td.num { text-align: right; white-space: nowrap; }
code { font-family: "DejaVu Sans Mono", "Noto Sans Mono CJK SC", monospace; font-size: 8pt; }
img { max-width: 100%; }
.break { page-break-before: always; }
@page { size: A4; margin: 15mm; }
@media print { body { max-width: none; } h2, h3 { page-break-after: avoid; } tr, img { page-break-inside: avoid; } }
"""


def esc(value: object) -> str:
    return escape(str(value), quote=True)


def _img(picture: charts.Picture, width_px: int | None = None) -> str:
    width = width_px or min(PAGE_WIDTH_PX, round(picture.width_px * 96 / charts.DPI))
    height = round(picture.height_px * width / picture.width_px)
    data = base64.b64encode(picture.png).decode("ascii")
    return (
        f'<img src="data:image/png;base64,{data}" width="{width}" height="{height}" alt="{esc(picture.alt)}">'
    )


def _table(
    headers: Sequence[str],
    rows: Iterable[Sequence[str]],
    numeric: Sequence[int] = (),
    widths: Sequence[int] | None = None,
) -> str:
    """A table; cells are HTML already (escape text with `esc`); `widths` in percent of the page, per column."""
    head = "".join(
        f'<th width="{widths[i]}%">{h}</th>' if widths else f"<th>{h}</th>" for i, h in enumerate(headers)
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


def _ms(value: float | None) -> str:
    return DASH if value is None else _("{value:.0f} ms").format(value=value)


def _pct(value: float | None, decimals: int = 1) -> str:
    return DASH if value is None else f"{value * 100:.{decimals}f} %"


def _mbps(value: float | None) -> str:
    return DASH if value is None else _("{value:.1f} Mbit/s").format(value=value)


def _state(state: str, text: str) -> str:
    colour = STATE_COLOURS.get(state, "#1C2833")
    word = _(STATE_WORDS[state]) if state in STATE_WORDS else state
    return f'<span style="color: {colour}"><b>{esc(word)}</b></span> {esc(text)}'


def _utc(us: int | None) -> str:
    if us is None:
        return DASH
    return datetime.fromtimestamp(us / 1e6, tz=UTC).strftime("%Y-%m-%d %H:%M UTC")


def _day(us: int | None) -> str:
    if us is None:
        return DASH
    return datetime.fromtimestamp(us / 1e6, tz=UTC).strftime("%Y-%m-%d")


def _office(line: OfficeLine) -> str:
    return office_name(line.office, line.carrier)


def office_name(office: str, carrier: str | None) -> str:
    """An office as people read it, with its carrier where known: "shanghai (China Telecom)"."""
    name = vantage_name(office)
    if carrier:
        return _("{office} ({carrier})").format(office=name, carrier=_(CARRIERS.get(carrier, carrier)))
    return name


def _h2(text: str, *, page_break: bool = False) -> str:
    return f'<h2 class="break">{esc(text)}</h2>' if page_break else f"<h2>{esc(text)}</h2>"


def _h3(text: str) -> str:
    return f"<h3>{esc(text)}</h3>"


def _note(text: str) -> str:
    return f'<p class="note">{esc(text)}</p>'


def _missing(text: str, command: str | None) -> str:
    """An empty part: what is missing and the command that fills it."""
    out = f'<p class="missing">{esc(text)}'
    if command:
        out += " " + _("Fill it with: {command}").format(command=f"<code>{esc(command)}</code>")
    return out + "</p>"


# -- the document --------------------------------------------------------------------------------------------


def render_html(data: ReportData) -> str:
    """The whole report as one HTML document in the current language (the PDF prints the same document)."""
    e = data.evaluation
    title = _("Decision report: {evaluation}").format(evaluation=e.name)
    parts = [
        "<!DOCTYPE html>",
        f'<html lang="{"zh-CN" if data.language.startswith("zh") else "en"}"><head><meta charset="utf-8">',
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; img-src data:; '
        "style-src 'unsafe-inline'\">",
        f"<title>{esc(title)}</title><style>{STYLE}</style></head><body>",
        f"<h1>{esc(title)}</h1>",
        f'<p class="sub">{esc(_header_line(data))}</p>',
    ]
    parts += _decision(data)
    parts += _candidate_table(data)
    parts += _flip_band(data)
    parts += _evidence_amount(data)
    for number, candidate in enumerate(data.candidates, start=1):
        parts += _candidate_section(data, candidate, number)
    parts += _transfer(data)
    parts += _method(data)
    parts.append("</body></html>")
    return "\n".join(parts)


def _header_line(data: ReportData) -> str:
    e = data.evaluation
    offices = ", ".join(office_name(o.name, o.carrier) for o in e.offices) or vantage_name(None)
    return _(
        "Job: {needs}. Offices: {offices}. Peak: {windows}. Made {made} from {store}; linkvet report format {version}."
    ).format(
        needs=e.needs.name,
        offices=offices,
        windows=", ".join(str(w) for w in e.peak_windows),
        made=data.made_at.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        store=data.store,
        version=REPORT_FORMAT_VERSION,
    )


def _winner(ranking: Ranking) -> RankedOffering | None:
    return winner_of(ranking)


def _decision(data: ReportData) -> list[str]:
    out = [_h2(_("The decision"))]
    if not data.evaluation.candidates:
        out.append(
            _missing(
                _("This evaluation has no candidate yet."),
                f"linkvet eval add {data.evaluation.name} --provider ID --region ID --test-ip ADDRESS",
            )
        )
        return out
    for office_ranking in data.ranking.rankings:
        out.append('<div class="decision">')
        if len(data.ranking.rankings) > 1:
            out.append(_h3(_("On the line from {office}").format(office=vantage_name(office_ranking.office))))
        out += _recommendation(office_ranking)
        out.append("</div>")
    if not data.measured:
        out.append(
            _missing(
                _(
                    "Nothing has been measured for this evaluation yet: the line counts as unknown in every score."
                ),
                f"linkvet schedule --eval {data.evaluation.name}"
                + (f" --vantage {data.evaluation.offices[0].name}" if data.evaluation.offices else ""),
            )
        )
    return out


def _recommendation(office_ranking: OfficeRanking) -> list[str]:
    decision = decide(office_ranking.ranking)
    out = [f'<p class="verdict">{esc(decision.headline)}</p>']
    bold = decision.decided is False
    out.append(f"<p>{'<b>' if bold else ''}{esc(decision.standing)}{'</b>' if bold else ''}</p>")
    if decision.questions:
        out.append("<p>" + esc(_("What decides it, and the questions to ask:")) + "</p>")
        out.append("<ul>" + "".join(f"<li>{esc(q)}</li>" for q in decision.questions) + "</ul>")
    return out


def _price(entry: RankedOffering | None) -> tuple[str, str]:
    if entry is None or entry.price_gpu_hour is None:
        return DASH, DASH
    currency = entry.currency or ""
    hour = f"{entry.price_gpu_hour:,.2f} {currency}".strip()
    if entry.price_is_lower_bound:
        hour = _("from {price}").format(price=hour)
    if not entry.planned_gpus:
        return hour, DASH
    from catalogs.prices import cost_per_month

    month = cost_per_month(entry.price_gpu_hour, entry.planned_gpus)
    return hour, _("{amount} for {gpus} GPUs").format(
        amount=f"{month:,.0f} {currency}".strip(), gpus=entry.planned_gpus
    )


def _peak_line(line: OfficeLine) -> str:
    summary = line.summary
    peak = summary.peak if summary is not None else None
    if peak is None or not peak.samples:
        offpeak = summary.offpeak if summary is not None else None
        if offpeak is not None and offpeak.samples:
            return esc(_("no peak evening yet (off-peak p95 {p95})").format(p95=_ms(offpeak.rtt_p95_ms)))
        return '<span class="missing">' + esc(_("not measured")) + "</span>"
    offpeak = summary.offpeak if summary is not None else None
    change = ""
    if offpeak is not None and offpeak.rtt_p95_ms is not None and peak.rtt_p95_ms is not None:
        change = _(" ({change:+.0f} ms on off-peak)").format(change=peak.rtt_p95_ms - offpeak.rtt_p95_ms)
    text = ngettext(
        "p95 {p95}{change}, loss {loss}, {evenings} evening",
        "p95 {p95}{change}, loss {loss}, {evenings} evenings",
        peak.evenings or 0,
    ).format(p95=_ms(peak.rtt_p95_ms), change=change, loss=_pct(peak.loss), evenings=peak.evenings or 0)
    return esc(text)


def _candidate_table(data: ReportData) -> list[str]:
    if not data.candidates:
        return []
    offices = [line for line in data.candidates[0].lines]
    headers = [
        esc(_("#")),
        esc(_("Candidate")),
        esc(_("Score (bounds)")),
        esc(_("Price per GPU-hour; per month")),
        *(esc(_("Peak evenings from {office}").format(office=_office(line))) for line in offices),
        esc(_("Route out / back")),
        esc(_("Acceptance")),
    ]
    share = max(30 // max(len(offices), 1), 10)
    widths = [3, 15, 16, 12, *([share] * len(offices)), 13, 11]
    rows = []
    for c in sorted(data.candidates, key=lambda c: c.entry.rank if c.entry is not None else 10**9):
        entry = c.entry
        if entry is not None:
            bar = charts.score_bar(entry.score_min, entry.total, entry.score_max)
            score = (
                _img(bar, 110)
                + "<br>"
                + esc(f"{entry.total:.2f} ({entry.score_min:.2f}–{entry.score_max:.2f})")
            )
        else:
            score = esc(_("not ranked (no offering in the catalogs)"))
        hour, month = _price(entry)
        route_out = c.evidence.cells["route_out"]
        route_back = c.evidence.cells["route_back"]
        acceptance = c.evidence.cells["acceptance"]
        rows.append(
            [
                esc(entry.rank if entry is not None else DASH),
                _label_lines(c),
                score,
                esc(hour) + "<br>" + esc(month),
                *(_peak_line(line) for line in c.lines),
                _state(route_out.state, _route_word(c, route_out.offices))
                + "<br>"
                + _state(route_back.state, _("back")),
                _state(acceptance.state, ""),
            ]
        )
    return [
        _h3(_("The candidates")),
        _table(headers, rows, numeric=(0,), widths=widths),
        f'<p class="note">{esc(_candidate_table_note())}</p>',
    ]


def _label_lines(c: CandidateReport) -> str:
    """The candidate's provider, region and offering on lines of their own (ids a table cannot break)."""
    parts = [f"<b>{esc(c.candidate.provider)}</b>", esc(c.candidate.region)]
    if c.candidate.offering:
        parts.append(esc(c.candidate.offering))
    if c.entry is not None and c.entry.provider_name != c.candidate.provider:
        parts.append(f'<span class="note">{esc(c.entry.provider_name)}</span>')
    return "<br>".join(parts)


def _candidate_table_note() -> str:
    return _(
        "Score: the bar runs from the worst case (every unknown at 0) to the best case (every unknown at 1), the "
        "tick is the score; known: the share of the checklist's weight that is known. Peak evenings: p95 RTT "
        "and loss inside the peak windows, and the change on off-peak."
    )


def _route_word(c: CandidateReport, offices: Mapping[str, Any]) -> str:
    measured = sorted(
        {str(cell.figures.get("measured")) for cell in offices.values() if cell.figures.get("measured")}
    )
    if not measured:
        if c.claimed_line is None:
            return _("nothing claimed, not traced")
        return _("claimed {claimed}").format(claimed=c.claimed_line)
    claimed = c.claimed_line or _("nothing claimed")
    return _("claimed {claimed}, measured {measured}").format(claimed=claimed, measured=", ".join(measured))


def _flip_band(data: ReportData) -> list[str]:
    out = [_h3(_("Does the winner flip?"))]
    for office_ranking in data.ranking.rankings:
        sensitivity = office_ranking.ranking.sensitivity
        if sensitivity.top is None:
            continue
        prefix = ""
        if len(data.ranking.rankings) > 1:
            prefix = vantage_name(office_ranking.office) + ": "
        if sensitivity.stable:
            text = _("No: {top} stays first when any single weight moves ±20 %.").format(top=sensitivity.top)
        else:
            text = _("Yes: the first place changes when a single weight moves ±20 %.")
        unknowns = sensitivity.describe_unknowns()
        out.append(f"<p>{esc(prefix + text)} {esc(unknowns[:1].upper() + unknowns[1:])}.</p>")
        if sensitivity.changes:
            rows = [
                [esc(sensitivity.title(change.criterion)), esc(f"×{change.factor:g}"), esc(change.new_top)]
                for change in sensitivity.changes
            ]
            out.append(_table([esc(_("Weight")), esc(_("Moved")), esc(_("First place then"))], rows))
    return out


def _evidence_amount(data: ReportData) -> list[str]:
    out = [_h3(_("The evidence: period and amount"))]
    if data.since_us is not None or data.until_us is not None:
        out.append(
            "<p>"
            + esc(
                _("Period asked for: {since} to {until}.").format(
                    since=_utc(data.since_us), until=_utc(data.until_us)
                )
            )
            + "</p>"
        )
    rows = []
    for c in data.candidates:
        for line in c.lines:
            s = line.summary
            peak = s.peak if s is not None else None
            offpeak = s.offpeak if s is not None else None
            rows.append(
                [
                    _label_lines(c),
                    esc(_office(line)),
                    esc(_day(_period_us(s, "start"))) + " – " + esc(_day(_period_us(s, "end"))),
                    esc((peak.evenings or 0) if peak else 0),
                    esc((peak.samples or 0) if peak else 0),
                    esc((offpeak.samples or 0) if offpeak else 0),
                ]
            )
    if rows:
        out.append(
            _table(
                [
                    esc(_("Candidate")),
                    esc(_("Office")),
                    esc(_("Measured from – to")),
                    esc(_("Peak evenings")),
                    esc(_("Samples at peak")),
                    esc(_("Samples off-peak")),
                ],
                rows,
                numeric=(3, 4, 5),
                widths=[30, 22, 21, 9, 9, 9],
            )
        )
    ranked = [c for c in data.candidates if c.entry is not None]
    if ranked:
        picture = charts.score_chart(
            [c.candidate.label for c in ranked],
            [c.entry.score_min for c in ranked if c.entry],
            [c.entry.total for c in ranked if c.entry],
            [c.entry.score_max for c in ranked if c.entry],
        )
        out.append(f"<p>{_img(picture)}</p>")
    return out


def _period_us(summary: LinkSummary | None, which: str) -> int | None:
    if summary is None:
        return None
    moment = summary.period_start if which == "start" else summary.period_end
    return None if moment is None else int(moment.timestamp() * 1e6)


# -- one candidate --------------------------------------------------------------------------------------------


def _candidate_section(data: ReportData, c: CandidateReport, number: int) -> list[str]:
    e = c.entry
    out = [
        _h2(_("{number}. {candidate}").format(number=number, candidate=c.candidate.label), page_break=True)
    ]
    facts = []
    if e is not None:
        facts.append(
            _("{provider}, {offering}: {gpus} × {gpu}").format(
                provider=e.provider_name,
                offering=e.offering_name or e.offering,
                gpus=e.gpus_per_node or "?",
                gpu=e.gpu or "?",
            )
        )
        facts.append(
            _("rank {rank}, score {total:.2f} (from {low:.2f} to {high:.2f}), {known:.0f} % known").format(
                rank=e.rank, total=e.total, low=e.score_min, high=e.score_max, known=e.coverage * 100
            )
        )
    facts.append(_("line sold: {line}").format(line=c.claimed_line or _("not stated")))
    endpoints = ", ".join(c.candidate.endpoints) or _("the catalog region's")
    facts.append(_("test endpoints: {endpoints}").format(endpoints=endpoints))
    out.append("<p>" + esc("; ".join(facts)) + ".</p>")
    if e is not None:
        out.append(f'<p class="note">{esc(e.explanation)}</p>')
    out += _line_part(data, c)
    out += _load_part(c)
    out += _route_part(c)
    out += _acceptance_part(c)
    out += _answers_part(c)
    return out


def _line_part(data: ReportData, c: CandidateReport) -> list[str]:
    out = [_h3(_("The line by hour of day"))]
    measured = [
        (line.office, line.profile)
        for line in c.lines
        if not line.profile.empty and line.profile["sent"].sum() > 0
    ]
    cell = c.evidence.cells["line"]
    if not measured:
        out.append(_missing(_("No RTT measured to this candidate yet."), cell.next))
        return out
    out.append(f"<p>{_img(charts.hour_of_day_chart(measured, data.peak_hours, data.tz))}</p>")
    rows = []
    for line in c.lines:
        s = line.summary
        off, peak = _side(s, "offpeak"), _side(s, "peak")
        rows.append(
            [
                esc(_office(line)),
                esc(_ms(off.rtt_median_ms)),
                esc(_ms(off.rtt_p95_ms)),
                esc(_pct(off.loss, 2)),
                esc(_ms(peak.rtt_median_ms)),
                esc(_ms(peak.rtt_p95_ms)),
                esc(_pct(peak.loss, 2)),
                esc(_ms(peak.jitter_ms)),
                _state(cell.offices[line.office].state, cell.offices[line.office].text)
                if line.office in cell.offices
                else DASH,
            ]
        )
    out.append(
        _table(
            [
                esc(_("Office")),
                esc(_("Off-peak median")),
                esc(_("Off-peak p95")),
                esc(_("Off-peak loss")),
                esc(_("Peak median")),
                esc(_("Peak p95")),
                esc(_("Peak loss")),
                esc(_("Peak jitter")),
                esc(_("Evidence")),
            ],
            rows,
            numeric=(1, 2, 3, 4, 5, 6, 7),
            widths=[15, 8, 8, 8, 8, 8, 8, 8, 29],
        )
    )
    evenings = [(line.office, line.evenings) for line in c.lines if not line.evenings.empty]
    out.append(_h3(_("The peak evenings")))
    if evenings:
        out.append(f"<p>{_img(charts.smoke_chart(evenings))}</p>")
    else:
        out.append(_missing(_("No peak evening measured yet."), cell.next))
    return out


def _side(summary: LinkSummary | None, which: str) -> PeriodStats:
    if summary is None:
        return PeriodStats()
    found = summary.peak if which == "peak" else summary.offpeak
    return found or PeriodStats()


def _load_part(c: CandidateReport) -> list[str]:
    out = [_h3(_("Under load and throughput"))]
    load, throughput = c.evidence.cells["load"], c.evidence.cells["throughput"]
    if load.state == "missing" and throughput.state == "missing":
        out.append(
            _missing(
                _("No latency under load and no throughput measured yet: {why}").format(why=load.text),
                load.next or throughput.next,
            )
        )
        return out
    rows = []
    for line in c.lines:
        off, peak = _side(line.summary, "offpeak"), _side(line.summary, "peak")
        rows.append(
            [
                esc(_office(line)),
                esc(_ms(off.loaded_rtt_increase_ms)),
                esc(_ms(peak.loaded_rtt_increase_ms)),
                esc(DASH if peak.rpm is None else f"{peak.rpm:.0f}"),
                esc(_mbps(off.throughput_mbps)),
                esc(_mbps(peak.throughput_mbps)),
                esc(throughput.offices[line.office].text if line.office in throughput.offices else DASH),
            ]
        )
    out.append(
        _table(
            [
                esc(_("Office")),
                esc(_("Added under load, off-peak")),
                esc(_("Added under load, peak")),
                esc(_("RPM at peak")),
                esc(_("Throughput off-peak")),
                esc(_("Throughput at peak")),
                esc(_("Evidence")),
            ],
            rows,
            numeric=(1, 2, 3, 4, 5),
            widths=[15, 12, 12, 9, 12, 12, 28],
        )
    )
    return out


def _route_part(c: CandidateReport) -> list[str]:
    out = [_h3(_("The route"))]
    route_out, route_back = c.evidence.cells["route_out"], c.evidence.cells["route_back"]
    for line in c.lines:
        cell = route_out.offices.get(line.office)
        heading = _("Outbound from {office}").format(office=_office(line))
        if line.route is None:
            out.append(f"<p><b>{esc(heading)}</b></p>")
            out.append(_missing(_("No trace yet."), cell.next if cell is not None else None))
            continue
        out.append(
            f"<p><b>{esc(heading)}</b>: "
            + (_state(cell.state, cell.text) if cell is not None else "")
            + " "
            + esc(
                _("(last trace {when} to {target})").format(
                    when=_utc(line.route.traced_at_us), target=line.route.target
                )
            )
            + "</p>"
        )
        rows = [
            [
                esc(hop.ttl),
                esc(", ".join(hop.addresses) or "*"),
                esc("; ".join(n for n in hop.networks if n) or DASH),
            ]
            for hop in line.route.hops
        ]
        out.append(
            _table([esc(_("Hop")), esc(_("Address")), esc(_("Network (carrier, AS)"))], rows, numeric=(0,))
        )
    out.append(
        "<p><b>"
        + esc(_("Return route (from the trial server)"))
        + f"</b>: {_state(route_back.state, route_back.text)}</p>"
    )
    if route_back.state == "missing" and route_back.next:
        out.append(_missing(_("The return route is not traced yet."), route_back.next))
    return out


def _acceptance_part(c: CandidateReport) -> list[str]:
    out = [_h3(_("Acceptance: claimed and measured"))]
    cell = c.evidence.cells["acceptance"]
    if not c.acceptance:
        out.append(_missing(_("No acceptance report imported."), cell.next))
        return out
    rows = [
        [
            esc(check.get("fact", "")),
            esc(check.get("claimed", DASH)),
            esc(check.get("measured", DASH)),
            _state(
                "done"
                if check.get("verdict") == "confirmed"
                else ("contradicted" if check.get("verdict") == "contradicted" else "partial"),
                str(check.get("verdict", "")),
            ),
            esc(check.get("host", "")),
        ]
        for check in c.acceptance
    ]
    out.append(
        _table(
            [esc(_("Fact")), esc(_("Claimed")), esc(_("Measured")), esc(_("Verdict")), esc(_("Server"))], rows
        )
    )
    return out


def _answers_part(c: CandidateReport) -> list[str]:
    out = [_h3(_("The vendor’s answers"))]
    if not c.answers:
        out.append(_missing(_("No questionnaire answers imported."), c.evidence.cells["questionnaire"].next))
        return out
    rows = [
        [esc(f.key), esc(f.value), esc(f.source + (f" ({f.as_of})" if f.as_of else ""))]
        for f in c.answers[:40]
    ]
    out.append(_table([esc(_("Fact")), esc(_("Answer")), esc(_("Source"))], rows))
    if len(c.answers) > 40:
        out.append(
            _note(
                _("… and {count} more (the evidence bundle has them all)").format(count=len(c.answers) - 40)
            )
        )
    return out


# -- moving the data ------------------------------------------------------------------------------------------


def hours_per_tb(rate_mbps: float | None) -> float | None:
    """Hours to move 1 TB (10^12 bytes) at `rate_mbps`."""
    if rate_mbps is None or rate_mbps <= 0:
        return None
    return MB_PER_TB * 8 / rate_mbps / 3600


def _hours(value: float | None) -> str:
    if value is None:
        return DASH
    if value >= 48:
        return _("{days:.1f} days").format(days=value / 24)
    return _("{hours:.1f} h").format(hours=value)


def _transfer(data: ReportData) -> list[str]:
    sizes = data.sizes
    out = [_h2(_("Time to move the data"), page_break=True)]
    out.append(
        "<p>"
        + esc(
            _(
                "Checkpoint saving and data loading are the line's first jobs. A checkpoint of this job is "
                "{checkpoint} (weights and optimizer states), the weights alone {weights}; the dataset {dataset}."
            ).format(
                checkpoint=_gb(sizes.checkpoint_gb),
                weights=_gb(sizes.weights_gb),
                dataset=_gb(sizes.dataset_gb) if sizes.dataset_gb else _("is not given in the needs"),
            )
        )
        + "</p>"
    )
    rows = []
    for c in data.candidates:
        for line in c.lines:
            off, peak = _side(line.summary, "offpeak"), _side(line.summary, "peak")
            per_tb_off, per_tb_peak = hours_per_tb(off.throughput_mbps), hours_per_tb(peak.throughput_mbps)
            rows.append(
                [
                    _label_lines(c),
                    esc(_office(line)),
                    esc(_hours(per_tb_off)),
                    esc(_hours(per_tb_peak)),
                    esc(_hours(_times(per_tb_peak or per_tb_off, sizes.checkpoint_gb))),
                    esc(_hours(_times(per_tb_peak or per_tb_off, sizes.dataset_gb))),
                ]
            )
    if all(row[2] == DASH and row[3] == DASH for row in rows):
        first = next((c.evidence.cells["throughput"] for c in data.candidates), None)
        out.append(
            _missing(_("No throughput measured yet, so no transfer time."), first.next if first else None)
        )
    out.append(
        _table(
            [
                esc(_("Candidate")),
                esc(_("Office")),
                esc(_("Per TB off-peak")),
                esc(_("Per TB at peak")),
                esc(_("A checkpoint")),
                esc(_("The dataset")),
            ],
            rows,
            numeric=(2, 3, 4, 5),
            widths=[28, 20, 13, 13, 13, 13],
        )
    )
    if not sizes.dataset_gb:
        out.append(
            _note(
                _(
                    "Give the dataset size as dataset_gb under [location] in the needs to see its transfer time."
                )
            )
        )
    out.append(
        _note(
            _(
                "Times at the measured median download rate; a checkpoint and the dataset at the peak rate where "
                "one was measured."
            )
        )
    )
    return out


def _gb(value: float | None) -> str:
    if value is None:
        return DASH
    if value >= 1000:
        return _("{tb:.1f} TB").format(tb=value / 1000)
    return _("{gb:.0f} GB").format(gb=value)


def _times(per_tb_hours: float | None, gb: float | None) -> float | None:
    if per_tb_hours is None or gb is None:
        return None
    return per_tb_hours * gb / 1000


# -- the method -----------------------------------------------------------------------------------------------


def _method(data: ReportData) -> list[str]:
    out = [_h2(_("Method"), page_break=True), _h3(_("Definitions")), "<ul>"]
    definitions = [
        _(
            "RTT: the round-trip time of ICMP echoes (TCP connects where ICMP is refused); median and p95 over every reply in the period."
        ),
        _(
            "Loss: the share of attempts without a reply. Jitter: the mean difference between consecutive RTTs."
        ),
        _(
            "Peak: the evaluation's peak windows ({windows}); a peak evening is one occurrence of a window with measurements."
        ).format(windows=", ".join(str(w) for w in data.evaluation.peak_windows)),
        _(
            "Under load: the RTT added while a download fills the line (responsiveness tests); throughput: the median download rate."
        ),
        _(
            "Route verdicts: each trace's hops matched against the bundled network table; the claim holds when the traces show the line type sold."
        ),
    ]
    out += [f"<li>{esc(d)}</li>" for d in definitions]
    out.append("</ul>")
    out.append(_h3(_("Probe backends and times")))
    backends = ", ".join(f"{label}: {count}" for label, count in data.backends) or DASH
    out.append(
        "<p>"
        + esc(
            _(
                "Results per probe backend: {backends}. Times are UTC; the hour-of-day charts in {tz}. Report made {made}."
            ).format(
                backends=backends,
                tz=data.tz,
                made=data.made_at.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC"),
            )
        )
        + "</p>"
    )
    out.append(_h3(_("Scores and bounds")))
    for office_ranking in data.ranking.rankings[:1]:
        ranking = office_ranking.ranking
        out.append(
            "<p>"
            + esc(
                _(
                    "Method: {method}; ordered by {order}. Each criterion is scored on a fixed scale (0 to 1), gates "
                    "first. The score counts unknown criteria at the checklist's unknown score; the bounds count them "
                    "at 0 (worst case) and 1 (best case). A place is decided when its worst case is above the best case "
                    "of every candidate below it and no single weight moved ±20 % reverses it."
                ).format(method=method_title(ranking.method), order=order_title(ranking.ordered_by))
            )
            + "</p>"
        )
        total = sum(ranking.weights.values()) or 1.0
        winner = _winner(ranking) or (ranking.entries[0] if ranking.entries else None)
        rows = [
            [
                esc(winner.title(criterion) if winner else criterion),
                esc(f"{weight:g}"),
                esc(f"{weight / total:.1%}"),
            ]
            for criterion, weight in ranking.weights.items()
            if weight
        ]
        out.append(_table([esc(_("Criterion")), esc(_("Weight")), esc(_("Share"))], rows, numeric=(1, 2)))
    out.append(_h3(_("Commands that reproduce every figure")))
    out.append(
        _table(
            [esc(_("Figure")), esc(_("Command"))],
            [[esc(what), f"<code>{esc(command)}</code>"] for what, command in data.commands],
        )
    )
    return out


def plain_summary(data: ReportData) -> str:
    """A few lines of Markdown for a chat message: the recommendation and whether it is decided."""
    title = _("Decision report: {evaluation}").format(evaluation=data.evaluation.name)
    lines = [f"**{title}**"]
    for office_ranking in data.ranking.rankings:
        winner = _winner(office_ranking.ranking)
        if winner is None:
            lines.append(_("No candidate passes every gate."))
            continue
        state = (
            _("decided")
            if winner.decided is True
            else _("not decided yet")
            if winner.decided is False
            else _("the only one passing every gate")
        )
        lines.append(
            _("Recommended: {candidate}, score {total:.2f} ({low:.2f}–{high:.2f}), {state}").format(
                candidate=winner.label,
                total=winner.total,
                low=winner.score_min,
                high=winner.score_max,
                state=state,
            )
        )
    measured = sum(1 for c in data.candidates for line in c.lines if line.summary is not None)
    lines.append(
        ngettext("{count} office line measured", "{count} office lines measured", measured).format(
            count=measured
        )
    )
    return "\n".join(lines)
