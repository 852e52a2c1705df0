"""`linkvet export`: the comparison workbook (xlsx, or a folder of csv files) from the result store."""

from __future__ import annotations

import argparse
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from catalogs.scoring import RANKING_METHODS
from desktop.cli._common import (
    EXIT_ENVIRONMENT,
    EXIT_OK,
    CliError,
    add_db_option,
    missing_store,
    open_store,
)
from desktop.cli.catalog import add_catalog_option, load_or_warn
from desktop.cli.history import parse_when
from desktop.cli.score import weight_option


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "export",
        help="write the comparison spreadsheet (xlsx or csv)",
        description="Write the comparison workbook: link quality per region at peak and off-peak hours, "
        "hour-of-day profiles and the method used, as one .xlsx file or a folder of .csv files.",
    )
    p.add_argument(
        "--needs", type=Path, metavar="FILE", help="training-needs profile (TOML) to size and rank by"
    )
    p.add_argument(
        "--out",
        type=Path,
        required=True,
        metavar="PATH",
        help="the .xlsx file, or the csv folder (in a folder that exists)",
    )
    p.add_argument("--format", choices=["xlsx", "csv"], help="file format (default: from --out, else xlsx)")
    p.add_argument(
        "--since",
        type=parse_when,
        help="measurements from this time: ISO date/time (UTC unless it says) or an age such as 7d "
        "(default: all stored)",
    )
    p.add_argument("--until", type=parse_when, help="measurements before this time (same forms as --since)")
    p.add_argument(
        "--tz", default="Asia/Shanghai", help="time zone of the hour-of-day sheet (default Asia/Shanghai)"
    )
    p.add_argument(
        "--peak",
        action="append",
        metavar="WINDOW",
        help='peak window, e.g. "20:00-23:00 Asia/Shanghai" (repeat for several; default that one)',
    )
    p.add_argument("--vantage", help="only rounds measured from this vantage point")
    p.add_argument("--checklist", type=Path, metavar="FILE", help="checklist (default: the bundled one)")
    p.add_argument(
        "--weight", type=weight_option, action="append", default=[], metavar="ID=N", help="override a weight"
    )
    p.add_argument("--method", choices=RANKING_METHODS, default="weighted-sum", help="ranking method")
    add_catalog_option(p)
    p.add_argument("--force", action="store_true", help="replace --out if it exists")
    add_db_option(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from catalogs.errors import CatalogError
    from desktop.export import ExportRequest, MeasureOptions, build_workbook, write_csv, write_xlsx
    from probes.analysis import ScopeError, TimeZoneError
    from probes.analysis.clock import check_zone
    from probes.peak import DEFAULT_PEAK_WINDOWS, PeakWindow, PeakWindowError
    from probes.routes import RouteError

    file_format = args.format or ("csv" if args.out.suffix.lower() == ".csv" or args.out.is_dir() else "xlsx")
    if file_format == "xlsx" and args.out.suffix.lower() != ".xlsx":
        raise CliError(f"{args.out}: an xlsx workbook's name must end in .xlsx (or use --format csv)")
    _check_out_folder(args.out, file_format)
    if args.out.exists() and not args.force and (file_format == "xlsx" or any(args.out.iterdir())):
        raise CliError(f"{args.out} exists; use --force to replace it")
    try:
        windows = tuple(PeakWindow.parse(w) for w in args.peak) if args.peak else DEFAULT_PEAK_WINDOWS
        tz = check_zone(args.tz)
    except (PeakWindowError, TimeZoneError) as exc:
        raise CliError(str(exc)) from exc
    since_us = None if args.since is None else int(args.since.timestamp() * 1_000_000)
    until_us = None if args.until is None else int(args.until.timestamp() * 1_000_000)
    if since_us is not None and until_us is not None and since_us >= until_us:
        raise CliError("--since must be before --until")
    if args.needs is not None and not args.needs.is_file():
        raise CliError(f"{args.needs}: no such needs profile")
    options = MeasureOptions(
        tz=tz, windows=windows, since_us=since_us, until_us=until_us, vantage=args.vantage
    )
    procurement = _procurement_inputs(args)
    path = missing_store(args.db)
    try:
        if path is not None:  # nothing measured yet: the measurement sheets are written empty
            request = ExportRequest(measure=options, store_path=path, store_missing=True, **procurement)
            workbook = build_workbook(None, request, exported_at=datetime.now(UTC))
        else:
            with open_store(args.db, readonly=True) as store:
                request = ExportRequest(measure=options, store_path=store.path, **procurement)
                workbook = build_workbook(store, request, exported_at=datetime.now(UTC))
    except ScopeError as exc:
        raise CliError(str(exc)) from exc
    except (RouteError, CatalogError) as exc:  # a broken route-networks file, a bad weight
        raise CliError(str(exc)) from exc
    try:
        if file_format == "xlsx":
            write_xlsx(workbook, args.out)
            written = [args.out]
        else:
            written = write_csv(workbook, args.out)
    except OSError as exc:
        raise CliError(f"{args.out}: cannot write: {exc.strerror or exc}", EXIT_ENVIRONMENT) from exc
    regions = len(workbook.sheet("Link quality").rows)
    ranked = f", {len(workbook.sheet('Ranking').rows)} offerings ranked" if args.needs is not None else ""
    what = str(args.out) if file_format == "xlsx" else f"{len(written)} csv files to {args.out}"
    print(f"wrote {what} ({regions} regions measured{ranked})")
    return EXIT_OK


def _check_out_folder(out: Path, file_format: str) -> None:
    """`--out` must name a place in an existing folder: export creates the csv folder itself, never the
    folders above it, so a mistyped path is reported rather than silently made."""
    folder = out.parent
    if folder.exists() and not folder.is_dir():
        raise CliError(f"{out}: {folder} is a file, not a folder")
    if not folder.exists():
        raise CliError(
            f"{out}: the folder {folder} does not exist (create it first, or choose another --out)"
        )
    if file_format == "csv" and out.exists() and not out.is_dir():
        raise CliError(f"{out} is a file: --format csv writes a folder of .csv files, so name a folder")
    if file_format == "xlsx" and out.is_dir():
        raise CliError(f"{out} is a folder: name the .xlsx file to write")


def _procurement_inputs(args: argparse.Namespace) -> dict[str, Any]:
    """The needs profile, catalogs and checklist for the procurement sheets (none without --needs); the
    catalogs always, for the line types their regions claim (the route checks in Link quality)."""
    from catalogs.checklist import load_checklist
    from catalogs.errors import CatalogError
    from catalogs.needs import load_needs

    if args.needs is None:
        if args.weight or args.checklist:
            raise CliError("--checklist and --weight need --needs FILE (the profile to rank for)")
        return {"catalogs": load_or_warn(args.catalogs)}
    try:
        needs = load_needs(args.needs)
        checklist = load_checklist(args.checklist) if args.checklist else None
    except CatalogError as exc:
        raise CliError(str(exc)) from exc
    return {
        "needs": needs,
        "needs_path": args.needs,
        "catalogs": load_or_warn(args.catalogs),
        "checklist": checklist,
        "weights": dict(args.weight),
        "method": args.method,
    }
