"""The Summary sheet (摘要) that opens an evaluation's workbook (`linkvet export --eval`): the decision in the
report's words (`desktop.report.decision`), the candidates' table (score with its bounds, price per GPU-hour
and per month at the planned size, each office's peak and off-peak p95 and peak loss, the route checks,
coverage, whether the place is decided), and two native charts the spreadsheet draws from the table's cells:
the score with its bounds (error bars), and each office's p95 RTT off-peak beside at peak per candidate."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from catalogs.prices import cost_per_month
from catalogs.scoring import RankedOffering, Ranking
from desktop.export.measurements import Measurements
from desktop.export.model import Column, LineChart, Sheet
from desktop.i18n import _
from desktop.report.decision import decide


@dataclass(frozen=True)
class SummaryRequest:
    """What the Summary sheet is about: the evaluation, its candidates (provider, region, offering) and its
    offices (name, and the name shown with its carrier)."""

    evaluation: str
    candidates: Sequence[tuple[str, str, str | None]]
    offices: Sequence[tuple[str, str]]


def _entry(ranking: Ranking, provider: str, region: str, offering: str | None) -> RankedOffering | None:
    return next(
        (
            e
            for e in ranking.entries
            if e.provider == provider and e.region == region and (offering is None or e.offering == offering)
        ),
        None,
    )


def summary_sheet(request: SummaryRequest, ranking: Ranking, measurements: Measurements | None) -> Sheet:
    decision = decide(ranking)
    lead = [
        _("Decision: {evaluation}").format(evaluation=request.evaluation),
        *decision.lines(),
        ranking.sensitivity.describe(),
    ]
    links = {
        (r.link.provider, r.link.region, r.link.vantage): r.link
        for r in (measurements.regions if measurements else [])
    }
    columns: list[Column] = [
        Column("rank", _("Rank"), "int", width=6),
        Column("candidate", _("Candidate"), max_width=42),
        Column("score_min", _("Score at worst"), "score", decimals=3),
        Column("total", _("Score"), "score", decimals=3),
        Column("score_max", _("Score at best"), "score", decimals=3),
        Column("below", _("Unknowns could lower it by"), "score", decimals=3),
        Column("above", _("Unknowns could raise it by"), "score", decimals=3),
        Column(
            "coverage",
            _("Known"),
            "percent",
            decimals=0,
            note=_("the share of the checklist's weight that is known"),
        ),
        Column("decided", _("Place")),
        Column("price_gpu_hour", _("Price per GPU-hour"), "money", decimals=2),
        Column("price_month", _("Per month at the planned size"), "money", decimals=0),
        Column("planned_gpus", _("Planned GPUs"), "int"),
    ]
    for office, shown in request.offices:
        columns += [
            Column(
                f"offpeak_p95_{office}", _("Off-peak p95, {office}").format(office=shown), "ms", decimals=0
            ),
            Column(f"peak_p95_{office}", _("Peak p95, {office}").format(office=shown), "ms", decimals=0),
            Column(
                f"peak_loss_{office}",
                _("Peak loss, {office}").format(office=shown),
                "percent",
                decimals=2,
                colour_scale="low-good",
            ),
            Column(f"route_{office}", _("Route, {office}").format(office=shown), max_width=30),
        ]
    rows: list[dict[str, Any]] = []
    for provider, region, offering in request.candidates:
        entry = _entry(ranking, provider, region, offering)
        label = "/".join(p for p in (provider, region, offering) if p)
        row: dict[str, Any] = {"candidate": label}
        if entry is not None:
            month = (
                cost_per_month(entry.price_gpu_hour, entry.planned_gpus)
                if entry.price_gpu_hour and entry.planned_gpus
                else None
            )
            row |= {
                "rank": entry.rank,
                "score_min": entry.score_min,
                "total": entry.total,
                "score_max": entry.score_max,
                "below": entry.total - entry.score_min,
                "above": entry.score_max - entry.total,
                "coverage": entry.coverage,
                "decided": _place(entry),
                "price_gpu_hour": entry.price_gpu_hour,
                "price_month": month,
                "planned_gpus": entry.planned_gpus,
            }
        else:
            row["decided"] = _("not ranked (no offering in the catalogs)")
        for office, _shown in request.offices:
            link = links.get((provider, region, office))
            if link is None:
                row[f"route_{office}"] = _("not measured")
                continue
            row[f"offpeak_p95_{office}"] = link.offpeak.rtt_p95_ms
            row[f"peak_p95_{office}"] = link.peak.rtt_p95_ms
            row[f"peak_loss_{office}"] = link.peak.loss
            route = link.route or {}
            row[f"route_{office}"] = _route_text(route)
        rows.append(row)
    rows.sort(key=lambda r: r.get("rank") or 10**9)
    charts = _charts(rows, request, len(lead))
    return Sheet(
        "Summary",
        columns,
        rows,
        note=_("the decision, the candidates side by side, and charts of their scores and lines"),
        charts=charts,
        freeze_columns=2,
        title=_("Summary"),
        lead=lead,
    )


def _place(entry: RankedOffering) -> str:
    if entry.decided is None:
        return "–"  # the last of its group: nothing below it
    if entry.decided:
        return _("decided")
    return _("#{rank} could overtake").format(rank=entry.challenger_rank or entry.next_rank)


def _route_text(route: Any) -> str:
    measured = route.get("measured_class")
    claimed = route.get("claimed_line_type")
    if not measured:
        return _("no trace yet")
    if route.get("agrees") is True:
        return _("{measured}, as claimed").format(measured=measured)
    if route.get("agrees") is False:
        return _("claimed {claimed}, measured {measured}").format(claimed=claimed, measured=measured)
    return str(measured)


def _charts(rows: list[dict[str, Any]], request: SummaryRequest, lead: int) -> list[LineChart]:
    ranked = [r for r in rows if r.get("total") is not None]
    if not ranked:
        return []
    last = len(ranked) - 1
    table_end = lead + 2 + len(rows)  # the lead, a blank row, the header, the rows
    charts = [
        LineChart(
            _("Score with its bounds (worst and best case of the unknowns)"),
            "candidate",
            ("total",),
            0,
            last,
            x_title=_("score (0 to 1)"),
            kind="bar",
            errors={"total": ("below", "above")},
            anchor=(table_end + 1, 0),
            size=(560, 90 + 40 * len(ranked)),
        )
    ]
    measured = [f"{side}_p95_{office}" for office, _s in request.offices for side in ("offpeak", "peak")]
    if any(r.get(key) is not None for r in ranked for key in measured):
        charts.append(
            LineChart(
                _("p95 RTT off-peak and at peak, per candidate and office"),
                "candidate",
                tuple(measured),
                0,
                last,
                y_title=_("p95 RTT (ms)"),
                kind="column",
                anchor=(table_end + 1, 8),
                size=(640, 300),
            )
        )
    return charts
