"""`linkvet catalog export|conflicts|choose`: the facts a team keeps in its PostgreSQL store
(`desktop.usecases.team_facts`), written out as overlay files, the offices' conflicting answers, and a choice
between them; and the conflicts an import left, said after it (`print_conflicts`)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from desktop.cli._common import add_db_option
from desktop.cli._format import table
from desktop.cli._safe_text import printable
from desktop.cli.errors import EXIT_OK, UsageError
from desktop.i18n import _, ngettext
from probes.timestamps import iso_utc

if TYPE_CHECKING:
    from catalogs.team import Conflict
    from probes.store_location import StoreLocation


def add_team_verbs(verbs: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    export = verbs.add_parser(
        "export",
        help=_("write the facts your team keeps (or your own) as overlay files, one per provider"),
        description=_(
            "With a PostgreSQL store: every fact the offices recorded in it (questionnaire answers, "
            "acceptance imports, edits), with its history and checks, as PROVIDER.overlay.toml files; with "
            "a SQLite store, your own catalog folder's overlays. `linkvet catalog validate DIR` reads them."
        ),
    )
    export.add_argument("--out", type=Path, required=True, metavar="DIR", help=_("the folder to write into"))
    export.add_argument("--provider", metavar="ID", help=_("only this provider"))
    add_db_option(export)
    export.set_defaults(run=run_export)

    conflicts = verbs.add_parser(
        "conflicts",
        help=_("the facts offices answered differently (a PostgreSQL store): every answer, the one used"),
    )
    conflicts.add_argument("--provider", metavar="ID", help=_("only this provider"))
    conflicts.add_argument("--json", action="store_true", help=_("print JSON instead of text"))
    add_db_option(conflicts)
    conflicts.set_defaults(run=run_conflicts)

    choose = verbs.add_parser(
        "choose",
        help=_("settle a conflict: the answer of one record stands for the fact (a PostgreSQL store)"),
    )
    choose.add_argument("provider", metavar="PROVIDER", help=_("provider id"))
    choose.add_argument(
        "key", metavar="FACT", help=_("the fact key, as `linkvet catalog conflicts` shows it")
    )
    choose.add_argument("record", type=int, metavar="RECORD", help=_("the record of the answer that stands"))
    choose.add_argument(
        "--office",
        dest="team_office",
        metavar="NAME",
        help=_("the office choosing (default: $LINKVET_OFFICE)"),
    )
    add_db_option(choose)
    choose.set_defaults(run=run_choose)


def run_export(args: argparse.Namespace) -> int:
    from desktop.usecases.team_facts import export_team_facts

    if args.out.exists() and not args.out.is_dir():
        raise UsageError(_("--out {path}: not a folder").format(path=args.out))
    exported = export_team_facts(args.db, args.out, args.provider)
    for path in exported.files:
        print(printable(_("wrote {file}").format(file=path)))
    print(
        printable(
            ngettext(
                "{count} provider's facts from {source}",
                "{count} providers' facts from {source}",
                len(exported.files),
            ).format(count=len(exported.files), source=exported.source)
        )
    )
    return EXIT_OK


def run_conflicts(args: argparse.Namespace) -> int:
    from desktop.usecases.team_facts import team_conflicts

    found = team_conflicts(args.db, args.provider)
    if args.json:
        print(json.dumps([_as_dict(c) for c in found], ensure_ascii=False, indent=1))
        return EXIT_OK
    if not found:
        print(_("no conflict: the offices' answers agree"))
        return EXIT_OK
    for conflict in found:
        _print_conflict(conflict)
    return EXIT_OK


def run_choose(args: argparse.Namespace) -> int:
    from desktop.usecases.team_facts import choose_answer

    chosen = choose_answer(args.db, args.provider, args.key, args.record, office=args.team_office)
    print(
        printable(
            _("{provider} {key} = {value}: record {record} stands (recorded in the store)").format(
                provider=chosen.provider, key=chosen.key, value=chosen.value, record=chosen.record
            )
        )
    )
    return EXIT_OK


def _as_dict(conflict: Conflict) -> dict[str, object]:
    return {
        "provider": conflict.provider,
        "fact": conflict.key,
        "used": conflict.used,
        "answers": [
            {
                "record": a.record,
                "value": a.value,
                "source": a.source,
                "as_of": a.as_of,
                "office": a.office,
                "recorded_by": a.recorded_by,
                "recorded": iso_utc(a.recorded_us),
            }
            for a in conflict.answers
        ],
    }


def _print_conflict(conflict: Conflict) -> None:
    print(
        printable(
            _(
                "{provider} {key}: the offices' answers differ; record {used} is used until someone chooses"
            ).format(provider=conflict.provider, key=conflict.key, used=conflict.used)
        )
    )
    rows = [
        [
            str(a.record),
            printable(a.value),
            printable(a.office or "-"),
            printable(a.recorded_by),
            iso_utc(a.recorded_us),
            printable(a.source),
        ]
        for a in conflict.answers
    ]
    table([_("RECORD"), _("VALUE"), _("OFFICE"), _("BY"), _("RECORDED"), _("SOURCE")], rows, sys.stdout)
    print(
        printable(
            _("  choose: `linkvet catalog choose {provider} '{key}' RECORD`").format(
                provider=conflict.provider, key=conflict.key
            )
        )
    )


def print_conflicts(db: StoreLocation | None, provider: str) -> None:
    """After an import into a team's store: the provider's facts the offices answered differently."""
    from desktop.usecases.overlay_home import team_location
    from desktop.usecases.team_facts import team_conflicts

    if team_location(db) is None:
        return
    found = team_conflicts(db, provider)
    if found:
        print(
            ngettext(
                "{count} fact of {provider} has answers from offices that differ (both kept, the newer used):",
                "{count} facts of {provider} have answers from offices that differ (both kept, the newer used):",
                len(found),
            ).format(count=len(found), provider=provider)
        )
        for conflict in found:
            _print_conflict(conflict)
