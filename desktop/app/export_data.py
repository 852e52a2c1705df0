"""The Export screen's job, without Qt: the comparison workbook `linkvet export` writes
(`desktop.export.build_workbook`, then `write_xlsx` or `write_csv`), run by the screen in a worker."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from probes.peak import PeakWindow

if TYPE_CHECKING:  # catalogs.scoring loads numpy: for the annotation only
    from catalogs.scoring import RankingMethod


@dataclass(frozen=True)
class ExportJob:
    out: Path  # the .xlsx file, or the folder for csv files
    file_format: Literal["xlsx", "csv"]
    db_path: Path
    tz: str
    windows: Sequence[PeakWindow]
    since_us: int | None = None
    until_us: int | None = None
    vantage: str | None = None
    needs: Mapping[str, Any] | None = None  # a needs profile's plain data: with it, the procurement sheets
    weights: Mapping[str, float] = field(default_factory=dict)
    method: RankingMethod = "weighted-sum"


@dataclass(frozen=True)
class ExportResult:
    written: list[Path]
    folder: Path
    regions: int  # regions with measurements in the Link quality sheet
    ranked: int | None  # offerings ranked (None without a needs profile)
    sheets: list[str]
    notes: list[str]


def run_export(job: ExportJob) -> ExportResult:
    """Build the workbook from the store (if there is one yet) and the catalogs, and write it."""
    from catalogs.loader import load_catalogs
    from catalogs.needs import validate_needs
    from desktop.export import ExportRequest, MeasureOptions, build_workbook, write_csv, write_xlsx
    from probes.store import Store

    notes: list[str] = []
    options = MeasureOptions(
        tz=job.tz,
        windows=tuple(job.windows),
        since_us=job.since_us,
        until_us=job.until_us,
        vantage=job.vantage,
    )
    procurement: dict[str, Any] = {}
    if job.needs is not None:
        catalogs = load_catalogs()
        notes += [f"catalog skipped: {error}" for error in catalogs.errors]
        procurement = {
            "needs": validate_needs(dict(job.needs)),
            "catalogs": catalogs,
            "weights": dict(job.weights),
            "method": job.method,
        }
    if job.db_path.exists():
        with Store(job.db_path, readonly=True) as store:
            request = ExportRequest(measure=options, store_path=store.path, **procurement)
            workbook = build_workbook(store, request, exported_at=datetime.now(UTC))
    else:
        notes.append(f"no measurements yet ({job.db_path} does not exist): link-quality sheets are empty")
        workbook = build_workbook(
            None, ExportRequest(measure=options, **procurement), exported_at=datetime.now(UTC)
        )
    if job.file_format == "xlsx":
        write_xlsx(workbook, job.out)
        written, folder = [job.out], job.out.parent
    else:
        written, folder = write_csv(workbook, job.out), job.out
    names = [sheet.name for sheet in workbook.sheets]
    regions = len(workbook.sheet("Link quality").rows) if "Link quality" in names else 0
    ranked = len(workbook.sheet("Ranking").rows) if "Ranking" in names else None
    return ExportResult(written, folder, regions, ranked, names, notes)
