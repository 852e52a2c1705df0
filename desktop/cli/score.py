"""`linkvet score`: rank provider offerings for a training-needs profile against the checklist, and say why.

Line quality comes from the result store (every measured region's LinkSummary, `--db`), or from LinkSummary
dicts in a file (`--links FILE`, a JSON list); both and the ranking itself (`catalogs.scoring.rank_offerings`)
are the shared use-cases the Needs & score screen runs too (`desktop.usecases.links`, `.ranking`).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TextIO, cast

from catalogs.checklist import load_checklist
from catalogs.needs import load_needs
from catalogs.scoring import (
    RANK_ORDERS,
    RANKING_METHODS,
    RankedOffering,
    Ranking,
    method_title,
    order_title,
)
from desktop.cli._format import table
from desktop.cli._links import add_measurement_options, stored_link_summaries
from desktop.cli._safe_text import PrintableStream
from desktop.cli.catalog import add_catalog_option, load_or_warn
from desktop.cli.errors import EXIT_OK, UsageError
from desktop.i18n import _
from desktop.usecases.links import read_link_file
from desktop.usecases.ranking import ScoreRequest, rank


def weight_option(text: str) -> tuple[str, float]:
    name, _sep, value = text.partition("=")
    try:
        number = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(
            _("{text!r} is not ID=NUMBER (e.g. price=20)").format(text=text)
        ) from None
    if not name or number < 0 or number != number or number == float("inf"):
        raise argparse.ArgumentTypeError(_("{text!r} is not ID=NUMBER with a number ≥ 0").format(text=text))
    return name, number


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "score", help=_("rank offerings for a needs profile and explain each rank")
    )
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--needs", type=Path, metavar="FILE", help=_("training-needs profile (TOML)"))
    source.add_argument(
        "--eval",
        metavar="NAME",
        help=_(
            "rank an evaluation's candidates for its job, on the line its offices measured, in its peak windows"
        ),
    )
    parser.add_argument(
        "--market",
        action="store_true",
        help=_("with --eval: rank every bundled offering beside the candidates (their scores do not change)"),
    )
    parser.add_argument(
        "--links",
        type=Path,
        metavar="FILE",
        help=_("JSON list of LinkSummary objects (default: the measurements in the result store)"),
    )
    parser.add_argument(
        "--checklist", type=Path, metavar="FILE", help=_("checklist (default: the bundled one)")
    )
    parser.add_argument(
        "--weight",
        type=weight_option,
        action="append",
        default=[],
        metavar="ID=N",
        help=_("override a weight (repeatable)"),
    )
    parser.add_argument("--method", choices=RANKING_METHODS, default="weighted-sum")
    parser.add_argument(
        "--order",
        choices=RANK_ORDERS,
        default="score-min",
        help=_(
            "score-min (default): rank by the score with every unknown at its worst, so nothing leads on "
            "unknowns counted generously; total: by the score with unknowns at the checklist's unknown score"
        ),
    )
    parser.add_argument(
        "--top", type=int, default=10, metavar="N", help=_("explain the first N (default 10)")
    )
    parser.add_argument("--json", action="store_true", help=_("print the whole ranking as JSON"))
    add_catalog_option(parser)
    add_measurement_options(parser)
    parser.set_defaults(run=run)


def _print_ranking(ranking: Ranking, top: int) -> None:
    out = cast(TextIO, PrintableStream(sys.stdout))  # offering labels and notes come from catalog files
    passing = [e for e in ranking.entries if e.eligible]
    failing = [e for e in ranking.entries if not e.eligible]
    print(
        _(
            "{count} candidate(s) (offering × region): {passing} pass every gate, {failing} fail one. "
            "Method: {method}. Ordered by {order}."
        ).format(
            count=len(ranking.entries),
            passing=len(passing),
            failing=len(failing),
            method=method_title(ranking.method),
            order=order_title(ranking.ordered_by),
        ),
        file=out,
    )
    for note in ranking.notes:
        print(_("Note: {note}.").format(note=note), file=out)
    if top:
        print(file=out)
        _score_table(ranking, top, out)
    print(file=out)
    for entry in ranking.entries[:top]:
        print(entry.explanation, file=out)
        print(file=out)
    if len(ranking.entries) > top:
        more = len(ranking.entries) - top
        print(_("… {count} more (--top N to see more, --json for all).").format(count=more), file=out)
    pcie = next(
        (e for e in ranking.entries if e.intra_node_kind == "pcie" and (e.gpus_per_node or 0) > 1), None
    )
    if pcie is not None and pcie.rank > top:
        print(
            _("First PCIe-only offering: #{rank} {label} — {gpus} × {gpu}.").format(
                rank=pcie.rank, label=pcie.label, gpus=pcie.gpus_per_node, gpu=pcie.gpu
            ),
            file=out,
        )
    print(_("Sensitivity: {sensitivity}.").format(sensitivity=ranking.sensitivity.describe()), file=out)


def _place(entry: RankedOffering) -> str:
    """ "decided", "#7 could overtake", or "-" for the last of its group."""
    if entry.decided is None:
        return "-"
    if entry.decided:
        return _("decided")
    return _("#{rank} could overtake").format(rank=entry.challenger_rank or entry.next_rank)


def _score_table(ranking: Ranking, top: int, out: TextIO) -> None:
    """The first `top` entries in one table: place, offering, GPUs, then the figure that orders them first
    (the score at worst by default), the score, the other bounds, the share known, the place and the gates."""
    figures = {
        "topsis": (_("TOPSIS"), lambda e: "-" if e.topsis is None else f"{e.topsis:.3f}"),
        "score-min": (_("AT WORST"), lambda e: f"{e.score_min:.3f}"),
        "total": (_("SCORE"), lambda e: f"{e.total:.3f}"),
        "score-max": (_("AT BEST"), lambda e: f"{e.score_max:.3f}"),
    }
    first = ranking.ordered_by
    shown = [first, *(k for k in ("score-min", "total", "score-max") if k != first)]
    headers = [_("#"), _("OFFERING"), _("GPUS"), *(figures[k][0] for k in shown)]
    headers += [_("KNOWN"), _("PLACE"), _("GATES")]
    rows = [
        [
            str(e.rank),
            e.label,
            f"{e.gpus_per_node or '?'} × {e.gpu or '?'}",
            *(figures[k][1](e) for k in shown),
            f"{e.coverage * 100:.0f}%",
            _place(e),
            _("pass") if e.eligible else _("fail"),
        ]
        for e in ranking.entries[:top]
    ]
    table(headers, rows, out, right=(0, *range(3, 3 + len(shown) + 1)))


def run(args: argparse.Namespace) -> int:
    if args.top < 0:
        raise UsageError(_("--top must be 0 or more"))
    if args.eval is not None:
        return _run_evaluation(args)
    if args.market:
        raise UsageError(_("--market goes with --eval"))
    needs = load_needs(args.needs)
    checklist = load_checklist(args.checklist) if args.checklist else None
    catalogs = load_or_warn(args.catalogs, args.user_catalogs, args.db)
    summaries = read_link_file(args.links) if args.links else stored_link_summaries(args, catalogs)
    request = ScoreRequest(needs, dict(args.weight), args.method, summaries, checklist, args.order)
    ranking = rank(catalogs, request)
    if args.json:
        data: dict[str, Any] = ranking.as_dict()
        data["needs"] = needs.name
        print(json.dumps(data, indent=1, ensure_ascii=False))
    else:
        _print_ranking(ranking, args.top)
    return EXIT_OK


def _run_evaluation(args: argparse.Namespace) -> int:
    from desktop.cli._links import epoch_us
    from desktop.usecases.evaluation_score import rank_evaluation

    if args.peak:
        raise UsageError(_("--peak: the evaluation's peak windows count (`linkvet eval show` lists them)"))
    checklist = load_checklist(args.checklist) if args.checklist else None
    catalogs = load_or_warn(args.catalogs, args.user_catalogs, args.db)
    summaries = read_link_file(args.links) if args.links else None
    ranked = rank_evaluation(
        args.db,
        args.eval,
        catalogs,
        market=args.market,
        weights=dict(args.weight),
        method=args.method,
        order=args.order,
        checklist=checklist,
        summaries=summaries,
        since_us=epoch_us(args.since),
        until_us=epoch_us(args.until),
    )
    if args.json:
        print(
            json.dumps(
                {
                    "evaluation": ranked.evaluation.name,
                    "needs": ranked.evaluation.needs.name,
                    "market": ranked.market,
                    "rankings": [
                        {
                            "office": r.office,
                            **r.ranking.as_dict(),
                            "deciding_offices": _deciding(r.deciding_offices),
                        }
                        for r in ranked.rankings
                    ],
                },
                indent=1,
                ensure_ascii=False,
            )
        )
        return EXIT_OK
    for number, office_ranking in enumerate(ranked.rankings):
        if number:
            print()
        print(_office_heading(office_ranking.office, office_ranking.deciding_offices))
        _print_ranking(office_ranking.ranking, args.top)
    return EXIT_OK


def _deciding(deciding: Mapping[tuple[str, str], str]) -> dict[str, str]:
    return {f"{provider}/{region}": office for (provider, region), office in deciding.items()}


def _office_heading(office: str, deciding: Mapping[tuple[str, str], str]) -> str:
    from desktop.i18n import vantage_name

    if office == "worst":
        if not deciding:
            return _("Each candidate on its worse office's line (nothing measured yet).")
        return _("Each candidate on its worse office's line: {regions}.").format(
            regions=", ".join(
                f"{provider}/{region} {vantage_name(chosen)}"
                for (provider, region), chosen in sorted(deciding.items())
            )
        )
    return _("On the line measured from {office}.").format(office=vantage_name(office))
