"""Measured line quality for `linkvet score`: the link summaries from the result store (the same analysis
`linkvet export` uses), as an alternative to `--links FILE`."""

from __future__ import annotations

import argparse
from pathlib import Path

from catalogs.link_quality import LinkSummary
from catalogs.loader import CatalogSet
from desktop.cli._common import EXIT_ENVIRONMENT, CliError, add_db_option, missing_store, open_store
from desktop.cli.history import parse_when


def add_measurement_options(parser: argparse.ArgumentParser) -> None:
    add_db_option(parser)
    parser.add_argument(
        "--since", type=parse_when, help="measurements from this time (ISO date/time or an age such as 30d)"
    )
    parser.add_argument("--until", type=parse_when, help="measurements before this time")
    parser.add_argument(
        "--peak",
        action="append",
        metavar="WINDOW",
        help='peak window (repeatable; default "20:00-23:00 Asia/Shanghai")',
    )


def stored_link_summaries(args: argparse.Namespace, catalogs: CatalogSet | None = None) -> list[LinkSummary]:
    """The link summaries of every region measured in the store (`--db`, else the default store), their
    route checks against what `catalogs` claim where the traced targets carry no line-type label; none, with
    a note on stderr, when there is no store there yet (nothing measured is not an error for a reader)."""
    from desktop.links import measured_link_summaries
    from probes.analysis import Scope, ScopeError
    from probes.peak import DEFAULT_PEAK_WINDOWS, PeakWindow, PeakWindowError
    from probes.routes import RouteError

    path: Path | None = args.db
    if missing_store(path) is not None:
        return []  # nothing measured yet (said on stderr)
    try:
        windows = tuple(PeakWindow.parse(w) for w in args.peak) if args.peak else DEFAULT_PEAK_WINDOWS
        scope = Scope(
            since_us=None if args.since is None else int(args.since.timestamp() * 1_000_000),
            until_us=None if args.until is None else int(args.until.timestamp() * 1_000_000),
        )
    except (PeakWindowError, ScopeError) as exc:
        raise CliError(str(exc)) from exc
    with open_store(path, readonly=True) as store:
        try:
            return measured_link_summaries(store, scope, windows, catalogs)
        except RouteError as exc:
            raise CliError(str(exc), EXIT_ENVIRONMENT) from exc
