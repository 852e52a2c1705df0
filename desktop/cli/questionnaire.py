"""`linkvet questionnaire`: export a workbook of questions for a vendor, and import its answers into your own
catalog (the provider's overlay in the user catalog folder; with a PostgreSQL store, the team's store). The work
is `desktop.usecases.questionnaire`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from desktop.cli._common import path_given
from desktop.cli.errors import EXIT_OK, UsageError
from desktop.i18n import _, current_language


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from desktop.cli._common import add_db_option
    from desktop.cli.catalog import add_catalog_option, add_team_options

    parser = subparsers.add_parser(
        "questionnaire",
        help=_("send a vendor the questions the catalogs cannot answer, and read the answers back"),
    )
    verbs = parser.add_subparsers(dest="verb", metavar="VERB", required=True)

    export = verbs.add_parser("export", help=_("write the questionnaire workbook for one provider"))
    export.add_argument("--provider", required=True, metavar="ID", help=_("catalog provider id"))
    export.add_argument(
        "--offering",
        action="append",
        default=[],
        metavar="ID",
        help=_(
            "only this offering (repeatable; a new id asks about an offering the catalog does not have yet)"
        ),
    )
    export.add_argument(
        "--needs",
        type=Path,
        metavar="FILE",
        help=_("order the questions by how much their answer could move the ranking"),
    )
    export.add_argument(
        "--out", type=path_given, required=True, metavar="FILE.xlsx", help=_("the workbook to write")
    )
    export.add_argument("--force", action="store_true", help=_("replace an existing file"))
    add_catalog_option(export)
    add_db_option(export)
    export.set_defaults(run=run_export)

    imported = verbs.add_parser("import", help=_("read a returned questionnaire into your own catalog"))
    imported.add_argument("file", type=Path, metavar="FILE.xlsx", help=_("the answered workbook"))
    imported.add_argument("--provider", required=True, metavar="ID", help=_("the provider it was sent to"))
    imported.add_argument(
        "--source", metavar="TEXT", help=_("who answered (default: the workbook's 'Answered by' answer)")
    )
    imported.add_argument(
        "--as-of",
        metavar="DATE",
        help=_("when the answers were given (default: the workbook's date, else today)"),
    )
    imported.add_argument(
        "--skip-invalid", action="store_true", help=_("write the valid answers and list the others")
    )
    add_catalog_option(imported)
    add_team_options(imported)
    imported.set_defaults(run=run_import)


def run_export(args: argparse.Namespace) -> int:
    from catalogs.needs import load_needs
    from desktop.cli.catalog import load_or_warn
    from desktop.usecases.questionnaire import QuestionnaireRequest, export_questionnaire

    out: Path = args.out
    if out.suffix.lower() != ".xlsx":
        raise UsageError(_("{file}: the questionnaire is an xlsx workbook: name it .xlsx").format(file=out))
    if not out.parent.is_dir():
        raise UsageError(_("{file}: the folder {folder} does not exist").format(file=out, folder=out.parent))
    if out.exists() and not args.force:
        raise UsageError(_("{file} exists; use --force to replace it").format(file=out))
    needs = load_needs(args.needs) if args.needs is not None else None
    catalogs = load_or_warn(args.catalogs, args.user_catalogs, args.db)
    written = export_questionnaire(
        QuestionnaireRequest(catalogs, args.provider, out, tuple(args.offering), needs, current_language())
    )
    print(
        _("wrote {file}: {count} questions about {provider} ({offerings})").format(
            file=written.path,
            count=written.questions,
            provider=args.provider,
            offerings=", ".join(written.offerings) or _("no offering"),
        )
    )
    return EXIT_OK


def run_import(args: argparse.Namespace) -> int:
    from desktop.cli.catalog import load_or_warn
    from desktop.usecases.files import not_a_file
    from desktop.usecases.overlay_home import overlay_home
    from desktop.usecases.questionnaire import import_questionnaire
    from desktop.usecases.questionnaire_workbook import check_workbook

    if (unreadable := not_a_file(args.file)) is not None:
        raise UsageError(_("{file}: {problem}").format(file=args.file, problem=unreadable))
    check_workbook(args.file)  # a zip bomb refused before the catalogs are loaded
    catalogs = load_or_warn(args.catalogs, args.user_catalogs, args.db)
    result = import_questionnaire(
        args.file,
        catalogs,
        args.provider,
        source=args.source,
        as_of=args.as_of,
        skip_invalid=args.skip_invalid,
        folder=overlay_home(db=args.db, office=args.team_office),
    )
    counts = {
        what: sum(1 for c in result.changes if c.what == what)
        for what in ("added", "changed", "unchanged", "kept")
    }
    print(
        _(
            "{file}: {answers} answers; {added} facts added, {changed} changed (earlier values kept in their history), {unchanged} unchanged"
        ).format(
            file=args.file,
            answers=result.answers,
            added=counts["added"],
            changed=counts["changed"],
            unchanged=counts["unchanged"],
        )
    )
    for change in result.changes:
        if change.what == "kept":
            print(
                _(
                    "kept the verified {key} = {before}; the vendor's answer {after} is not put over it"
                ).format(key=change.key, before=change.before, after=change.after)
            )
    if counts["added"] or counts["changed"]:
        print(_("written to {overlay}").format(overlay=result.overlay))
    for problem in result.skipped:
        print(_("skipped: {problem}").format(problem=problem.describe()), file=sys.stderr)
    from desktop.cli._catalog_team import print_conflicts

    print_conflicts(args.db, args.provider)
    return EXIT_OK
