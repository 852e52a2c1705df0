"""Assemble the comparison workbook: the measurement sheets from the store's analysis, and with a needs
profile the procurement sheets from the catalogs and the ranking that uses the measured line quality."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from catalogs.checklist import Checklist, default_checklist
from catalogs.link_quality import catalog_claims, to_link_summaries
from catalogs.loader import CatalogSet
from catalogs.needs import NeedsProfile
from catalogs.scoring import Ranking, RankingMethod, method_title, order_title, rank_offerings
from desktop.export.acceptance import acceptance_sheet
from desktop.export.measurements import (
    Measurements,
    MeasureOptions,
    hour_of_day_sheet,
    link_quality_sheet,
    measure,
)
from desktop.export.method import method_sheet
from desktop.export.model import Sheet, Workbook
from desktop.export.procurement import (
    Procurement,
    offerings_sheet,
    ranking_sheet,
    score_breakdown_sheet,
)
from desktop.export.sizing import sizing_sheet
from desktop.export.summary import SummaryRequest, summary_sheet
from desktop.export.vantages import vantage_sheet
from desktop.i18n import N_, _
from probes.store import UNRECORDED, Store
from probes.store_location import StoreLocation

SHEET_NOTES = {  # by the sheet's `name`; shown through `_`
    "Summary": N_("the decision, the candidates side by side, and charts of their scores and lines"),
    "Ranking": N_("one row per offering in each region: gates, score, rank, price and a one-line reason"),
    "Score breakdown": N_(
        "every checklist item for every offering: gates and weighted scores (weights in headers)"
    ),
    "Link quality": N_(
        "per region (and vantage point): peak and off-peak figures, changes with intervals, verdict"
    ),
    "Hour-of-day": N_("per region and local hour: RTT, loss, jitter, throughput, with a chart per region"),
    "GPU offerings": N_("the catalog rows used, with source and as-of date"),
    "Acceptance checks": N_(
        "every check a rented server answered for (linkvet accept import): claimed, measured, verdict"
    ),
    "Sizing": N_("the needs profile and what sizing derived on each GPU configuration offered"),
    "Method": N_("how the figures were made"),
}


@dataclass(frozen=True)
class ExportRequest:
    measure: MeasureOptions = field(default_factory=MeasureOptions)
    store_path: StoreLocation | None = None
    store_missing: bool = False  # no result store at store_path yet: nothing measured (sheets written empty)
    needs: NeedsProfile | None = None  # with catalogs: the procurement sheets
    needs_path: Path | None = None
    catalogs: CatalogSet | None = None  # also the line types regions claim, for the route checks
    checklist: Checklist | None = None
    weights: Mapping[str, float] = field(default_factory=dict)
    method: RankingMethod = "weighted-sum"
    # An evaluation's workbook: its ranking (made by the caller, on its offices' lines), the Summary sheet
    # that opens it, and only its candidates' regions measured from its offices on the measurement sheets.
    ranking: Ranking | None = None
    summary: SummaryRequest | None = None
    regions: frozenset[tuple[str, str]] | None = None
    offices: frozenset[str] | None = None


def build_workbook(
    store: Store | None, request: ExportRequest, exported_at: datetime | None = None
) -> Workbook:
    """The workbook's sheets, in order: Summary (an evaluation's), Ranking, Score breakdown (with a needs profile), Link quality,
    Hour-of-day (with a store), Vantage points (when a region was measured from two offices), GPU offerings,
    Sizing (with a needs profile), Acceptance checks (when a catalog holds acceptance results), Method."""
    exported_at = exported_at or datetime.now(UTC)
    options = request.measure
    if store is not None:
        claims = catalog_claims(request.catalogs) if request.catalogs is not None else None
        measurements: Measurements | None = measure(store, options, claims=claims)
        if measurements is not None and (request.regions is not None or request.offices is not None):
            measurements = measurements.only(request.regions, request.offices)
    else:
        measurements = Measurements.nothing(options) if request.store_missing else None
    procurement = None
    if request.needs is not None and request.catalogs is not None:
        checklist = request.checklist or default_checklist()
        if request.ranking is not None:
            ranking = request.ranking
        else:
            summaries = to_link_summaries(measurements.links()) if measurements else []
            ranking = rank_offerings(
                request.needs,
                request.catalogs,
                summaries,
                checklist=checklist,
                weights=dict(request.weights),
                method=request.method,
            )
        procurement = Procurement(request.needs, request.needs_path, request.catalogs, checklist, ranking)
    sheets: list[Sheet] = []
    if procurement is not None and request.summary is not None:
        sheets.append(summary_sheet(request.summary, procurement.ranking, measurements))
    if procurement is not None:
        sheets += [ranking_sheet(procurement), score_breakdown_sheet(procurement)]
    if measurements is not None:
        sheets += [link_quality_sheet(measurements), hour_of_day_sheet(measurements)]
        offices = vantage_sheet(measurements)
        if offices is not None:
            sheets.append(offices)
    if procurement is not None:
        sheets += [offerings_sheet(procurement.catalogs), sizing_sheet(procurement)]
        checks = acceptance_sheet(procurement.catalogs)
        if checks is not None:
            sheets.append(checks)
    sheets.append(_method(request, measurements, procurement, exported_at, sheets))
    return Workbook(sheets)


def _method(
    request: ExportRequest,
    measurements: Measurements | None,
    procurement: Procurement | None,
    exported_at: datetime,
    before: list[Sheet],
) -> Sheet:
    options = request.measure
    extra: list[tuple[str, str, str]] = []
    if request.store_missing:
        extra.append(
            (
                _("Measurements"),
                _("none yet"),
                _("no result store at {path} yet: nothing measured").format(path=request.store_path),
            )
        )
    if measurements is not None and measurements.timed_by:
        unrecorded = _("not recorded")
        extra.append(
            (
                _("Probe backends"),
                _(", ").join(
                    _("{label}: {count}").format(
                        label=unrecorded if label == UNRECORDED else label, count=count
                    )
                    for label, count in measurements.timed_by
                ),
                _(
                    "results per probe backend and who timed their RTTs (kernel, kernel-rx, user); see the "
                    "README's platform table for each one's precision"
                ),
            )
        )
    if procurement is not None:
        ranking = procurement.ranking
        total = sum(ranking.weights.values()) or 1.0
        extra.append((_("Needs profile"), f"{procurement.needs.name}", str(procurement.needs_path or "")))
        extra.append(
            (
                _("Scoring method"),
                method_title(ranking.method),
                _("gates first, then the weighted criteria"),
            )
        )
        extra.append(
            (
                _("Ranking order"),
                order_title(ranking.ordered_by),
                _("the Ranking sheet shows this figure right after the rank"),
            )
        )
        checklist = procurement.checklist
        for criterion, weight in ranking.weights.items():
            extra.append(
                (
                    _("Weight: {criterion}").format(criterion=checklist.shown_title(criterion)),
                    f"{weight:g} ({weight / total:.1%})",
                    checklist.get(criterion).shown_what,
                )
            )
        extra.append(
            (
                _("Unknown facts count as"),
                f"{procurement.checklist.unknown_score:g}",
                _("score of a criterion not known"),
            )
        )
        extra.append(
            (_("Ranking sensitivity"), ranking.sensitivity.describe(), _("each weight moved ±20% alone"))
        )
        extra.extend((_("Ranking note"), note, "") for note in ranking.notes)
        for catalog in procurement.catalogs.providers:
            provider = catalog.provider
            extra.append(
                (
                    _("Catalog: {provider}").format(provider=provider.id),
                    provider.name,
                    _("as of {as_of}; {file}")
                    .format(as_of=provider.as_of or "?", file=catalog.path or "")
                    .strip(),
                )
            )
        for error in procurement.catalogs.errors:
            extra.append((_("Catalog skipped"), str(error), ""))
    return method_sheet(
        exported_at=exported_at,
        store_path=request.store_path,
        period=(options.since_us, options.until_us),
        tz=options.tz,
        peak_windows=[str(w) for w in options.windows],
        vantages=measurements.vantages if measurements else [],
        confidence=options.confidence,
        thresholds=asdict(options.thresholds),
        sheets=[
            *((s.shown_name, _(SHEET_NOTES[s.name]) if s.name in SHEET_NOTES else "") for s in before),
            (_("Method"), _(SHEET_NOTES["Method"])),
        ],
        extra=extra,
    )
