"""The evaluation's evidence table: for each candidate, what is known and what is still missing for a decision,
each cell with its state and the command that fills it (`linkvet eval show`, its JSON, the window's home, the
report). No Qt.

Kinds of evidence, per candidate:
    line          the line off-peak and at the evening peak, per office (samples, peak evenings covered and
                  how many more the line criterion needs before it can no longer move the candidate's place)
    load          latency under load (responsiveness tests), per office
    throughput    the download rate, per office (a lower bound when the transfers were too short to leave
                  slow start)
    route_out     the outbound route per office against the claimed line type (traces)
    route_back    the return route from the trial server (`linkvet accept --return-route`, imported)
    questionnaire the vendor's answers (facts added from the linkvet questionnaire)
    acceptance    the trial server's checks (confirmed / contradicted / unverified)
    price         a price for the offering
A cell's state is `missing`, `partial`, `done` or `contradicted`; JSON keeps the ids (`as_dict`). Beside the
candidates, every office's agent with its health (`desktop.usecases.agent_health`: `agents` in the JSON).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from catalogs.checklist import Evidence, load_checklist
from catalogs.evaluation.candidates import candidate_endpoints, claimed_line_type, offerings_of
from catalogs.evaluation.model import Candidate, Evaluation
from catalogs.facts import Sourced
from catalogs.link_quality import LinkSummary, PeriodStats
from catalogs.loader import CatalogSet, ProviderCatalog
from catalogs.scoring import peak_evenings_needed
from desktop.i18n import _, ngettext
from desktop.usecases.agent_health import OfficeAgent, office_agents
from probes.store_location import StoreLocation, exists, location_or_default
from probes.timestamps import now_us
from probes.vantage import THIS_MACHINE

if TYPE_CHECKING:
    from probes.store import AgentHealth

State = Literal["missing", "partial", "done", "contradicted"]
STATES: tuple[State, ...] = ("missing", "partial", "done", "contradicted")
KINDS = ("line", "load", "throughput", "route_out", "route_back", "questionnaire", "acceptance", "price")


@dataclass(frozen=True, slots=True)
class Cell:
    """One piece of evidence: its state, what it says (in the current language), the command that fills or
    settles it, and its figures (JSON)."""

    state: State
    text: str
    next: str | None = None
    figures: Mapping[str, Any] = field(default_factory=dict)
    offices: Mapping[str, Cell] = field(default_factory=dict)  # per office, where the kind is per office

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"state": self.state, "text": self.text, "next": self.next, **self.figures}
        if self.offices:
            out["offices"] = {name: cell.as_dict() for name, cell in self.offices.items()}
        return out


@dataclass(frozen=True, slots=True)
class CandidateEvidence:
    candidate: Candidate
    cells: Mapping[str, Cell]

    @property
    def next(self) -> list[str]:
        """The commands that would fill this candidate's missing and partial evidence, in table order."""
        return list(dict.fromkeys(c.next for c in self.cells.values() if c.next and c.state != "done"))

    def as_dict(self) -> dict[str, Any]:
        c = self.candidate
        return {
            "provider": c.provider,
            "region": c.region,
            "offering": c.offering,
            "label": c.label,
            "endpoints": list(c.endpoints),
            "evidence": {kind: cell.as_dict() for kind, cell in self.cells.items()},
            "next": self.next,
        }


@dataclass(frozen=True, slots=True)
class EvidenceTable:
    evaluation: Evaluation
    offices: tuple[str, ...]
    candidates: tuple[CandidateEvidence, ...]
    agents: tuple[OfficeAgent, ...] = ()  # every office's agent, as its health says

    def as_dict(self) -> dict[str, Any]:
        e = self.evaluation
        return {
            "evaluation": e.name,
            "offices": list(self.offices),
            "decide_by": e.decide_by,
            "peak_windows": [str(w) for w in e.peak_windows],
            "candidates": [c.as_dict() for c in self.candidates],
            "agents": [a.as_dict() for a in self.agents],
        }


def office_names(evaluation: Evaluation) -> tuple[str, ...]:
    """The offices whose lines count: the evaluation's, or this machine's when it names none."""
    return tuple(o.name for o in evaluation.offices) or (THIS_MACHINE,)


# -- the cells ---------------------------------------------------------------------------------------------


def _worst(states: Sequence[State]) -> State:
    if "contradicted" in states:
        return "contradicted"
    if not states or all(s == "missing" for s in states):
        return "missing"
    if all(s == "done" for s in states):
        return "done"
    return "partial"


def _measure_next(evaluation: Evaluation, office: str) -> str:
    if office == THIS_MACHINE:
        return f"linkvet schedule --eval {evaluation.name}"
    return f"linkvet schedule --eval {evaluation.name} --vantage {office}"


_NOTHING = PeriodStats()


def _sides(summary: LinkSummary | None) -> tuple[PeriodStats, PeriodStats]:
    """(peak, off-peak) of a line, each empty where it was not measured."""
    if summary is None:
        return _NOTHING, _NOTHING
    return summary.peak or _NOTHING, summary.offpeak or _NOTHING


def line_cell(
    evaluation: Evaluation, summaries: Mapping[str, LinkSummary | None], evidence: Evidence
) -> Cell:
    """The line off-peak and at peak from each office; done when every office has measured enough peak
    evenings for its peak figures to be fully trusted (`catalogs.scoring.peak_evenings_needed`)."""
    per_office: dict[str, Cell] = {}
    for office, summary in summaries.items():
        peak, offpeak = _sides(summary)
        covered = peak.evenings or 0
        more = peak_evenings_needed(summary, evidence)
        figures = {
            "offpeak_samples": offpeak.samples or 0,
            "peak_samples": peak.samples or 0,
            "peak_evenings": covered,
            "evenings_to_settle": more,
            "offpeak_rtt_median_ms": offpeak.rtt_median_ms,
            "peak_rtt_median_ms": peak.rtt_median_ms,
            "peak_rtt_p95_ms": peak.rtt_p95_ms,
            "peak_loss": peak.loss,
        }
        if not (offpeak.samples or peak.samples):
            per_office[office] = Cell(
                "missing", _("not measured yet"), _measure_next(evaluation, office), figures
            )
            continue
        text = ngettext(
            "{offpeak} samples off-peak, {peak} at peak over {evenings} evening",
            "{offpeak} samples off-peak, {peak} at peak over {evenings} evenings",
            covered,
        ).format(offpeak=offpeak.samples or 0, peak=peak.samples or 0, evenings=covered)
        if more:
            text = ngettext(
                "{measured} ({count} more peak evening settles it)",
                "{measured} ({count} more peak evenings settle it)",
                more,
            ).format(measured=text, count=more)
            per_office[office] = Cell("partial", text, _measure_next(evaluation, office), figures)
        else:
            per_office[office] = Cell("done", text, None, figures)
    return _per_office(per_office)


def _add_url(evaluation: Evaluation, candidate: Candidate) -> str:
    """The command that gives this candidate (its offering too, so no second candidate is made) a test URL."""
    offering = f" --offering {candidate.offering}" if candidate.offering else ""
    return (
        f"linkvet eval add {evaluation.name} --provider {candidate.provider} --region {candidate.region}"
        f"{offering} --test-ip URL"
    )


def _has_url(candidate: Candidate, catalogs: CatalogSet) -> bool:
    return any(
        e.address.startswith(("http://", "https://")) for e in candidate_endpoints(candidate, catalogs)
    )


def load_cell(
    evaluation: Evaluation, candidate: Candidate, summaries: Mapping[str, LinkSummary | None], has_url: bool
) -> Cell:
    """Latency under load (responsiveness tests) from each office."""
    per_office: dict[str, Cell] = {}
    for office, summary in summaries.items():
        peak, offpeak = _sides(summary)
        tests = (peak.load_tests or 0) + (offpeak.load_tests or 0)
        if tests:
            added = peak.loaded_rtt_increase_ms
            text = ngettext("{count} test", "{count} tests", tests).format(count=tests)
            if added is not None:
                text += _(", +{ms:.0f} ms under load at peak").format(ms=added)
            per_office[office] = Cell("done", text, None, {"load_tests": tests, "peak_added_ms": added})
        elif not has_url:
            per_office[office] = Cell(
                "missing",
                _("needs a test URL (a file on the vendor's server)"),
                _add_url(evaluation, candidate),
            )
        else:
            per_office[office] = Cell("missing", _("not measured yet"), _measure_next(evaluation, office))
    return _per_office(per_office)


def throughput_cell(
    evaluation: Evaluation, candidate: Candidate, summaries: Mapping[str, LinkSummary | None], has_url: bool
) -> Cell:
    """The download rate from each office; a lower bound where most transfers were too short to leave slow
    start (`probes.analysis`: shorter than 5 s)."""
    per_office: dict[str, Cell] = {}
    for office, summary in summaries.items():
        peak, offpeak = _sides(summary)
        side = peak if peak.throughput_mbps is not None else offpeak
        rate = side.throughput_mbps
        if rate is None:
            per_office[office] = (
                Cell("missing", _("not measured yet"), _measure_next(evaluation, office))
                if has_url
                else Cell(
                    "missing",
                    _("needs a test URL (a file on the vendor's server)"),
                    _add_url(evaluation, candidate),
                )
            )
            continue
        lower_bound = bool(side.throughput_lower_bound)
        figures = {
            "peak_mbps": peak.throughput_mbps,
            "offpeak_mbps": offpeak.throughput_mbps,
            "lower_bound": lower_bound,
        }
        if lower_bound:
            per_office[office] = Cell(
                "partial",
                _(
                    "at least {rate:.1f} Mbit/s: the transfers ended before leaving TCP slow start (a larger "
                    "test file measures the line)"
                ).format(rate=rate),
                _add_url(evaluation, candidate),
                figures,
            )
        else:
            per_office[office] = Cell("done", _("{rate:.1f} Mbit/s").format(rate=rate), None, figures)
    return _per_office(per_office)


def _per_office(per_office: dict[str, Cell]) -> Cell:
    return Cell(
        _worst([c.state for c in per_office.values()]),
        _summary_text(per_office),
        _first_next(per_office),
        offices=per_office,
    )


def route_out_cell(
    evaluation: Evaluation,
    candidate: Candidate,
    claim: str | None,
    summaries: Mapping[str, LinkSummary | None],
) -> Cell:
    per_office: dict[str, Cell] = {}
    for office, summary in summaries.items():
        route = summary.route if summary is not None else None
        if route is None or not route.traces:
            per_office[office] = Cell("missing", _("no trace yet"), _measure_next(evaluation, office))
            continue
        figures = {
            "claimed": route.claimed_line_type,
            "measured": route.measured_class,
            "traces": route.traces,
            "agreeing_traces": route.agreeing_traces,
            "agrees": route.agrees,
        }
        traces_text = _("{agreeing} of {traces} traces").format(
            agreeing=route.agreeing_traces, traces=route.traces
        )
        if route.agrees is True:
            per_office[office] = Cell(
                "done",
                _("{measured}, as claimed ({traces})").format(
                    measured=_class(route.measured_class), traces=traces_text
                ),
                None,
                figures,
            )
        elif route.agrees is False:
            per_office[office] = Cell(
                "contradicted",
                _("claimed {claimed}, measured {measured} ({traces} agree with the claim)").format(
                    claimed=_claim(route.claimed_line_type),
                    measured=_class(route.measured_class),
                    traces=traces_text,
                ),
                None,
                figures,
            )
        elif route.measured_class is None:
            text = ngettext(
                "none of {traces} trace passed a listed backbone: the route says nothing of the line yet",
                "none of {traces} traces passed a listed backbone: the route says nothing of the line yet",
                route.traces,
            ).format(traces=route.traces)
            per_office[office] = Cell("partial", text, None, figures)
        else:
            text = (
                _("measured {measured}; nothing claimed to check it against").format(
                    measured=_class(route.measured_class)
                )
                if claim is None
                else _("measured {measured}; the claim {claimed} cannot be checked from the route").format(
                    measured=_class(route.measured_class), claimed=_claim(claim)
                )
            )
            per_office[office] = Cell("partial", text, None, figures)
    return Cell(
        _worst([c.state for c in per_office.values()]),
        _summary_text(per_office),
        _first_next(per_office),
        offices=per_office,
    )


def _class(line_class: str | None) -> str:
    from probes.routes import class_name

    return class_name(line_class) if line_class else "-"


def _claim(line_type: str | None) -> str:
    from probes.routes import claim_name

    return claim_name(line_type) if line_type else "-"


def _checks(catalog: ProviderCatalog | None, candidate: Candidate) -> list[Mapping[str, Any]]:
    if catalog is None:
        return []
    offerings = {o.id for o in offerings_of(candidate, catalog)}
    return [
        c for c in catalog.checks if c.get("offering") in offerings or c.get("region") == candidate.region
    ]


def route_back_cell(catalog: ProviderCatalog | None, candidate: Candidate) -> Cell:
    checks = [
        c
        for c in _checks(catalog, candidate)
        if c.get("fact") == "line_types"
        and c.get("scope") == "region"
        and c.get("region") in (None, candidate.region)
    ]
    next_step = _accept_next(candidate)
    if not checks:
        return Cell(
            "missing",
            _(
                "no return-route trace from the trial server (run linkvet accept there, then linkvet accept "
                "import its report here)"
            ),
            next_step,
        )
    latest = max(checks, key=lambda c: str(c.get("created_at", "")))
    verdict = latest.get("verdict")
    figures = {
        "claimed": latest.get("claimed"),
        "measured": latest.get("measured"),
        "host": latest.get("host"),
    }
    if verdict == "confirmed":
        return Cell(
            "done", _("confirmed: {evidence}").format(evidence=latest.get("evidence", "")), None, figures
        )
    if verdict == "contradicted":
        return Cell("contradicted", str(latest.get("evidence", "")), None, figures)
    return Cell("partial", str(latest.get("evidence", "")), next_step, figures)


def _accept_next(candidate: Candidate) -> str:
    """On the trial server; its report then goes through `linkvet accept import` at the office."""
    offering = candidate.offering or "OFFERING"
    return (
        f"linkvet accept --provider {candidate.provider} --offering {offering} --region {candidate.region} "
        "--return-route --out report.json"
    )


def acceptance_cell(catalog: ProviderCatalog | None, candidate: Candidate) -> Cell:
    checks = [c for c in _checks(catalog, candidate) if c.get("scope") != "region"]
    if not checks:
        return Cell(
            "missing",
            _(
                "no acceptance report imported (run linkvet accept on the trial server, then linkvet accept "
                "import its report here)"
            ),
            _accept_next(candidate),
        )
    counts = {
        v: sum(1 for c in checks if c.get("verdict") == v)
        for v in ("confirmed", "contradicted", "unverified")
    }
    text = _("{confirmed} confirmed, {contradicted} contradicted, {unverified} unverified").format(**counts)
    if counts["contradicted"]:
        contradicted = sorted({str(c.get("fact")) for c in checks if c.get("verdict") == "contradicted"})
        return Cell(
            "contradicted",
            text + _(" (contradicted: {facts})").format(facts=", ".join(contradicted)),
            None,
            {**counts, "contradicted_facts": contradicted},
        )
    state: State = "done" if counts["confirmed"] and not counts["unverified"] else "partial"
    return Cell(state, text, None if state == "done" else _accept_next(candidate), counts)


def questionnaire_cell(catalog: ProviderCatalog | None, candidate: Candidate) -> Cell:
    from desktop.usecases.questionnaire_answers import is_questionnaire_source

    answered = 0
    if catalog is not None:
        tables: list[Sourced | None] = [
            catalog.data.provider,
            catalog.data.service,
            catalog.region(candidate.region),
            *offerings_of(candidate, catalog),
        ]
        for table in tables:
            if table is None:
                continue
            answered += sum(1 for p in table.facts.values() if is_questionnaire_source(p.source))
    next_step = (
        f"linkvet questionnaire export --provider {candidate.provider} --out {candidate.provider}.xlsx"
    )
    if not answered:
        return Cell(
            "missing",
            _("no answers imported (send the vendor the questionnaire, then linkvet questionnaire import)"),
            next_step,
        )
    return Cell(
        "done",
        ngettext(
            "{count} fact from the vendor's answers", "{count} facts from the vendor's answers", answered
        ).format(count=answered),
        None,
        {"facts": answered},
    )


def price_cell(catalog: ProviderCatalog | None, candidate: Candidate) -> Cell:
    offerings = offerings_of(candidate, catalog) if catalog is not None else []
    priced = [o for o in offerings if any(p.gpu_hour or p.node_hour or p.node_month for p in o.prices)]
    if not offerings:
        return Cell("missing", _("no offering in the catalogs for this region"), None)
    if not priced:
        return Cell(
            "missing",
            _("no price listed"),
            f"linkvet questionnaire export --provider {candidate.provider} --out {candidate.provider}.xlsx",
        )
    return Cell(
        "done" if len(priced) == len(offerings) else "partial",
        ngettext("{count} priced offering", "{count} priced offerings", len(priced)).format(
            count=len(priced)
        ),
        None,
        {"priced_offerings": len(priced), "offerings": len(offerings)},
    )


def _summary_text(per_office: Mapping[str, Cell]) -> str:
    if len(per_office) == 1:
        return next(iter(per_office.values())).text
    return "; ".join(f"{office}: {cell.text}" for office, cell in per_office.items())


def _first_next(per_office: Mapping[str, Cell]) -> str | None:
    return next((c.next for c in per_office.values() if c.next and c.state != "done"), None)


# -- the table ---------------------------------------------------------------------------------------------


def evidence_table(
    db: StoreLocation | None,
    name: str,
    catalogs: CatalogSet,
    *,
    summaries: Sequence[LinkSummary] | None = None,
) -> EvidenceTable:
    """The evaluation's evidence, read once from the store (every office's line, routes and transfers) and
    from the catalogs (answers, acceptance checks, prices). A caller that read the lines already (the
    report, over its period) passes them as `summaries`."""
    from desktop.usecases.evaluation import load_evaluation

    evaluation = load_evaluation(db, name)
    offices = office_names(evaluation)
    if summaries is not None:
        measured = {(s.provider, s.region, s.vantage or THIS_MACHINE): s for s in summaries}
    else:
        measured = _measured(db, evaluation, catalogs)
    rows = []
    from desktop.usecases.evaluation_plan import planned_peak_samples

    evidence = load_checklist().evidence.model_copy(
        update={"planned_peak_samples": planned_peak_samples(evaluation)}
    )
    for candidate in evaluation.candidates:
        catalog = catalogs.provider(candidate.provider)
        claim = claimed_line_type(candidate, catalogs)
        key = (candidate.provider, candidate.region)
        lines = {o: measured.get((*key, o)) for o in offices}
        has_url = _has_url(candidate, catalogs)
        cells = {
            "line": line_cell(evaluation, lines, evidence),
            "load": load_cell(evaluation, candidate, lines, has_url),
            "throughput": throughput_cell(evaluation, candidate, lines, has_url),
            "route_out": route_out_cell(evaluation, candidate, claim, lines),
            "route_back": route_back_cell(catalog, candidate),
            "questionnaire": questionnaire_cell(catalog, candidate),
            "acceptance": acceptance_cell(catalog, candidate),
            "price": price_cell(catalog, candidate),
        }
        rows.append(CandidateEvidence(candidate, cells))
    agents = office_agents(evaluation, _agents(db, evaluation), now_us())
    return EvidenceTable(evaluation, offices, tuple(rows), agents)


def _measured(
    db: StoreLocation | None, evaluation: Evaluation, catalogs: CatalogSet
) -> dict[tuple[str, str, str], LinkSummary]:
    """Each candidate region's line from each office, by (provider, region, vantage point)."""
    from desktop.usecases.links import candidate_lines

    regions = {(c.provider, c.region) for c in evaluation.candidates}
    lines = candidate_lines(db, regions, evaluation.peak_windows, catalogs)
    return {(s.provider, s.region, s.vantage or THIS_MACHINE): s for s in lines}


def _agents(db: StoreLocation | None, evaluation: Evaluation) -> Sequence[AgentHealth]:
    """What the offices' agents said in the store for the evaluation (none before the store exists)."""
    from probes.store import Store

    location = location_or_default(db)
    if not exists(location):
        return ()
    with Store(location, readonly=True) as store:
        return store.agents(evaluation_or_plan=evaluation.name)
