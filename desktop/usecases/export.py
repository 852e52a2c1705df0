"""Writing the comparison workbook (`linkvet export`, the Export screen): the sheets composed by
`desktop.export.build_workbook` from the result store (if there is one yet) and the catalogs, written as
one .xlsx file or a folder of .csv files, in the job's language (sheet names, headers, reasons, verdicts,
the Method sheet's words; the numbers, keys and csv file names are the same in every language). No Qt."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from desktop.i18n import _, language
from desktop.usecases.errors import WriteError
from probes.peak import DEFAULT_PEAK_WINDOWS, PeakWindow
from probes.store_location import StoreLocation, exists

if TYPE_CHECKING:  # the workbook's modules (pandas, the analysis, XlsxWriter) load when an export runs
    from catalogs.checklist import Checklist
    from catalogs.loader import CatalogSet
    from catalogs.needs import NeedsProfile
    from catalogs.scoring import Ranking, RankingMethod
    from desktop.export import ExportRequest
    from desktop.export.summary import SummaryRequest

FileFormat = Literal["xlsx", "csv"]


@dataclass(frozen=True)
class ExportJob:
    """What to export and where. With `needs` (and `catalogs`) the procurement sheets are ranked for it;
    `catalogs` alone still give the route checks the line types their regions claim."""

    out: Path  # the .xlsx file, or the folder for csv files
    file_format: FileFormat
    db_path: StoreLocation  # the result store; when no file exists there yet the measurement sheets are empty
    tz: str = "Asia/Shanghai"  # the hour-of-day sheet's time zone
    windows: Sequence[PeakWindow] = DEFAULT_PEAK_WINDOWS
    since_us: int | None = None
    until_us: int | None = None
    vantage: str | None = None  # only rounds measured from this vantage point
    catalogs: CatalogSet | None = None
    needs: NeedsProfile | None = None
    needs_path: Path | None = None
    checklist: Checklist | None = None
    weights: Mapping[str, float] = field(default_factory=dict)
    method: RankingMethod = "weighted-sum"
    # "en", "zh_CN" (`desktop.i18n.LANGUAGES`): the workbook's words; None: the language in effect (the
    # environment's, or the one `--lang` or the window chose)
    language: str | None = None
    # An evaluation's workbook (`linkvet export --eval NAME`): its candidates only (`market`: the bundled
    # offerings beside them), its needs, its offices' lines in its peak windows, ranked by `rank_evaluation`,
    # and the Summary sheet first (`summary=False` leaves it out: what the benchmark compares).
    evaluation: str | None = None
    market: bool = False
    summary: bool = True


@dataclass(frozen=True)
class ExportResult:
    written: list[Path]
    folder: Path  # where the files are (the workbook's folder, or the csv folder)
    regions: int  # regions measured (in the Link quality sheet's rows: each once, from however many vantages)
    ranked: int | None  # offerings ranked (None without a needs profile)
    sheets: list[str]  # their names (the same in every language: the csv files' names)
    titles: list[str]  # the sheets as the workbook shows them, in its language
    store_missing: bool  # no result store at `db_path` yet: nothing measured


def file_format_for(out: Path, chosen: FileFormat | None = None) -> FileFormat:
    """The format asked for, else the one `out` names: csv for a `.csv` name or an existing folder."""
    if chosen is not None:
        return chosen
    return "csv" if out.suffix.lower() == ".csv" or out.is_dir() else "xlsx"


@contextlib.contextmanager
def cyclic_gc_paused() -> Iterator[None]:
    """Python's cycle collector off for a batch job that builds millions of objects and frees them at the
    end: each full collection walks every live object (the catalogs, the ranking, the sheets' rows), and
    several run while they are built, which cost an export of 10,000 offerings a third of its time. Memory
    is still freed by reference counting as usual; the collector comes back on when the job ends (unless it
    was off already, e.g. for an outer job)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def run_export(job: ExportJob, exported_at: datetime | None = None) -> ExportResult:
    """Build the workbook and write it, in `job.language`; `WriteError` when the file or folder cannot be
    written."""
    with cyclic_gc_paused():
        if job.language is None:
            return _run_export(job, exported_at)
        with language(job.language):
            return _run_export(job, exported_at)


def _run_export(job: ExportJob, exported_at: datetime | None) -> ExportResult:
    from desktop.export import build_workbook, write_csv, write_xlsx
    from probes.store import Store

    if job.evaluation is not None:
        job = _evaluation_job(job)
    exported_at = exported_at or datetime.now(UTC)
    store_missing = not exists(job.db_path)
    if store_missing:
        workbook = build_workbook(None, _request(job, job.db_path, True), exported_at=exported_at)
    else:
        with Store(job.db_path, readonly=True) as store:
            workbook = build_workbook(store, _request(job, store.path, False), exported_at=exported_at)
    try:
        if job.file_format == "xlsx":
            write_xlsx(workbook, job.out)
            written, folder = [job.out], job.out.parent
        else:
            written, folder = write_csv(workbook, job.out), job.out
    except OSError as exc:
        raise WriteError(
            _("{file}: cannot write: {reason}").format(file=job.out, reason=exc.strerror or exc)
        ) from exc
    names = [sheet.name for sheet in workbook.sheets]
    rows = workbook.sheet("Link quality").rows if "Link quality" in names else []
    regions = len({(row["provider"], row["region"]) for row in rows})
    ranked = len(workbook.sheet("Ranking").rows) if "Ranking" in names else None
    titles = [sheet.shown_name for sheet in workbook.sheets]
    return ExportResult(written, folder, regions, ranked, names, titles, store_missing)


@dataclass(frozen=True)
class _EvaluationJob(ExportJob):
    """An export job with its evaluation read: the ranking made, the Summary's request, what to keep."""

    ranking: Ranking | None = None
    summary_request: SummaryRequest | None = None
    regions: frozenset[tuple[str, str]] | None = None
    offices: frozenset[str] | None = None


def _evaluation_job(job: ExportJob) -> ExportJob:
    """The job for an evaluation: its needs and peak windows, its candidates' catalogs (the market's with
    `market`), its ranking on its offices' lines (`rank_evaluation`, the first of its views)."""
    from catalogs.evaluation.candidates import candidate_catalogs
    from desktop.export.summary import SummaryRequest
    from desktop.report.markup import office_name
    from desktop.usecases.evaluation import load_evaluation
    from desktop.usecases.evaluation_score import rank_evaluation
    from desktop.usecases.evidence import office_names

    name = job.evaluation
    assert name is not None
    if job.catalogs is None:
        from catalogs.user import load_with_user

        job = replace(job, catalogs=load_with_user())
    assert job.catalogs is not None
    evaluation = load_evaluation(job.db_path, name)
    ranked = rank_evaluation(
        job.db_path,
        name,
        job.catalogs,
        market=job.market,
        weights=job.weights,
        method=job.method,
        checklist=job.checklist,
        since_us=job.since_us,
        until_us=job.until_us,
    )
    offices = office_names(evaluation)
    carriers = {o.name: o.carrier for o in evaluation.offices}
    summary = SummaryRequest(
        evaluation.name,
        [(c.provider, c.region, c.offering) for c in evaluation.candidates],
        [(office, office_name(office, carriers.get(office))) for office in offices],
    )
    return _EvaluationJob(
        **{f.name: getattr(job, f.name) for f in fields(ExportJob)}
        | {
            "catalogs": job.catalogs if job.market else candidate_catalogs(evaluation, job.catalogs),
            "needs": evaluation.needs,
            "windows": evaluation.peak_windows,
            "tz": evaluation.peak_windows[0].tz if evaluation.peak_windows else job.tz,
        },
        ranking=ranked.rankings[0].ranking if ranked.rankings else None,
        summary_request=summary if job.summary else None,
        regions=None if job.market else frozenset((c.provider, c.region) for c in evaluation.candidates),
        offices=frozenset(offices),
    )


def _request(job: ExportJob, store_path: StoreLocation, store_missing: bool) -> ExportRequest:
    from desktop.export import ExportRequest, MeasureOptions

    measure = MeasureOptions(
        tz=job.tz,
        windows=tuple(job.windows),
        since_us=job.since_us,
        until_us=job.until_us,
        vantage=job.vantage,
    )
    return ExportRequest(
        measure=measure,
        store_path=store_path,
        store_missing=store_missing,
        needs=job.needs,
        needs_path=job.needs_path,
        catalogs=job.catalogs,
        checklist=job.checklist,
        weights=dict(job.weights),
        method=job.method,
        ranking=job.ranking if isinstance(job, _EvaluationJob) else None,
        summary=job.summary_request if isinstance(job, _EvaluationJob) else None,
        regions=job.regions if isinstance(job, _EvaluationJob) else None,
        offices=job.offices if isinstance(job, _EvaluationJob) else None,
    )
