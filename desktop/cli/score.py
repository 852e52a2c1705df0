"""`linkvet score`: rank provider offerings for a training-needs profile against the checklist, and say why.

Line quality comes from the result store (every measured region's LinkSummary, `--db`), or from LinkSummary
dicts in a file (`--links FILE`, a JSON list); the ranking itself is
`catalogs.scoring.rank_offerings(needs, catalogs, summaries)`.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from catalogs.checklist import load_checklist
from catalogs.errors import CatalogError
from catalogs.link_quality import LinkSummary
from catalogs.needs import load_needs
from catalogs.scoring import RANKING_METHODS, Ranking, rank_offerings
from desktop.cli._common import EXIT_OK, CliError
from desktop.cli._links import add_measurement_options, stored_link_summaries
from desktop.cli.catalog import add_catalog_option, load_or_warn


def weight_option(text: str) -> tuple[str, float]:
    name, _, value = text.partition("=")
    try:
        number = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not ID=NUMBER (e.g. price=20)") from None
    if not name or number < 0 or number != number or number == float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r} is not ID=NUMBER with a number ≥ 0")
    return name, number


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("score", help="rank offerings for a needs profile and explain each rank")
    parser.add_argument(
        "--needs", type=Path, required=True, metavar="FILE", help="training-needs profile (TOML)"
    )
    parser.add_argument(
        "--links",
        type=Path,
        metavar="FILE",
        help="JSON list of LinkSummary objects (default: the measurements in the result store)",
    )
    parser.add_argument("--checklist", type=Path, metavar="FILE", help="checklist (default: the bundled one)")
    parser.add_argument(
        "--weight",
        type=weight_option,
        action="append",
        default=[],
        metavar="ID=N",
        help="override a weight (repeatable)",
    )
    parser.add_argument("--method", choices=RANKING_METHODS, default="weighted-sum")
    parser.add_argument("--top", type=int, default=10, metavar="N", help="explain the first N (default 10)")
    parser.add_argument("--json", action="store_true", help="print the whole ranking as JSON")
    add_catalog_option(parser)
    add_measurement_options(parser)
    parser.set_defaults(run=run)


def load_link_summaries(path: Path) -> list[LinkSummary]:
    """Read a JSON list of LinkSummary dicts; a bad file or entry is a CliError naming the entry."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise CliError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CliError(f"{path}: not valid JSON: {exc}") from exc
    if not isinstance(data, list):
        raise CliError(f"{path}: expected a JSON list of link summaries, got {type(data).__name__}")
    summaries = []
    for index, item in enumerate(data):
        try:
            summaries.append(LinkSummary.from_dict(item, where=f"[{index}]"))
        except CatalogError as exc:
            raise CliError(f"{path}: {exc}") from exc
    return summaries


def _print_ranking(ranking: Ranking, top: int) -> None:
    passing = [e for e in ranking.entries if e.eligible]
    failing = [e for e in ranking.entries if not e.eligible]
    print(
        f"{len(ranking.entries)} candidate(s) (offering × region): {len(passing)} pass every gate, "
        f"{len(failing)} fail one. Method: {ranking.method}."
    )
    for note in ranking.notes:
        print(f"Note: {note}.")
    print()
    for entry in ranking.entries[:top]:
        print(entry.explanation)
        print()
    if len(ranking.entries) > top:
        print(f"… {len(ranking.entries) - top} more (--top N to see more, --json for all).")
    pcie = next(
        (e for e in ranking.entries if e.intra_node_kind == "pcie" and (e.gpus_per_node or 0) > 1), None
    )
    if pcie is not None and pcie.rank > top:
        print(f"First PCIe-only offering: #{pcie.rank} {pcie.label} — {pcie.gpus_per_node} × {pcie.gpu}.")
    print(f"Sensitivity: {ranking.sensitivity.describe()}.")


def run(args: argparse.Namespace) -> int:
    if args.top < 0:
        raise CliError("--top must be 0 or more")
    try:
        needs = load_needs(args.needs)
        checklist = load_checklist(args.checklist) if args.checklist else None
    except CatalogError as exc:
        raise CliError(str(exc)) from exc
    catalogs = load_or_warn(args.catalogs)
    summaries = load_link_summaries(args.links) if args.links else stored_link_summaries(args, catalogs)
    try:
        ranking = rank_offerings(
            needs, catalogs, summaries, checklist=checklist, weights=dict(args.weight), method=args.method
        )
    except CatalogError as exc:
        raise CliError(str(exc)) from exc
    if args.json:
        data: dict[str, Any] = ranking.as_dict()
        data["needs"] = needs.name
        print(json.dumps(data, indent=1, ensure_ascii=False))
    else:
        _print_ranking(ranking, args.top)
    return EXIT_OK
