"""`linkvet export`: the comparison workbook (xlsx, or a folder of csv files) from the result store."""

from __future__ import annotations

import argparse
from pathlib import Path

from catalogs.scoring import RANKING_METHODS
from desktop.cli._common import add_db_option, path_given, reader_store, time_flag
from desktop.cli._links import epoch_us, peak_windows
from desktop.cli.catalog import add_catalog_option, load_or_warn
from desktop.cli.errors import EXIT_OK, UsageError
from desktop.cli.score import weight_option
from desktop.i18n import _


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "export",
        help=_("write the comparison spreadsheet (xlsx or csv)"),
        description=_(
            "Write the comparison workbook: link quality per region at peak and off-peak hours, "
            "hour-of-day profiles and the method used, as one .xlsx file or a folder of .csv files."
        ),
    )
    p.add_argument(
        "--needs", type=Path, metavar="FILE", help=_("training-needs profile (TOML) to size and rank by")
    )
    p.add_argument(
        "--eval",
        metavar="NAME",
        help=_(
            "an evaluation's workbook: a Summary sheet first (the decision, its candidates, charts), only its "
            "candidates, its needs, its offices' lines in its peak windows"
        ),
    )
    p.add_argument(
        "--market",
        action="store_true",
        help=_("with --eval: rank every bundled offering beside the candidates (their scores do not change)"),
    )
    p.add_argument(
        "--out",
        type=path_given,
        required=True,
        metavar="PATH",
        help=_("the .xlsx file, or the csv folder (in a folder that exists)"),
    )
    p.add_argument(
        "--format", choices=["xlsx", "csv"], help=_("file format (default: from --out, else xlsx)")
    )
    p.add_argument(
        "--since",
        type=time_flag,
        help=_(
            "measurements from this time: ISO date/time (UTC unless it says) or an age such as 7d "
            "(default: all stored)"
        ),
    )
    p.add_argument("--until", type=time_flag, help=_("measurements before this time (same forms as --since)"))
    p.add_argument(
        "--tz", default="Asia/Shanghai", help=_("time zone of the hour-of-day sheet (default Asia/Shanghai)")
    )
    p.add_argument(
        "--peak",
        action="append",
        metavar="WINDOW",
        help=_('peak window, e.g. "20:00-23:00 Asia/Shanghai" (repeat for several; default that one)'),
    )
    p.add_argument("--vantage", help=_("only rounds measured from this vantage point"))
    p.add_argument("--checklist", type=Path, metavar="FILE", help=_("checklist (default: the bundled one)"))
    p.add_argument(
        "--weight",
        type=weight_option,
        action="append",
        default=[],
        metavar="ID=N",
        help=_("override a weight"),
    )
    p.add_argument("--method", choices=RANKING_METHODS, default="weighted-sum", help=_("ranking method"))
    add_catalog_option(p)
    p.add_argument("--force", action="store_true", help=_("replace --out if it exists"))
    add_db_option(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from catalogs.checklist import load_checklist
    from catalogs.needs import load_needs
    from desktop.usecases.export import ExportJob, cyclic_gc_paused, file_format_for, run_export
    from probes.analysis.clock import check_zone

    file_format = file_format_for(args.out, args.format)
    if file_format == "xlsx" and args.out.suffix.lower() != ".xlsx":
        raise UsageError(
            _("{file}: an xlsx workbook's name must end in .xlsx (or use --format csv)").format(file=args.out)
        )
    _check_out_folder(args.out, file_format)
    if args.out.exists() and not args.force and (file_format == "xlsx" or any(args.out.iterdir())):
        raise UsageError(_("{file} exists; use --force to replace it").format(file=args.out))
    if args.eval is not None:
        if args.needs is not None or args.peak or args.vantage:
            raise UsageError(
                _(
                    "--eval: the evaluation's needs, peak windows and offices count (not --needs, --peak, --vantage)"
                )
            )
    elif args.market:
        raise UsageError(_("--market goes with --eval"))
    windows = peak_windows(args.peak)
    tz = check_zone(args.tz)
    since_us, until_us = epoch_us(args.since), epoch_us(args.until)
    if since_us is not None and until_us is not None and since_us >= until_us:
        raise UsageError(_("--since must be before --until"))
    if args.needs is None and args.eval is None:
        if args.weight or args.checklist:
            raise UsageError(_("--checklist and --weight need --needs FILE (the profile to rank for)"))
    elif (
        args.needs is not None and not args.needs.exists()
    ):  # a folder, a FIFO or a device: load_needs says which
        raise UsageError(_("{file}: no such needs profile").format(file=args.needs))
    needs = load_needs(args.needs) if args.needs is not None else None
    checklist = load_checklist(args.checklist) if args.checklist else None
    # The catalogs always: the line types their regions claim are what the route checks check.
    with cyclic_gc_paused():  # as the export itself: loading builds the catalogs' objects in bulk
        catalogs = load_or_warn(args.catalogs, args.user_catalogs, args.db)
    job = ExportJob(
        out=args.out,
        file_format=file_format,
        db_path=reader_store(args.db),
        tz=tz,
        windows=windows,
        since_us=since_us,
        until_us=until_us,
        vantage=args.vantage,
        catalogs=catalogs,
        needs=needs,
        needs_path=args.needs,
        checklist=checklist,
        weights=dict(args.weight),
        method=args.method,
        language=getattr(args, "lang", None),
        evaluation=args.eval,
        market=args.market,
    )
    result = run_export(job)
    words = {
        "out": args.out,
        "files": len(result.written),
        "regions": result.regions,
        "ranked": result.ranked,
    }
    if file_format == "xlsx":
        if result.ranked is None:
            done = _("wrote {out} ({regions} regions measured)")
        else:
            done = _("wrote {out} ({regions} regions measured, {ranked} offerings ranked)")
    elif result.ranked is None:
        done = _("wrote {files} csv files to {out} ({regions} regions measured)")
    else:
        done = _("wrote {files} csv files to {out} ({regions} regions measured, {ranked} offerings ranked)")
    print(done.format(**words))
    return EXIT_OK


def _check_out_folder(out: Path, file_format: str) -> None:
    """`--out` must name a place in an existing folder: export creates the csv folder itself, never the
    folders above it, so a mistyped path is reported rather than silently made."""
    folder = out.parent
    if folder.exists() and not folder.is_dir():
        raise UsageError(_("{file}: {folder} is a file, not a folder").format(file=out, folder=folder))
    if not folder.exists():
        raise UsageError(
            _("{file}: the folder {folder} does not exist (create it first, or choose another --out)").format(
                file=out, folder=folder
            )
        )
    if file_format == "csv" and out.exists() and not out.is_dir():
        raise UsageError(
            _("{file} is a file: --format csv writes a folder of .csv files, so name a folder").format(
                file=out
            )
        )
    if file_format == "xlsx" and out.is_dir():
        raise UsageError(_("{file} is a folder: name the .xlsx file to write").format(file=out))
