"""`linkvet trace`: the path from this machine (the office) to a host, hop by hop (mtr-style RTT and loss),
each hop labelled with its network, and the line it takes (CN2 GIA, CN2 GT, 163, ...) with the evidence."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from desktop.cli._common import (
    add_db_option,
    add_vantage_option,
    non_negative_float,
    port_number,
    positive_float,
    positive_int,
)
from desktop.cli._format import number, percent, table
from desktop.cli.errors import EXIT_OK, EXIT_SOME_FAILED
from probes.routes.claims import CLAIMED_LINE_TYPES
from probes.target import TRACE_PROBES_PER_HOP

if TYPE_CHECKING:  # for annotations; `run` imports the tracer when a trace runs
    from probes.routes import NetworkMatch, NetworkTable, RouteVerdict
    from probes.target import Target
    from probes.traceroute import TraceOptions, TraceResult

DIRECTION = (
    "This is the path from this machine (the office) to the region: the outbound direction. The return path "
    "(region to office), which the route-check tools classify, may take another line and is not seen here."
)


def _max_hops(text: str) -> int:
    value = positive_int(text)
    if value > 255:
        raise argparse.ArgumentTypeError(f"{text!r} must be at most 255")
    return value


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "trace",
        help="trace the path to a host and tell its line (CN2 GIA, CN2 GT, 163, ...)",
        description="Trace the path from this machine to HOST with several probes per hop, label each hop "
        "with the network it belongs to (offline table), and classify the line: cn2-gia, cn2-gt, 163, "
        "cu-premium, cu-4837, cmi, other or unknown, with the hops and the rule that decided.",
    )
    p.add_argument("host", metavar="HOST", help="host name or address of the region's endpoint")
    p.add_argument("--json", action="store_true", help="print one JSON object (hops, verdicts, claim)")
    p.add_argument(
        "-q",
        "--probes",
        type=positive_int,
        default=TRACE_PROBES_PER_HOP,
        metavar="N",
        help=f"probes per hop (default {TRACE_PROBES_PER_HOP})",
    )
    p.add_argument(
        "-m", "--max-hops", type=_max_hops, default=30, metavar="N", help="highest TTL probed (default 30)"
    )
    p.add_argument(
        "-P",
        "--protocol",
        choices=["icmp", "udp", "tcp"],
        default="icmp",
        help="probe with ICMP echo (default; raw socket as root, else unprivileged where allowed), "
        "UDP or TCP SYN (no privileges needed; use them where ICMP is filtered)",
    )
    p.add_argument(
        "-p", "--port", type=port_number, help="UDP: first destination port (33434); TCP: port (80)"
    )
    p.add_argument(
        "-t",
        "--timeout",
        type=positive_float,
        default=2.0,
        metavar="S",
        help="seconds to wait for each probe (default 2; TCP waits at most 1)",
    )
    p.add_argument(
        "-i",
        "--interval",
        type=non_negative_float,
        default=0.5,
        metavar="S",
        help="seconds between the rounds of probes (default 0.5)",
    )
    p.add_argument(
        "-n",
        "--traces",
        type=positive_int,
        default=1,
        metavar="N",
        help="trace N times, one after another, and merge the verdicts (default 1)",
    )
    p.add_argument(
        "--networks",
        type=Path,
        metavar="FILE",
        help="your network table, merged over the bundled one (default: $LINKVET_ROUTE_NETWORKS, or "
        "route-networks.toml in the user config directory when it exists)",
    )
    p.add_argument("--provider", help="label the traces with a catalog provider id")
    p.add_argument("--region", help="label the traces with a catalog region id")
    p.add_argument(
        "--line-type",
        choices=CLAIMED_LINE_TYPES,
        metavar="LINE_TYPE",
        help="the line type the vendor claims (cn2-gia, cn2-gt, cu-9929, cu-4837, cmi, 163, bgp, standard, "
        "local, unknown): the traces are checked against it",
    )
    p.add_argument("--no-store", action="store_true", help="do not save the traces in the store")
    add_vantage_option(p)
    add_db_option(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from probes.routes import load_network_table
    from probes.target import Method, Target
    from probes.traceroute import TraceOptions

    table = load_network_table(args.networks)
    target = Target(
        method=Method.TRACE,
        host=args.host,
        port=args.port,
        provider=args.provider,
        region=args.region,
        line_type=args.line_type,
    )
    options = TraceOptions(
        protocol=args.protocol,
        probes_per_hop=args.probes,
        max_hops=args.max_hops,
        timeout_s=args.timeout,
        round_interval_s=args.interval,
        port=args.port,
    )
    assert target.host is not None
    traces = asyncio.run(_trace(target.host, options, table, args.traces))
    stored_route = None
    if not args.no_store:
        stored_route = _store(args, target, traces, table)
    claim = None
    if args.line_type:
        from probes.routes import route_summary

        claim = route_summary(args.line_type, [t.verdict for t in traces if t.verdict is not None and t.hops])
    if args.json:
        _print_json(traces, claim, stored_route, sys.stdout)
    else:
        _print_text(traces, claim, stored_route, sys.stdout)
    failed = [t for t in traces if not t.ok]
    for trace in failed:
        print(f"linkvet: trace {trace.target}: {trace.message}", file=sys.stderr)
    return EXIT_SOME_FAILED if failed else EXIT_OK


async def _trace(host: str, options: TraceOptions, table: NetworkTable, count: int) -> list[TraceResult]:
    from probes.traceroute import trace_repeatedly

    return await trace_repeatedly(host, options, table, count)


def _store(
    args: argparse.Namespace, target: Target, traces: Sequence[TraceResult], table: NetworkTable
) -> dict[str, Any] | None:
    """Save each trace as a round; the region's route check over everything stored, when labelled."""
    from probes.backends import choose_backend
    from probes.methods.trace import to_probe_result
    from probes.routes import route_summary_from_traces
    from probes.store import Store, run_metadata

    backend = choose_backend().name

    with Store(args.db) as store:
        for trace in traces:
            store.save_round(
                [to_probe_result(target, trace)],
                started_us=trace.started_at_us,
                finished_us=trace.finished_at_us,
                source="trace",
                vantage=args.vantage,
                meta=run_metadata(trace.privileged, backend) | {"trace_protocol": trace.protocol},
            )
        if not (args.provider and args.region):
            return None
        stored = store.traces(provider=args.provider, region=args.region)
    return route_summary_from_traces(args.line_type, stored, table)


# -- output -------------------------------------------------------------------------------------------------


def _print_json(
    traces: Sequence[TraceResult],
    claim: dict[str, Any] | None,
    stored_route: dict[str, Any] | None,
    out: TextIO,
) -> None:
    from probes.routes import merge_verdicts

    verdicts = [t.verdict for t in traces if t.verdict is not None and t.hops]
    merged = merge_verdicts(verdicts)
    first = traces[0]
    document = {
        "target": first.target,
        "address": first.address,
        "direction": DIRECTION,
        "traces": [t.as_dict() for t in traces],
        "verdict": {
            "class": merged.line_class,
            "traces": merged.traces,
            "agreeing": merged.agreeing,
            "counts": dict(merged.counts),
            "summary": merged.summary(),
            "doubts": list(merged.doubts),
        },
        "claim": claim,
        "stored_claim": stored_route,
    }
    out.write(json.dumps(document, ensure_ascii=False, allow_nan=False) + "\n")


def _print_text(
    traces: Sequence[TraceResult],
    claim: dict[str, Any] | None,
    stored_route: dict[str, Any] | None,
    out: TextIO,
) -> None:
    from probes.routes import CLASS_NAMES, merge_verdicts

    first = traces[0]
    shown = first.target if first.address in (None, first.target) else f"{first.target} ({first.address})"
    out.write(f"trace to {shown}\n{_wrap(DIRECTION)}\n")
    for index, trace in enumerate(traces, start=1):
        out.write("\n")
        if len(traces) > 1:
            out.write(f"trace {index} of {len(traces)}: ")
        out.write(_describe_run(trace) + "\n")
        if trace.error is not None:
            out.write(f"ERROR {trace.error}: {trace.message}\n")
            continue
        _hop_table(trace, out)
        if trace.message:
            out.write(f"note: {trace.message}\n")
        if trace.verdict is not None:
            _verdict(trace.verdict, out)
    verdicts = [t.verdict for t in traces if t.verdict is not None and t.hops]
    if len(traces) > 1 and verdicts:
        merged = merge_verdicts(verdicts)
        out.write(f"\nover {merged.traces} traces: {CLASS_NAMES[merged.line_class]} — {merged.summary()}\n")
        for doubt in merged.doubts:
            out.write(f"  doubt: {doubt}\n")
    if claim is not None:
        flag = {True: "AGREES", False: "MISMATCH", None: "not checkable"}[claim["agrees"]]
        out.write(f"\nclaim check ({flag}): {claim['evidence']}\n")
    if stored_route is not None:
        flag = {True: "AGREES", False: "MISMATCH", None: "not checkable"}[stored_route["agrees"]]
        out.write(f"stored traces of this region ({flag}): {stored_route['evidence']}\n")


def _describe_run(trace: TraceResult) -> str:
    socket_kind = {True: "raw socket", False: "unprivileged socket", None: "no socket"}[trace.privileged]
    port = f" port {trace.port}" if trace.port else ""
    return (
        f"{trace.protocol.upper()}{port} ({socket_kind}), {trace.probes_per_hop} probes per hop, "
        f"max {trace.max_hops} hops"
    )


def _hop_table(trace: TraceResult, out: TextIO) -> None:
    headers = ["HOP", "ADDRESS", "LOSS", "SENT", "LAST ms", "AVG ms", "BEST ms", "WORST ms", "NETWORK"]
    rows: list[list[str]] = []
    hops = list(trace.hops)
    # Trailing hops that never answered collapse into one line, as they say one thing.
    last_answer = max((i for i, hop in enumerate(hops) if hop.address is not None), default=-1)
    for hop in hops[: last_answer + 1]:
        if hop.address is None:
            rows.append([str(hop.ttl), "*", percent(hop.loss), str(hop.sent), "-", "-", "-", "-", ""])
            continue
        rows.append(
            [
                str(hop.ttl),
                hop.address,
                percent(hop.loss),
                str(hop.sent),
                number(hop.rtt_last_ms, 3),
                number(hop.rtt_mean_ms, 3),
                number(hop.rtt_min_ms, 3),
                number(hop.rtt_max_ms, 3),
                _network_label(hop.network, destination=hop.reached),
            ]
        )
        for other in hop.addresses[1:]:
            count = sum(1 for r in hop.replies if r.address == other)
            label = _network_label(hop.network_of(other), destination=False)
            rows.append(["", f"also {other}", f"{count} of {hop.sent}", "", "", "", "", "", label])
    if last_answer + 1 < len(hops):
        silent = hops[last_answer + 1 :]
        span = str(silent[0].ttl) if len(silent) == 1 else f"{silent[0].ttl}-{silent[-1].ttl}"
        rows.append(
            [span, "* (no answer)", percent(1.0), str(sum(h.sent for h in silent)), "", "", "", "", ""]
        )
    table(headers, rows, out)


def _network_label(match: NetworkMatch | None, *, destination: bool) -> str:
    label = "" if match is None else f"{match.label} {match.prefix.cidr}"
    if destination:
        label = f"{label} (destination)".strip()
    return label


def _verdict(verdict: RouteVerdict, out: TextIO) -> None:
    from probes.routes import RULES

    out.write(f"verdict: {verdict.line_class} — {verdict.explanation()}\n")
    rule = next((r for r in RULES if r.id == verdict.rule), None)
    out.write(f"  rule {verdict.rule}" + (f" (source: {rule.source})" if rule else "") + "\n")
    for item in verdict.evidence:
        out.write(f"  evidence: {item.describe()}\n")
    sources = []
    for item in verdict.evidence:
        if item.match.prefix.source not in sources:
            sources.append(item.match.prefix.source)
            out.write(f"    {item.match.prefix.cidr} source: {item.match.prefix.source}\n")
    for doubt in verdict.doubts:
        out.write(f"  doubt: {doubt}\n")


def _wrap(text: str, width: int = 100) -> str:
    words, lines, line = text.split(), [], ""
    for word in words:
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    lines.append(line)
    return "\n".join(lines)
