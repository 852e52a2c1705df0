"""`linkvet merge`: the rounds of another result store (an office's SQLite file, say) written into this one
(`--db`, e.g. the team's PostgreSQL store), each round once (`probes.store.copying`)."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys

from desktop.cli._common import add_db_option, store_location
from desktop.cli._format import ProgressLine
from desktop.cli.errors import EXIT_OK, UsageError
from desktop.i18n import _, ngettext


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "merge",
        help=_("copy the rounds of another result store into this one, each round once"),
        description=_(
            "Write every round of SOURCE (a SQLite file or a postgresql:// URL; read only) into the result "
            "store of --db, with its results, samples and traces: an office's store into the team's. A round "
            "the store holds already, or whose plan, vantage point and slot it holds from another round, is "
            "left alone, so merging twice stores each round once. The rollups are recomputed as the rounds "
            "are written."
        ),
    )
    p.add_argument(
        "source", type=store_location, metavar="SOURCE", help=_("the store to copy the rounds from")
    )
    add_db_option(p)
    p.add_argument(
        "--vantage",
        metavar="NAME",
        help=_("the vantage point to record for the source's rounds that name none (e.g. shanghai-office)"),
    )
    p.add_argument("--json", action="store_true", help=_("print the counts as one JSON object"))
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from probes.store import Store
    from probes.store.copying import MergeCounts, merge_into
    from probes.store_location import exists, identity, location_or_default

    source, destination = args.source, location_or_default(args.db)
    if not exists(source):
        raise UsageError(_("{path}: no result store there to merge from").format(path=source))
    if identity(source) == identity(destination):
        raise UsageError(_("{path}: a store cannot be merged into itself").format(path=source))
    if args.vantage is not None and not args.vantage.strip():
        raise UsageError(_("--vantage: expected a name, got an empty one"))
    progress = ProgressLine(enabled=None if not args.json else False, what=_("rounds"))
    with Store(source, readonly=True) as reader, Store(destination) as writer:
        total = reader.counts()["rounds"]

        def on_round(counts: MergeCounts) -> None:
            progress.count(counts.rounds, total)

        try:
            counts = merge_into(reader, writer, vantage=args.vantage, on_round=on_round)
        finally:
            progress.finish()
    if args.json:
        print(json.dumps({"rounds": counts.rounds, **dataclasses.asdict(counts)}))
        return EXIT_OK
    print(
        ngettext(
            "{source} → {destination}: {stored} of {rounds} round stored ({samples} samples)",
            "{source} → {destination}: {stored} of {rounds} rounds stored ({samples} samples)",
            counts.rounds,
        ).format(
            source=source,
            destination=destination,
            stored=counts.stored,
            rounds=counts.rounds,
            samples=counts.samples,
        )
    )
    if counts.already_stored:
        print(
            ngettext(
                "{count} round was in the store already",
                "{count} rounds were in the store already",
                counts.already_stored,
            ).format(count=counts.already_stored)
        )
    if counts.slot_taken:
        print(
            ngettext(
                "{count} round not stored: the store holds another round of its plan, vantage point and slot",
                "{count} rounds not stored: the store holds other rounds of their plans, vantage points and slots",
                counts.slot_taken,
            ).format(count=counts.slot_taken)
        )
    sys.stdout.flush()
    return EXIT_OK
