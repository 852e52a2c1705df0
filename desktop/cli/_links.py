"""The measurement options of `linkvet score` and `linkvet export` (the store, the period, the peak
windows), and `score`'s measured line quality from the store (`desktop.usecases.links`), as an alternative
to `--links FILE`."""

from __future__ import annotations

import argparse
from datetime import datetime

from catalogs.link_quality import LinkSummary
from catalogs.loader import CatalogSet
from desktop.cli._common import add_db_option, reader_store, time_flag
from desktop.i18n import _
from probes.peak import DEFAULT_PEAK_WINDOWS, PeakWindow


def add_measurement_options(parser: argparse.ArgumentParser) -> None:
    add_db_option(parser)
    parser.add_argument(
        "--since", type=time_flag, help=_("measurements from this time (ISO date/time or an age such as 30d)")
    )
    parser.add_argument("--until", type=time_flag, help=_("measurements before this time"))
    parser.add_argument(
        "--peak",
        action="append",
        metavar="WINDOW",
        help=_('peak window (repeatable; default "20:00-23:00 Asia/Shanghai")'),
    )


def peak_windows(texts: list[str] | None) -> tuple[PeakWindow, ...]:
    """The `--peak` windows (`PeakWindowError` for a bad one), else the default."""
    return tuple(PeakWindow.parse(w) for w in texts) if texts else DEFAULT_PEAK_WINDOWS


def epoch_us(moment: datetime | None) -> int | None:
    """A `--since`/`--until` time as µs since the epoch (the store's times)."""
    return None if moment is None else int(moment.timestamp() * 1_000_000)


def stored_link_summaries(args: argparse.Namespace, catalogs: CatalogSet | None = None) -> list[LinkSummary]:
    """The link summaries of every region measured in the store (`--db`, else the default store) within
    `--since`/`--until`, their route checks against what `catalogs` claim where the traced targets carry no
    line-type label; none, with a note on stderr, when there is no store there yet."""
    from desktop.usecases.links import stored_link_summaries
    from probes.analysis import Scope

    windows = peak_windows(args.peak)
    scope = Scope(since_us=epoch_us(args.since), until_us=epoch_us(args.until))
    return stored_link_summaries(reader_store(args.db), windows, catalogs, scope)
