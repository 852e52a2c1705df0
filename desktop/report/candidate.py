"""The report's section on one candidate: its line by hour of day from each office (peak shaded) and its peak
evenings, latency under load and throughput, the route out and back, acceptance, the vendor's answers; each
part saying what is missing and the command that fills it (`desktop.report.html` puts it in the document)."""

from __future__ import annotations

from desktop.i18n import _
from desktop.report import charts, markup
from desktop.report.model import CandidateReport, ReportData
from probes.routes.names import claim_name


def candidate_section(data: ReportData, c: CandidateReport, number: int) -> list[str]:
    e = c.entry
    out = [
        markup.h2(
            _("{number}. {candidate}").format(number=number, candidate=c.candidate.label), page_break=True
        )
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
    facts.append(
        _("line sold: {line}").format(line=claim_name(c.claimed_line) if c.claimed_line else _("not stated"))
    )
    endpoints = ", ".join(c.candidate.endpoints) or _("the catalog region's")
    facts.append(_("test endpoints: {endpoints}").format(endpoints=endpoints))
    out.append("<p>" + markup.esc("; ".join(facts)) + ".</p>")
    if e is not None:
        out.append(f'<p class="note">{markup.esc(e.explanation)}</p>')
    out += _line_part(data, c)
    out += _load_part(c)
    out += _route_part(c)
    out += _acceptance_part(c)
    out += _answers_part(c)
    return out


def _line_part(data: ReportData, c: CandidateReport) -> list[str]:
    out = [markup.h3(_("The line by hour of day"))]
    measured = [
        (line.office, line.profile)
        for line in c.lines
        if not line.profile.empty and line.profile["sent"].sum() > 0
    ]
    cell = c.evidence.cells["line"]
    if not measured:
        out.append(markup.missing(_("No RTT measured to this candidate yet."), cell.next))
        return out
    out.append(f"<p>{markup.img(charts.hour_of_day_chart(measured, data.peak_hours, data.tz))}</p>")
    rows = []
    for line in c.lines:
        s = line.summary
        off, peak = markup.side(s, "offpeak"), markup.side(s, "peak")
        rows.append(
            [
                markup.esc(markup.office(line)),
                markup.esc(markup.ms(off.rtt_median_ms)),
                markup.esc(markup.ms(off.rtt_p95_ms)),
                markup.esc(markup.pct(off.loss, 2)),
                markup.esc(markup.ms(peak.rtt_median_ms)),
                markup.esc(markup.ms(peak.rtt_p95_ms)),
                markup.esc(markup.pct(peak.loss, 2)),
                markup.esc(markup.ms(peak.jitter_ms)),
                markup.state(cell.offices[line.office].state, cell.offices[line.office].text)
                if line.office in cell.offices
                else markup.DASH,
            ]
        )
    out.append(
        markup.table(
            [
                _("Office"),
                _("Off-peak median"),
                _("Off-peak p95"),
                _("Off-peak loss"),
                _("Peak median"),
                _("Peak p95"),
                _("Peak loss"),
                _("Peak jitter"),
                _("Evidence"),
            ],
            rows,
            numeric=(1, 2, 3, 4, 5, 6, 7),
            widths=[15, 8, 8, 8, 8, 8, 8, 8, 29],
        )
    )
    evenings = [(line.office, line.evenings) for line in c.lines if not line.evenings.empty]
    out.append(markup.h3(_("The peak evenings")))
    if evenings:
        out.append(f"<p>{markup.img(charts.smoke_chart(evenings))}</p>")
    else:
        out.append(markup.missing(_("No peak evening measured yet."), cell.next))
    return out


def _load_part(c: CandidateReport) -> list[str]:
    out = [markup.h3(_("Under load and throughput"))]
    load, throughput = c.evidence.cells["load"], c.evidence.cells["throughput"]
    if load.state == "missing" and throughput.state == "missing":
        out.append(
            markup.missing(
                _("No latency under load and no throughput measured yet: {why}").format(why=load.text),
                load.next or throughput.next,
            )
        )
        return out
    rows = []
    for line in c.lines:
        off, peak = markup.side(line.summary, "offpeak"), markup.side(line.summary, "peak")
        rows.append(
            [
                markup.esc(markup.office(line)),
                markup.esc(markup.ms(off.loaded_rtt_increase_ms)),
                markup.esc(markup.ms(peak.loaded_rtt_increase_ms)),
                markup.esc(markup.DASH if peak.rpm is None else f"{peak.rpm:.0f}"),
                markup.esc(markup.mbps(off.throughput_mbps)),
                markup.esc(markup.mbps(peak.throughput_mbps)),
                markup.esc(
                    throughput.offices[line.office].text if line.office in throughput.offices else markup.DASH
                ),
            ]
        )
    out.append(
        markup.table(
            [
                _("Office"),
                _("Added under load, off-peak"),
                _("Added under load, peak"),
                _("RPM at peak"),
                _("Throughput off-peak"),
                _("Throughput at peak"),
                _("Evidence"),
            ],
            rows,
            numeric=(1, 2, 3, 4, 5),
            widths=[15, 12, 12, 9, 12, 12, 28],
        )
    )
    return out


def _route_part(c: CandidateReport) -> list[str]:
    out = [markup.h3(_("The route"))]
    route_out, route_back = c.evidence.cells["route_out"], c.evidence.cells["route_back"]
    for line in c.lines:
        cell = route_out.offices.get(line.office)
        heading = _("Outbound from {office}").format(office=markup.office(line))
        if line.route is None:
            out.append(f"<p><b>{markup.esc(heading)}</b></p>")
            out.append(markup.missing(_("No trace yet."), cell.next if cell is not None else None))
            continue
        out.append(
            f"<p><b>{markup.esc(heading)}</b>: "
            + (markup.state(cell.state, cell.text) if cell is not None else "")
            + " "
            + markup.esc(
                _("(last trace {when} to {target})").format(
                    when=markup.utc(line.route.traced_at_us), target=line.route.target
                )
            )
            + "</p>"
        )
        rows = [
            [
                markup.esc(hop.ttl),
                markup.esc(", ".join(hop.addresses) or "*"),
                markup.esc("; ".join(n for n in hop.networks if n) or markup.DASH),
            ]
            for hop in line.route.hops
        ]
        out.append(
            markup.table(
                [_("Hop"), _("Address"), _("Network (carrier, AS)")],
                rows,
                numeric=(0,),
            )
        )
    out.append(
        "<p><b>"
        + markup.esc(_("Return route (from the trial server)"))
        + f"</b>: {markup.state(route_back.state, route_back.text)}</p>"
    )
    if route_back.state == "missing" and route_back.next:
        out.append(markup.missing(_("The return route is not traced yet."), route_back.next))
    return out


def _acceptance_part(c: CandidateReport) -> list[str]:
    out = [markup.h3(_("Acceptance: claimed and measured"))]
    cell = c.evidence.cells["acceptance"]
    if not c.acceptance:
        out.append(markup.missing(_("No acceptance report imported."), cell.next))
        return out
    rows = [
        [
            markup.esc(check.get("fact", "")),
            markup.esc(check.get("claimed", markup.DASH)),
            markup.esc(check.get("measured", markup.DASH)),
            markup.state(
                "done"
                if check.get("verdict") == "confirmed"
                else ("contradicted" if check.get("verdict") == "contradicted" else "partial"),
                str(check.get("verdict", "")),
            ),
            markup.esc(check.get("host", "")),
        ]
        for check in c.acceptance
    ]
    out.append(
        markup.table(
            [
                _("Fact"),
                _("Claimed"),
                _("Measured"),
                _("Verdict"),
                _("Server"),
            ],
            rows,
        )
    )
    return out


def _answers_part(c: CandidateReport) -> list[str]:
    out = [markup.h3(_("The vendor’s answers"))]
    if not c.answers:
        out.append(
            markup.missing(_("No questionnaire answers imported."), c.evidence.cells["questionnaire"].next)
        )
        return out
    rows = [
        [markup.esc(f.key), markup.esc(f.value), markup.esc(f.source + (f" ({f.as_of})" if f.as_of else ""))]
        for f in c.answers[:40]
    ]
    out.append(markup.table([_("Fact"), _("Answer"), _("Source")], rows))
    if len(c.answers) > 40:
        out.append(
            markup.note(
                _("… and {count} more (the evidence bundle has them all)").format(count=len(c.answers) - 40)
            )
        )
    return out
