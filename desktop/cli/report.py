"""`linkvet report`: an evaluation's decision report (HTML or PDF, `desktop.usecases.report`) and the evidence
bundle behind it (`desktop.usecases.report_evidence`)."""

from __future__ import annotations

import argparse
import shlex
from pathlib import Path

from desktop.cli._common import add_db_option, time_flag
from desktop.cli._links import epoch_us
from desktop.cli.catalog import add_catalog_option, load_or_warn
from desktop.cli.errors import EXIT_OK, UsageError
from desktop.i18n import _


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "report",
        help=_("write an evaluation's decision report (HTML or PDF) and its evidence bundle"),
        description=_(
            "Write the decision report of an evaluation: the recommendation and whether it is decided, the "
            "candidates side by side, each candidate's line by hour of day and at the peak evenings, its route, "
            "acceptance and answers, the time to move the data, and the method with the commands that reproduce "
            "every figure. HTML is one self-contained file; PDF is printed on A4 with its fonts embedded."
        ),
    )
    p.add_argument("--eval", required=True, metavar="NAME", help=_("the evaluation to report on"))
    p.add_argument(
        "--out", type=Path, metavar="FILE", help=_("the report: FILE.html or FILE.pdf (the name says which)")
    )
    p.add_argument(
        "--evidence",
        type=Path,
        metavar="FILE.zip",
        help=_(
            "also (or only) write the evidence bundle: raw samples, traces, checks, answers and a manifest"
        ),
    )
    p.add_argument(
        "--since",
        type=time_flag,
        help=_("measurements from this time: ISO date/time (UTC unless it says) or an age such as 7d"),
    )
    p.add_argument("--until", type=time_flag, help=_("measurements before this time (same forms as --since)"))
    p.add_argument("--force", action="store_true", help=_("replace --out or --evidence if it exists"))
    add_catalog_option(p)
    add_db_option(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from desktop.usecases.report import report_format

    if args.out is None and args.evidence is None:
        raise UsageError(_("name what to write: --out FILE.html|FILE.pdf, --evidence FILE.zip, or both"))
    if args.out is not None:
        report_format(args.out)  # the name says the format, or the run stops here
    if args.evidence is not None and args.evidence.suffix.lower() != ".zip":
        raise UsageError(_("{file}: the evidence bundle's name must end in .zip").format(file=args.evidence))
    for path in (args.out, args.evidence):
        if path is not None and path.exists() and not args.force:
            raise UsageError(_("{file} exists; use --force to replace it").format(file=path))
    since_us, until_us = epoch_us(args.since), epoch_us(args.until)
    if since_us is not None and until_us is not None and since_us >= until_us:
        raise UsageError(_("--since must be before --until"))
    catalogs = load_or_warn(args.catalogs, args.user_catalogs)
    if args.out is not None:
        from desktop.usecases.report import ReportJob, write_report

        written = write_report(
            ReportJob(
                args.eval,
                args.out,
                catalogs,
                db=args.db,
                since_us=since_us,
                until_us=until_us,
                language=getattr(args, "lang", None),
            )
        )
        if written.recommended is None:
            verdict = _("no candidate passes every gate")
        elif written.decided:
            verdict = _("recommended {candidate} (decided)").format(candidate=written.recommended)
        else:
            verdict = _("recommended {candidate} (not decided yet)").format(candidate=written.recommended)
        print(
            _("wrote {out} ({size:.1f} MB, {seconds:.1f} s): {verdict}").format(
                out=written.path, size=written.bytes / 1e6, seconds=written.seconds, verdict=verdict
            )
        )
        if not written.measured:
            print(_("nothing measured yet: the report says what is missing and the commands that fill it"))
    if args.evidence is not None:
        from desktop.usecases.report_evidence import write_evidence

        bundle = write_evidence(
            args.db,
            args.eval,
            args.evidence,
            catalogs,
            since_us=since_us,
            until_us=until_us,
            command=_command(args, since_us, until_us),
        )
        print(
            _(
                "wrote {out}: {samples} samples, {traces} traces, {files} files with their SHA-256 in manifest.json"
            ).format(out=bundle.path, samples=bundle.samples, traces=bundle.traces, files=len(bundle.files))
        )
    return EXIT_OK


def _command(args: argparse.Namespace, since_us: int | None, until_us: int | None) -> str:
    """The command that makes this bundle again (the period as absolute UTC times, so that it reproduces)."""
    from probes.timestamps import iso_second_utc

    words = ["linkvet", "report", "--eval", args.eval, "--evidence", str(args.evidence)]
    if since_us is not None:
        words += ["--since", iso_second_utc(since_us // 1_000_000)]
    if until_us is not None:
        words += ["--until", iso_second_utc(until_us // 1_000_000)]
    if args.db is not None:
        words += ["--db", str(args.db)]
    return shlex.join(words)
