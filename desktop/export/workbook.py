"""Assemble the comparison workbook from the store (and, once catalogs are in, the catalogs and a needs
profile)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from desktop.export.measurements import (
    MeasureOptions,
    hour_of_day_sheet,
    link_quality_sheet,
    measure,
)
from desktop.export.method import method_sheet
from desktop.export.model import Sheet, Workbook
from probes.store import Store

SHEET_NOTES = {
    "Link quality": "per region (and vantage point): peak and off-peak figures, changes with intervals, verdict",
    "Hour-of-day": "per region and local hour: RTT, loss, jitter, throughput, with a chart per region",
    "Method": "how the figures were made",
}


@dataclass(frozen=True)
class ExportRequest:
    measure: MeasureOptions = field(default_factory=MeasureOptions)
    store_path: Path | None = None


def build_workbook(
    store: Store | None, request: ExportRequest, exported_at: datetime | None = None
) -> Workbook:
    """The workbook's sheets, in order."""
    exported_at = exported_at or datetime.now(UTC)
    options = request.measure
    measurements = measure(store, options) if store is not None else None
    sheets: list[Sheet] = []
    if measurements is not None:
        sheets.append(link_quality_sheet(measurements))
        sheets.append(hour_of_day_sheet(measurements))
    sheets.append(
        method_sheet(
            exported_at=exported_at,
            store_path=request.store_path,
            period=(options.since_us, options.until_us),
            tz=options.tz,
            peak_windows=[str(w) for w in options.windows],
            vantages=measurements.vantages if measurements else [],
            confidence=options.confidence,
            thresholds=asdict(options.thresholds),
            sheets=[(s.name, SHEET_NOTES.get(s.name, "")) for s in sheets]
            + [("Method", SHEET_NOTES["Method"])],
        )
    )
    return Workbook(sheets)
