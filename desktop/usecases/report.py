"""The decision report (`linkvet report --eval NAME --out FILE.html|FILE.pdf`, the Export screen's report, the
agent's scheduled report): an evaluation's recommendation, candidates, pictures and method, as one
self-contained HTML file or an A4 PDF, in the job's language. No Qt.

What it reads, once: the evaluation (the store), each candidate region's line from each office
(`desktop.usecases.links.measured_link_summaries`, the same summaries `rank_evaluation` and the evidence
table take), the analysis' hour-of-day profile and day × hour cells per office, the last trace per office, the
catalogs' acceptance checks and questionnaire answers, and the sizing of the job's checkpoint. Drawing and
wording are `desktop.report`'s; the PDF is printed by Qt's PDF writer in a child process
(`desktop.pdf`, started here with QT_QPA_PLATFORM=offscreen), so that this module, the CLI and an agent
never load Qt and a renderer that fails cannot take the caller down with it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from desktop.i18n import _, current_language, language
from desktop.usecases.errors import InputError, WriteError
from probes.store_location import StoreLocation, exists, location_or_default

if TYPE_CHECKING:
    import pandas as pd

    from catalogs.evaluation.model import Candidate, Evaluation
    from catalogs.link_quality import LinkSummary
    from catalogs.loader import CatalogSet
    from catalogs.scoring import RankedOffering
    from desktop.report.model import Fact, OfficeLine, ReportData, Route, TransferSizes
    from probes.store import Store

ReportFormat = Literal["html", "pdf"]
FORMATS: tuple[ReportFormat, ...] = ("html", "pdf")
PDF_TIMEOUT_S = 120.0  # the child printing the PDF; a report of three candidates takes about a second


@dataclass(frozen=True)
class ReportJob:
    name: str  # the evaluation
    out: Path
    catalogs: CatalogSet
    db: StoreLocation | None = None
    since_us: int | None = None
    until_us: int | None = None
    language: str | None = None  # "en" | "zh_CN"; None: the language in effect


@dataclass(frozen=True)
class ReportWritten:
    path: Path
    file_format: ReportFormat
    bytes: int
    seconds: float
    recommended: str | None  # the recommended candidate's label (None: nothing passes every gate)
    decided: bool | None
    measured: bool  # anything measured at all
    summary: str = ""  # a few lines of Markdown in the report's language (what a chat message says)


def report_format(out: Path) -> ReportFormat:
    """html or pdf, from the file's name; `InputError` for any other."""
    suffix = out.suffix.lower().lstrip(".")
    if suffix in ("html", "htm"):
        return "html"
    if suffix == "pdf":
        return "pdf"
    raise InputError(
        _("{file}: a report's name must end in .html or .pdf (the format it is written in)").format(file=out)
    )


def write_report(job: ReportJob, made_at: datetime | None = None) -> ReportWritten:
    """Gather the evaluation's report and write it as HTML or PDF (its format from `job.out`), in
    `job.language`; `WriteError` when the file cannot be written or the PDF printer is missing."""
    file_format = report_format(job.out)
    started = time.perf_counter()
    with language(job.language or current_language()):
        data = gather_report(job, made_at)
        from desktop.report.html import plain_summary, render_html

        html = render_html(data)
        summary = plain_summary(data)
    if file_format == "html":
        from desktop.usecases.files import write_text

        write_text(job.out, html)
    else:
        print_pdf(html, job.out, title=_report_title(data))
    winner = _winner(data)
    return ReportWritten(
        job.out,
        file_format,
        job.out.stat().st_size,
        time.perf_counter() - started,
        winner.label if winner is not None else None,
        winner.decided if winner is not None else None,
        data.measured,
        summary,
    )


def _report_title(data: ReportData) -> str:
    return _("linkvet decision report: {evaluation}").format(evaluation=data.evaluation.name)


def _winner(data: ReportData) -> RankedOffering | None:
    if not data.ranking.rankings:
        return None
    return next((e for e in data.ranking.rankings[0].ranking.entries if e.eligible), None)


# -- gathering ---------------------------------------------------------------------------------------------


def gather_report(job: ReportJob, made_at: datetime | None = None) -> ReportData:
    """Everything the report shows, read once from the store and the catalogs (words in the current
    language)."""
    from catalogs.evaluation.candidates import claimed_line_type
    from desktop.report.model import CandidateReport, ReportData
    from desktop.usecases.evaluation import load_evaluation
    from desktop.usecases.evaluation_score import rank_evaluation
    from desktop.usecases.evidence import evidence_table, office_names

    evaluation = load_evaluation(job.db, job.name)
    offices = office_names(evaluation)
    location = location_or_default(job.db)
    tz = evaluation.peak_windows[0].tz if evaluation.peak_windows else "Asia/Shanghai"
    measured = _Measured.nothing()
    if exists(location):
        from probes.store import Store

        with Store(location, readonly=True) as store:
            measured = _read_store(store, evaluation, job, offices, tz)
    ranked = rank_evaluation(
        job.db,
        job.name,
        job.catalogs,
        summaries=measured.summaries,
        since_us=job.since_us,
        until_us=job.until_us,
    )
    evidence = evidence_table(job.db, job.name, job.catalogs, summaries=measured.summaries)
    entries = ranked.rankings[0].ranking.entries if ranked.rankings else ()
    candidates = []
    for candidate, row in zip(evaluation.candidates, evidence.candidates, strict=True):
        entry = _entry_of(candidate, entries)
        lines = tuple(_office_line(evaluation, candidate, office, measured) for office in offices)
        catalog = job.catalogs.provider(candidate.provider)
        candidates.append(
            CandidateReport(
                candidate,
                row,
                entry,
                lines,
                claimed_line_type(candidate, job.catalogs),
                tuple(entry.acceptance_checks) if entry is not None else (),
                _answers(catalog, candidate),
            )
        )
    return ReportData(
        evaluation=evaluation,
        ranking=ranked,
        evidence=evidence,
        candidates=tuple(candidates),
        sizes=transfer_sizes(evaluation),
        made_at=made_at or datetime.now(UTC),
        store=str(location),
        since_us=job.since_us,
        until_us=job.until_us,
        tz=tz,
        peak_hours=peak_hours(evaluation, tz),
        backends=measured.backends,
        commands=reproducing_commands(evaluation, job),
        language=current_language(),
    )


@dataclass(frozen=True)
class _Measured:
    summaries: list[LinkSummary]
    profiles: dict[str, pd.DataFrame]  # office → hour_of_day rows of every region it measured
    evenings: dict[str, pd.DataFrame]  # office → day_hour_matrix rows inside the peak hours
    routes: dict[tuple[str, str, str], Route]  # (provider, region, office) → its last trace
    backends: list[tuple[str, int]]

    @classmethod
    def nothing(cls) -> _Measured:
        return cls([], {}, {}, {}, [])


def _read_store(
    store: Store, evaluation: Evaluation, job: ReportJob, offices: Sequence[str], tz: str
) -> _Measured:
    from desktop.usecases.links import measured_link_summaries
    from probes.analysis import Scope, day_hour_matrix, hour_of_day
    from probes.vantage import THIS_MACHINE

    regions = sorted({(c.provider, c.region) for c in evaluation.candidates})
    summaries: list[LinkSummary] = []
    for provider, region in regions:
        scope = Scope(provider=provider, region=region, since_us=job.since_us, until_us=job.until_us)
        summaries += measured_link_summaries(store, scope, evaluation.peak_windows, job.catalogs)
    summaries = [replace(s, vantage=s.vantage or THIS_MACHINE) for s in summaries]
    hours = set(peak_hours(evaluation, tz))
    wanted = set(regions)
    profiles: dict[str, pd.DataFrame] = {}
    evenings: dict[str, pd.DataFrame] = {}
    routes: dict[tuple[str, str, str], Route] = {}
    for office in offices:
        if not store.series(vantage=office):
            continue
        scope = Scope(by="region", vantage=office, since_us=job.since_us, until_us=job.until_us)
        profiles[office] = _only(hour_of_day(store, scope, tz), wanted)
        matrix = _only(day_hour_matrix(store, scope, tz), wanted)
        evenings[office] = (
            matrix[matrix["hour"].isin(hours)].reset_index(drop=True) if len(matrix) else matrix
        )
        for provider, region in regions:
            route = _last_route(store, provider, region, office, job)
            if route is not None:
                routes[(provider, region, office)] = route
    backends = store.timed_by(since_us=job.since_us, until_us=job.until_us)
    return _Measured(summaries, profiles, evenings, routes, backends)


def _only(frame: pd.DataFrame, regions: set[tuple[str, str]]) -> pd.DataFrame:
    if frame.empty:
        return frame
    keys = list(zip(frame["provider"].astype(str), frame["region"].astype(str), strict=True))
    return frame[[k in regions for k in keys]].reset_index(drop=True)


def _last_route(store: Store, provider: str, region: str, office: str, job: ReportJob) -> Route | None:
    from desktop.report.model import Hop, Route
    from probes.routes.table import load_network_table

    traces = store.traces(
        provider=provider, region=region, vantage=office, since_us=job.since_us, until_us=job.until_us
    )
    if not traces:
        return None
    last = traces[-1]
    table = load_network_table()
    hops = []
    for ttl, addresses in last.hops:
        networks = []
        for address in addresses:
            match = table.lookup(address)
            networks.append(match.describe() if match is not None else "")
        hops.append(Hop(ttl, tuple(addresses), tuple(networks)))
    return Route(last.started_us, last.address or last.host or last.name, last.route_class, tuple(hops))


def _office_line(
    evaluation: Evaluation, candidate: Candidate, office: str, measured: _Measured
) -> OfficeLine:
    from desktop.report.model import OfficeLine

    summary = next(
        (
            s
            for s in measured.summaries
            if s.provider == candidate.provider and s.region == candidate.region and s.vantage == office
        ),
        None,
    )
    known = evaluation.office(office)
    return OfficeLine(
        office,
        known.carrier if known is not None else None,
        summary,
        _region_rows(measured.profiles.get(office), candidate),
        _region_rows(measured.evenings.get(office), candidate),
        measured.routes.get((candidate.provider, candidate.region, office)),
    )


def _region_rows(frame: pd.DataFrame | None, candidate: Candidate) -> pd.DataFrame:
    import pandas as pd

    if frame is None or frame.empty:
        return pd.DataFrame()
    mine = (frame["provider"] == candidate.provider) & (frame["region"] == candidate.region)
    return frame[mine].reset_index(drop=True)


def _entry_of(candidate: Candidate, entries: Sequence[RankedOffering]) -> RankedOffering | None:
    """The candidate's best-placed entry (its offering, or the best of the provider's in the region)."""
    return next(
        (
            e
            for e in entries
            if e.provider == candidate.provider
            and e.region == candidate.region
            and (candidate.offering is None or e.offering == candidate.offering)
        ),
        None,
    )


def _answers(catalog: object, candidate: Candidate) -> tuple[Fact, ...]:
    """The facts the vendor's questionnaire answers gave (provider, service, the region, the offering)."""
    from desktop.report.model import Fact
    from desktop.usecases.catalog_facts import fact_lines
    from desktop.usecases.questionnaire_answers import is_questionnaire_source

    if catalog is None:
        return ()
    found = []
    for line in fact_lines(catalog, None):  # type: ignore[arg-type]
        if not is_questionnaire_source(line.provenance.source):
            continue
        if line.key.startswith("region[") and not line.key.startswith(f"region[{candidate.region}]"):
            continue
        if (
            line.key.startswith("offering[")
            and candidate.offering is not None
            and not line.key.startswith(f"offering[{candidate.offering}]")
        ):
            continue
        value = ", ".join(map(str, line.value)) if isinstance(line.value, list | tuple) else str(line.value)
        found.append(Fact(line.key, value, line.provenance.source or "", line.provenance.as_of))
    return tuple(found)


def transfer_sizes(evaluation: Evaluation) -> TransferSizes:
    """The dataset (as the needs give it), a checkpoint and the weights, in GB (`catalogs.sizing`)."""
    from catalogs.sizing import checkpoint_gb, weights_gb
    from desktop.report.model import TransferSizes

    needs = evaluation.needs
    return TransferSizes(
        needs.location.dataset_gb,
        checkpoint_gb(needs),
        weights_gb(needs.model.params, needs.training.precision),
    )


def peak_hours(evaluation: Evaluation, tz: str) -> tuple[int, ...]:
    """The local hours (0-23 in `tz`) any peak window of that zone touches, in order."""
    hours: set[int] = set()
    for window in evaluation.peak_windows:
        if window.tz != tz:
            continue
        start = window.start.hour * 60 + window.start.minute
        end = window.end.hour * 60 + window.end.minute
        if end <= start:
            end += 24 * 60
        minute = start
        while minute < end:
            hours.add((minute // 60) % 24)
            minute = (minute // 60 + 1) * 60
    return tuple(sorted(hours))


def reproducing_commands(evaluation: Evaluation, job: ReportJob) -> list[tuple[str, str]]:
    """(what it reproduces, the command): every figure of the report comes from one of these."""
    from probes.timestamps import iso_second_utc

    period = ""
    if job.since_us is not None:
        period += f" --since {iso_second_utc(job.since_us // 1_000_000)}"
    if job.until_us is not None:
        period += f" --until {iso_second_utc(job.until_us // 1_000_000)}"
    db = f" --db {location_or_default(job.db)}" if job.db is not None else ""
    name = evaluation.name
    lang = f" --lang {current_language()}"
    rows = [
        (_("this report"), f"linkvet report --eval {name} --out {job.out.name}{period}{lang}{db}"),
        (_("the ranking, its bounds and the winner-flip band"), f"linkvet score --eval {name} --json{db}"),
        (_("the evidence table"), f"linkvet eval show {name} --json{db}"),
        (
            _("the workbook with the same summary"),
            f"linkvet export --eval {name} --out {name}.xlsx{period}{db}",
        ),
        (_("the raw evidence behind it"), f"linkvet report --eval {name} --evidence {name}.zip{period}{db}"),
    ]
    for candidate in evaluation.candidates:
        rows.append(
            (
                _("{candidate}: hour-of-day and peak figures").format(candidate=candidate.label),
                f"linkvet history --provider {candidate.provider} --region {candidate.region}{period}{db}",
            )
        )
    return rows


# -- the PDF ---------------------------------------------------------------------------------------------


def print_pdf(html: str, out: Path, *, title: str) -> None:
    """Print `html` to the PDF `out` with Qt's PDF writer, in a child process (`python -m desktop.pdf`) that
    runs offscreen; `WriteError` when it cannot (no PySide6, a file that cannot be written, a failed print)."""
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        handle, partial = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".pdf", dir=out.parent)
        os.close(handle)
    except OSError as exc:
        raise WriteError(
            _("{file}: cannot write: {reason}").format(file=out, reason=exc.strerror or exc)
        ) from exc
    source = Path(partial).with_suffix(".html")
    try:
        source.write_text(html, encoding="utf-8")
        returncode, reason = _run_printer(source, Path(partial), title, out)
        if returncode != 0:
            raise WriteError(_("{file}: cannot print the PDF: {reason}").format(file=out, reason=reason))
        os.replace(partial, out)
    except OSError as exc:
        raise WriteError(
            _("{file}: cannot write: {reason}").format(file=out, reason=exc.strerror or exc)
        ) from exc
    finally:
        source.unlink(missing_ok=True)
        Path(partial).unlink(missing_ok=True)


def _run_printer(source: Path, partial: Path, title: str, out: Path) -> tuple[int, str]:
    """Run `desktop.pdf` on `source`: a child Python with this checkout's packages first on its path, offscreen
    and without a display; (exit code, the last line it said). A frozen application (the installers) has no
    Python to start: it prints in its own process, where its Qt is already."""
    arguments = [str(source), str(partial), "--title", title]
    if getattr(sys, "frozen", False):
        from desktop.pdf.__main__ import main as print_in_process

        return print_in_process(arguments), "see the log"
    import desktop

    root = str(Path(desktop.__file__).resolve().parent.parent)
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    env.pop("DISPLAY", None)
    env.pop("WAYLAND_DISPLAY", None)
    env["PYTHONPATH"] = os.pathsep.join([root, *filter(None, [env.get("PYTHONPATH")])])
    try:
        done = subprocess.run(
            [sys.executable, "-m", "desktop.pdf", *arguments],
            env=env,
            capture_output=True,
            text=True,
            timeout=PDF_TIMEOUT_S,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        raise WriteError(
            _("{file}: the PDF printer did not finish in {seconds:.0f} s").format(
                file=out, seconds=PDF_TIMEOUT_S
            )
        ) from exc
    return done.returncode, (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1]
