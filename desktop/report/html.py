"""The report as one self-contained HTML document: the pictures inlined as PNG data, the styles inline, no
script, nothing fetched (it opens offline and prints on A4). The PDF is this same document printed by Qt's
rich-text engine, so the markup keeps to what both a browser and Qt's HTML subset lay out alike (tables with
attributes, headings, paragraphs, inline images with their size, simple class selectors); a browser gets
the finer print styles (@page, page breaks) on top. Every text from the store, the catalogs and vendors is
escaped (`desktop.report.markup`, the pieces every part is written with).

    page 1      the decision: the recommendation and whether its place is decided (else what decides it and
                the questions to ask), the candidates' table, the winner-flip band, the evidence's period and
                amount, the scores with their bounds
    per candidate  (`desktop.report.candidate`) the line by hour of day per office (peak shaded), the peak
                evenings (smoke), under load and throughput, the route out and back with carriers,
                acceptance, the vendor's answers
    then        the time to move the data; the method (definitions, backends and times, scoring, commands)
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC
from typing import Any

from catalogs.link_quality import LinkSummary
from catalogs.scoring import RankedOffering, Ranking, method_title, order_title
from desktop.i18n import _, ngettext, vantage_name
from desktop.report import charts, markup
from desktop.report.candidate import candidate_section
from desktop.report.decision import decide, winner_of
from desktop.report.model import REPORT_FORMAT_VERSION, CandidateReport, OfficeLine, ReportData
from desktop.usecases.evaluation_score import OfficeRanking
from probes.routes.names import claim_name, class_name

MB_PER_TB = 1e6
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


def render_html(data: ReportData) -> str:
    """The whole report as one HTML document in the current language (the PDF prints the same document)."""
    e = data.evaluation
    title = _("Decision report: {evaluation}").format(evaluation=e.name)
    parts = [
        "<!DOCTYPE html>",
        f'<html lang="{"zh-CN" if data.language.startswith("zh") else "en"}"><head><meta charset="utf-8">',
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; img-src data:; '
        "style-src 'unsafe-inline'\">",
        f"<title>{markup.esc(title)}</title><style>{STYLE}</style></head><body>",
        f"<h1>{markup.esc(title)}</h1>",
        f'<p class="sub">{markup.esc(_header_line(data))}</p>',
    ]
    parts += _decision(data)
    parts += _candidate_table(data)
    parts += _flip_band(data)
    parts += _evidence_amount(data)
    for number, candidate in enumerate(data.candidates, start=1):
        parts += candidate_section(data, candidate, number)
    parts += _transfer(data)
    parts += _method(data)
    parts.append("</body></html>")
    return "\n".join(parts)


def _header_line(data: ReportData) -> str:
    e = data.evaluation
    offices = ", ".join(markup.office_name(o.name, o.carrier) for o in e.offices) or vantage_name(None)
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
    out = [markup.h2(_("The decision"))]
    if not data.evaluation.candidates:
        out.append(
            markup.missing(
                _("This evaluation has no candidate yet."),
                f"linkvet eval add {data.evaluation.name} --provider ID --region ID --test-ip ADDRESS",
            )
        )
        return out
    for office_ranking in data.ranking.rankings:
        out.append('<div class="decision">')
        if len(data.ranking.rankings) > 1:
            out.append(
                markup.h3(_("On the line from {office}").format(office=vantage_name(office_ranking.office)))
            )
        out += _recommendation(office_ranking)
        out.append("</div>")
    if not data.measured:
        out.append(
            markup.missing(
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
    out = [f'<p class="verdict">{markup.esc(decision.headline)}</p>']
    bold = decision.decided is False
    out.append(f"<p>{'<b>' if bold else ''}{markup.esc(decision.standing)}{'</b>' if bold else ''}</p>")
    if decision.questions:
        out.append("<p>" + markup.esc(_("What decides it, and the questions to ask:")) + "</p>")
        out.append("<ul>" + "".join(f"<li>{markup.esc(q)}</li>" for q in decision.questions) + "</ul>")
    return out


def _price(entry: RankedOffering | None) -> tuple[str, str]:
    if entry is None or entry.price_gpu_hour is None:
        return markup.DASH, markup.DASH
    currency = entry.currency or ""
    hour = f"{entry.price_gpu_hour:,.2f} {currency}".strip()
    if entry.price_is_lower_bound:
        hour = _("from {price}").format(price=hour)
    if not entry.planned_gpus:
        return hour, markup.DASH
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
            return markup.esc(
                _("no peak evening yet (off-peak p95 {p95})").format(p95=markup.ms(offpeak.rtt_p95_ms))
            )
        return '<span class="missing">' + markup.esc(_("not measured")) + "</span>"
    offpeak = summary.offpeak if summary is not None else None
    change = ""
    if offpeak is not None and offpeak.rtt_p95_ms is not None and peak.rtt_p95_ms is not None:
        change = _(" ({change:+.0f} ms on off-peak)").format(change=peak.rtt_p95_ms - offpeak.rtt_p95_ms)
    text = ngettext(
        "p95 {p95}{change}, loss {loss}, {evenings} evening",
        "p95 {p95}{change}, loss {loss}, {evenings} evenings",
        peak.evenings or 0,
    ).format(
        p95=markup.ms(peak.rtt_p95_ms), change=change, loss=markup.pct(peak.loss), evenings=peak.evenings or 0
    )
    return markup.esc(text)


def _candidate_table(data: ReportData) -> list[str]:
    if not data.candidates:
        return []
    offices = [line for line in data.candidates[0].lines]
    headers = [
        _("#"),
        _("Candidate"),
        _("Score (bounds)"),
        _("Price per GPU-hour; per month"),
        *(_("Peak evenings from {office}").format(office=markup.office(line)) for line in offices),
        _("Route out / back"),
        _("Acceptance"),
    ]
    share = max(30 // max(len(offices), 1), 10)
    widths = [3, 15, 16, 12, *([share] * len(offices)), 13, 11]
    rows = []
    for c in sorted(data.candidates, key=lambda c: c.entry.rank if c.entry is not None else 10**9):
        entry = c.entry
        if entry is not None:
            bar = charts.score_bar(entry.score_min, entry.total, entry.score_max)
            score = (
                markup.img(bar, 110)
                + "<br>"
                + markup.esc(f"{entry.total:.2f} ({entry.score_min:.2f}–{entry.score_max:.2f})")
            )
        else:
            score = markup.esc(_("not ranked (no offering in the catalogs)"))
        hour, month = _price(entry)
        route_out = c.evidence.cells["route_out"]
        route_back = c.evidence.cells["route_back"]
        acceptance = c.evidence.cells["acceptance"]
        rows.append(
            [
                markup.esc(entry.rank if entry is not None else markup.DASH),
                _label_lines(c),
                score,
                markup.esc(hour) + "<br>" + markup.esc(month),
                *(_peak_line(line) for line in c.lines),
                markup.state(route_out.state, _route_word(c, route_out.offices))
                + "<br>"
                + markup.state(route_back.state, _("back")),
                markup.state(acceptance.state, ""),
            ]
        )
    return [
        markup.h3(_("The candidates")),
        markup.table(headers, rows, numeric=(0,), widths=widths),
        f'<p class="note">{markup.esc(_candidate_table_note())}</p>',
    ]


def _label_lines(c: CandidateReport) -> str:
    """The candidate's provider, region and offering on lines of their own (ids a table cannot break)."""
    parts = [f"<b>{markup.esc(c.candidate.provider)}</b>", markup.esc(c.candidate.region)]
    if c.candidate.offering:
        parts.append(markup.esc(c.candidate.offering))
    if c.entry is not None and c.entry.provider_name != c.candidate.provider:
        parts.append(f'<span class="note">{markup.esc(c.entry.provider_name)}</span>')
    return "<br>".join(parts)


def _candidate_table_note() -> str:
    return _(
        "Score: the bar runs from the worst case (every unknown at 0) to the best case (every unknown at 1), the "
        "tick is the score; known: the share of the checklist's weight that is known. Peak evenings: p95 RTT "
        "and loss inside the peak windows, and the change on off-peak."
    )


def _route_word(c: CandidateReport, offices: Mapping[str, Any]) -> str:
    """The line sold and the lines traced, as people name them (`CN2 GIA`, "ChinaNet 163"), not the ids."""
    measured = sorted(
        {str(cell.figures.get("measured")) for cell in offices.values() if cell.figures.get("measured")}
    )
    if not measured:
        if c.claimed_line is None:
            return _("nothing claimed, not traced")
        return _("claimed {claimed}").format(claimed=claim_name(c.claimed_line))
    claimed = claim_name(c.claimed_line) if c.claimed_line else _("nothing claimed")
    return _("claimed {claimed}, measured {measured}").format(
        claimed=claimed, measured=", ".join(class_name(m) for m in measured)
    )


def _flip_band(data: ReportData) -> list[str]:
    out = [markup.h3(_("Does the winner flip?"))]
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
        out.append(f"<p>{markup.esc(prefix + text)} {markup.esc(unknowns[:1].upper() + unknowns[1:])}.</p>")
        if sensitivity.changes:
            rows = [
                [
                    markup.esc(sensitivity.title(change.criterion)),
                    markup.esc(f"×{change.factor:g}"),
                    markup.esc(change.new_top),
                ]
                for change in sensitivity.changes
            ]
            out.append(markup.table([_("Weight"), _("Moved"), _("First place then")], rows))
    return out


def _evidence_amount(data: ReportData) -> list[str]:
    out = [markup.h3(_("The evidence: period and amount"))]
    if data.since_us is not None or data.until_us is not None:
        out.append(
            "<p>"
            + markup.esc(
                _("Period asked for: {since} to {until}.").format(
                    since=markup.utc(data.since_us), until=markup.utc(data.until_us)
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
                    markup.esc(markup.office(line)),
                    markup.esc(markup.day(_period_us(s, "start")))
                    + " – "
                    + markup.esc(markup.day(_period_us(s, "end"))),
                    markup.esc((peak.evenings or 0) if peak else 0),
                    markup.esc((peak.samples or 0) if peak else 0),
                    markup.esc((offpeak.samples or 0) if offpeak else 0),
                ]
            )
    if rows:
        out.append(
            markup.table(
                [
                    _("Candidate"),
                    _("Office"),
                    _("Measured from – to"),
                    _("Peak evenings"),
                    _("Samples at peak"),
                    _("Samples off-peak"),
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
        out.append(f"<p>{markup.img(picture)}</p>")
    return out


def _period_us(summary: LinkSummary | None, which: str) -> int | None:
    if summary is None:
        return None
    moment = summary.period_start if which == "start" else summary.period_end
    return None if moment is None else int(moment.timestamp() * 1e6)


def hours_per_tb(rate_mbps: float | None) -> float | None:
    """Hours to move 1 TB (10^12 bytes) at `rate_mbps`."""
    if rate_mbps is None or rate_mbps <= 0:
        return None
    return MB_PER_TB * 8 / rate_mbps / 3600


def _hours(value: float | None) -> str:
    if value is None:
        return markup.DASH
    if value >= 48:
        return _("{days:.1f} days").format(days=value / 24)
    return _("{hours:.1f} h").format(hours=value)


def _transfer(data: ReportData) -> list[str]:
    sizes = data.sizes
    out = [markup.h2(_("Time to move the data"), page_break=True)]
    out.append(
        "<p>"
        + markup.esc(
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
            off, peak = markup.side(line.summary, "offpeak"), markup.side(line.summary, "peak")
            per_tb_off, per_tb_peak = hours_per_tb(off.throughput_mbps), hours_per_tb(peak.throughput_mbps)
            rows.append(
                [
                    _label_lines(c),
                    markup.esc(markup.office(line)),
                    markup.esc(_hours(per_tb_off)),
                    markup.esc(_hours(per_tb_peak)),
                    markup.esc(_hours(_times(per_tb_peak or per_tb_off, sizes.checkpoint_gb))),
                    markup.esc(_hours(_times(per_tb_peak or per_tb_off, sizes.dataset_gb))),
                ]
            )
    if all(row[2] == markup.DASH and row[3] == markup.DASH for row in rows):
        first = next((c.evidence.cells["throughput"] for c in data.candidates), None)
        out.append(
            markup.missing(
                _("No throughput measured yet, so no transfer time."), first.next if first else None
            )
        )
    out.append(
        markup.table(
            [
                _("Candidate"),
                _("Office"),
                _("Per TB off-peak"),
                _("Per TB at peak"),
                _("A checkpoint"),
                _("The dataset"),
            ],
            rows,
            numeric=(2, 3, 4, 5),
            widths=[28, 20, 13, 13, 13, 13],
        )
    )
    if not sizes.dataset_gb:
        out.append(
            markup.note(
                _(
                    "Give the dataset size as dataset_gb under [location] in the needs to see its transfer time."
                )
            )
        )
    out.append(
        markup.note(
            _(
                "Times at the measured median download rate; a checkpoint and the dataset at the peak rate where "
                "one was measured."
            )
        )
    )
    return out


def _gb(value: float | None) -> str:
    if value is None:
        return markup.DASH
    if value >= 1000:
        return _("{tb:.1f} TB").format(tb=value / 1000)
    return _("{gb:.0f} GB").format(gb=value)


def _times(per_tb_hours: float | None, gb: float | None) -> float | None:
    if per_tb_hours is None or gb is None:
        return None
    return per_tb_hours * gb / 1000


# -- the method -----------------------------------------------------------------------------------------------


def _method(data: ReportData) -> list[str]:
    out = [markup.h2(_("Method"), page_break=True), markup.h3(_("Definitions")), "<ul>"]
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
    out += [f"<li>{markup.esc(d)}</li>" for d in definitions]
    out.append("</ul>")
    out.append(markup.h3(_("Probe backends and times")))
    backends = ", ".join(f"{label}: {count}" for label, count in data.backends) or markup.DASH
    out.append(
        "<p>"
        + markup.esc(
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
    out.append(markup.h3(_("Scores and bounds")))
    for office_ranking in data.ranking.rankings[:1]:
        ranking = office_ranking.ranking
        out.append(
            "<p>"
            + markup.esc(
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
                markup.esc(winner.title(criterion) if winner else criterion),
                markup.esc(f"{weight:g}"),
                markup.esc(f"{weight / total:.1%}"),
            ]
            for criterion, weight in ranking.weights.items()
            if weight
        ]
        out.append(
            markup.table(
                [_("Criterion"), _("Weight"), _("Share")],
                rows,
                numeric=(1, 2),
            )
        )
    out.append(markup.h3(_("Commands that reproduce every figure")))
    out.append(
        markup.table(
            [_("Figure"), _("Command")],
            [[markup.esc(what), f"<code>{markup.esc(command)}</code>"] for what, command in data.commands],
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
