"""`linkvet vantages`: the same region seen from each office, side by side — which office sees the worst
peak, how far above the best office, and whether the route class differs by office."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

from desktop.cli._common import reader_store
from desktop.cli._format import number, percent, table
from desktop.cli._links import add_measurement_options, epoch_us, peak_windows
from desktop.cli._safe_text import printable
from desktop.cli.errors import EXIT_OK
from desktop.i18n import _, vantage_name

if TYPE_CHECKING:
    from probes.analysis import VantageComparison


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "vantages",
        help=_("compare what each office (vantage point) sees of the same region"),
        description=_(
            "Every region measured from two or more vantage points, one row per office: peak and off-peak RTT "
            "and loss, the route class its own traces found; which office sees the worst peak, and whether "
            "the route class differs by office."
        ),
    )
    add_measurement_options(p)
    p.add_argument("--json", action="store_true", help=_("one JSON object per region per line"))
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from desktop.usecases.vantages import stored_vantage_comparisons
    from probes.analysis import Scope

    scope = Scope(since_us=epoch_us(args.since), until_us=epoch_us(args.until))
    comparisons = stored_vantage_comparisons(reader_store(args.db), peak_windows(args.peak), None, scope)
    if args.json:
        for comparison in comparisons:
            print(json.dumps(comparison.as_dict(), ensure_ascii=False, allow_nan=False))
        return EXIT_OK
    if not comparisons:
        print(_("no region was measured from two or more vantage points (in the period)"))
        return EXIT_OK
    for comparison in comparisons:
        print(printable(f"{comparison.provider} / {comparison.region}"))
        headers = [
            _("VANTAGE"),
            _("PEAK p50 ms"),
            _("PEAK p95 ms"),
            _("PEAK LOSS"),
            _("OFF-PEAK p95 ms"),
            _("ROUTE CLASS"),
            "",
        ]
        rows = [
            [
                printable(vantage_name(view.vantage)),
                number(view.peak_rtt_median_ms),
                number(view.peak_rtt_p95_ms),
                percent(view.peak_loss),
                number(view.offpeak_rtt_p95_ms),
                printable(view.route_class or "-"),
                _("worst peak") if comparison.judged and view.vantage == comparison.worst_peak else "",
            ]
            for view in comparison.views
        ]
        table(headers, rows, sys.stdout)
        if comparison.judged >= 2 and comparison.peak_p95_spread_ms is not None:
            print(_spread_line(comparison))
        if comparison.route_differs:
            print(
                _("the route class differs by office: {classes}").format(
                    classes=", ".join(
                        f"{printable(vantage_name(v.vantage))} {printable(v.route_class)}"
                        for v in comparison.views
                        if v.route_class
                    )
                )
            )
        print()
    return EXIT_OK


def _spread_line(comparison: VantageComparison) -> str:
    """Which office sees the worst peak, only when it is worse beyond the figures' interval."""
    spread = number(comparison.peak_p95_spread_ms)
    if comparison.worst_peak is None:
        return _(
            "no office sees a worse peak than the others beyond the measurement's resolution (peak p95 "
            "spread {spread} ms)"
        ).format(spread=spread)
    if comparison.best_peak is None:
        return _("worst peak: {worst}, its p95 up to {spread} ms above the others'").format(
            worst=printable(vantage_name(comparison.worst_peak)), spread=spread
        )
    return _("worst peak: {worst}, its p95 {spread} ms above {best}'s").format(
        worst=printable(vantage_name(comparison.worst_peak)),
        spread=spread,
        best=printable(vantage_name(comparison.best_peak)),
    )
