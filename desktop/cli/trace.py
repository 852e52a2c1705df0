"""`linkvet trace`: the path from this machine (the office) to a host, hop by hop (mtr-style RTT and loss),
each hop labelled with its network, and the line it takes (CN2 GIA, CN2 GT, 163, ...) with the evidence."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO, cast

from desktop.cli._common import add_db_option, add_vantage_option, flag, port_number
from desktop.cli._format import number, percent, table
from desktop.cli._safe_text import PrintableStream, printable
from desktop.cli.errors import EXIT_OK, EXIT_SOME_FAILED
from desktop.i18n import _
from probes import limits
from probes.routes.claims import CLAIMED_LINE_TYPES
from probes.target import TRACE_PROBES_PER_HOP

if TYPE_CHECKING:  # for annotations; `run` imports the tracer when a trace runs
    from probes.routes import NetworkMatch, NetworkTable, RouteVerdict
    from probes.target import Target
    from probes.traceroute import TraceOptions, TraceResult


def direction() -> str:
    """What direction a trace from here sees (in the current language)."""
    return _(
        "This is the path from this machine (the office) to the region: the outbound direction (去程). The "
        "return path (回程, region to office), which the route-check tools classify, may take another line "
        "and is not seen here."
    )


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "trace",
        help=_("trace the path to a host and tell its line (CN2 GIA, CN2 GT, 163, ...)"),
        description=_(
            "Trace the path from this machine to HOST with several probes per hop, label each hop "
            "with the network it belongs to (offline table), and classify the line: cn2-gia, cn2-gt, 163, "
            "cu-premium, cu-4837, cmi, other or unknown, with the hops and the rule that decided."
        ),
    )
    p.add_argument("host", metavar="HOST", help=_("host name or address of the region's endpoint"))
    p.add_argument("--json", action="store_true", help=_("print one JSON object (hops, verdicts, claim)"))
    p.add_argument(
        "-q",
        "--probes",
        type=flag(limits.PROBES_PER_HOP),
        default=TRACE_PROBES_PER_HOP,
        metavar="N",
        help=_("probes per hop (default {n})").format(n=TRACE_PROBES_PER_HOP),
    )
    p.add_argument(
        "-m",
        "--max-hops",
        type=flag(limits.MAX_HOPS),
        default=30,
        metavar="N",
        help=_("highest TTL probed (default 30)"),
    )
    p.add_argument(
        "-P",
        "--protocol",
        choices=["icmp", "udp", "tcp"],
        default="icmp",
        help=_(
            "probe with ICMP echo (default; raw socket as root, else unprivileged where allowed), "
            "UDP or TCP SYN (no privileges needed; use them where ICMP is filtered)"
        ),
    )
    p.add_argument(
        "-p", "--port", type=port_number, help=_("UDP: first destination port (33434); TCP: port (80)")
    )
    p.add_argument(
        "-t",
        "--timeout",
        type=flag(limits.TIMEOUT),
        default=2.0,
        metavar="S",
        help=_("seconds to wait for each probe (default 2; TCP waits at most 1)"),
    )
    p.add_argument(
        "-i",
        "--interval",
        type=flag(limits.INTERVAL),
        default=0.5,
        metavar="S",
        help=_("seconds between the rounds of probes (default 0.5)"),
    )
    p.add_argument(
        "-n",
        "--traces",
        type=flag(limits.TRACES),
        default=1,
        metavar="N",
        help=_("trace N times, one after another, and merge the verdicts (default 1)"),
    )
    p.add_argument(
        "--networks",
        type=Path,
        metavar="FILE",
        help=_(
            "your network table, merged over the bundled one (default: $LINKVET_ROUTE_NETWORKS, or "
            "route-networks.toml in the user config directory when it exists)"
        ),
    )
    p.add_argument("--provider", help=_("label the traces with a catalog provider id"))
    p.add_argument("--region", help=_("label the traces with a catalog region id"))
    p.add_argument(
        "--line-type",
        choices=CLAIMED_LINE_TYPES,
        metavar="LINE_TYPE",
        help=_(
            "the line type the vendor claims (cn2-gia, cn2-gt, cu-9929, cu-4837, cmi, 163, bgp, standard, "
            "local, unknown): the traces are checked against it"
        ),
    )
    p.add_argument("--no-store", action="store_true", help=_("do not save the traces in the store"))
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
    from desktop.usecases.routes import claim_check

    claim = claim_check(args.line_type, traces)
    if args.json:
        _print_json(traces, claim, stored_route, sys.stdout)
    else:
        _print_text(traces, claim, stored_route, sys.stdout)
    failed = [t for t in traces if not t.ok]
    for trace in failed:
        line = _("trace {target}: {message}").format(target=trace.target, message=trace.message)
        print(printable(f"linkvet: {line}"), file=sys.stderr)
    return EXIT_SOME_FAILED if failed else EXIT_OK


async def _trace(host: str, options: TraceOptions, table: NetworkTable, count: int) -> list[TraceResult]:
    from probes.traceroute import trace_repeatedly

    return await trace_repeatedly(host, options, table, count)


def _store(
    args: argparse.Namespace, target: Target, traces: Sequence[TraceResult], table: NetworkTable
) -> dict[str, Any] | None:
    """Save each trace as a round; the region's route check over everything stored, when labelled."""
    from desktop.usecases.routes import store_traces, stored_route_check

    store_traces(args.db, target, traces, args.vantage)
    if not (args.provider and args.region):
        return None
    return stored_route_check(args.db, args.provider, args.region, args.line_type, table)


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
        "direction": direction(),
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
    from probes.routes import class_name, merge_verdicts

    out = cast(TextIO, PrintableStream(out))  # hop names and notes come from the network
    first = traces[0]
    if first.address in (None, first.target):
        heading = _("trace to {target}").format(target=first.target)
    else:
        heading = _("trace to {target} ({address})").format(target=first.target, address=first.address)
    out.write(f"{heading}\n{_wrap(direction())}\n")
    for index, trace in enumerate(traces, start=1):
        out.write("\n")
        run = _describe_run(trace)
        if len(traces) > 1:
            run = _("trace {index} of {count}: {run}").format(index=index, count=len(traces), run=run)
        out.write(run + "\n")
        if trace.error is not None:
            out.write(_("ERROR {kind}: {message}").format(kind=trace.error, message=trace.message) + "\n")
            continue
        _hop_table(trace, out)
        if trace.message:
            out.write(_("note: {message}").format(message=trace.message) + "\n")
        if trace.verdict is not None:
            _verdict(trace.verdict, out)
    verdicts = [t.verdict for t in traces if t.verdict is not None and t.hops]
    if len(traces) > 1 and verdicts:
        merged = merge_verdicts(verdicts)
        over = _("over {count} traces: {line} — {summary}").format(
            count=merged.traces, line=class_name(merged.line_class), summary=merged.summary()
        )
        out.write(f"\n{over}\n")
        for doubt in merged.doubts:
            out.write("  " + _("doubt: {doubt}").format(doubt=doubt) + "\n")
    if claim is not None:
        out.write("\n" + _claim_line(claim["agrees"], claim["evidence"], stored=False) + "\n")
    if stored_route is not None:
        out.write(_claim_line(stored_route["agrees"], stored_route["evidence"], stored=True) + "\n")


def _claim_line(agrees: bool | None, evidence: str, *, stored: bool) -> str:
    if stored:
        text = {
            True: _("stored traces of this region (AGREES): {evidence}"),
            False: _("stored traces of this region (MISMATCH): {evidence}"),
            None: _("stored traces of this region (not checkable): {evidence}"),
        }[agrees]
    else:
        text = {
            True: _("claim check (AGREES): {evidence}"),
            False: _("claim check (MISMATCH): {evidence}"),
            None: _("claim check (not checkable): {evidence}"),
        }[agrees]
    return text.format(evidence=evidence)


def _describe_run(trace: TraceResult) -> str:
    socket_kind = {True: _("raw socket"), False: _("unprivileged socket"), None: _("no socket")}[
        trace.privileged
    ]
    if trace.port:
        text = _("{protocol} port {port} ({socket}), {probes} probes per hop, max {hops} hops")
    else:
        text = _("{protocol} ({socket}), {probes} probes per hop, max {hops} hops")
    return text.format(
        protocol=trace.protocol.upper(),
        port=trace.port,
        socket=socket_kind,
        probes=trace.probes_per_hop,
        hops=trace.max_hops,
    )


def _hop_table(trace: TraceResult, out: TextIO) -> None:
    headers = [
        _("HOP"),
        _("ADDRESS"),
        _("LOSS"),
        _("SENT"),
        _("LAST ms"),
        _("AVG ms"),
        _("BEST ms"),
        _("WORST ms"),
        _("NETWORK"),
    ]
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
            also = _("also {address}").format(address=other)
            share = _("{count} of {sent}").format(count=count, sent=hop.sent)
            rows.append(["", also, share, "", "", "", "", "", label])
    if last_answer + 1 < len(hops):
        silent = hops[last_answer + 1 :]
        span = str(silent[0].ttl) if len(silent) == 1 else f"{silent[0].ttl}-{silent[-1].ttl}"
        silence = _("* (no answer)")
        rows.append([span, silence, percent(1.0), str(sum(h.sent for h in silent)), "", "", "", "", ""])
    table(headers, rows, out)


def _network_label(match: NetworkMatch | None, *, destination: bool) -> str:
    label = "" if match is None else f"{match.label} {match.prefix.cidr}"
    if destination:
        return _("{network} (destination)").format(network=label).strip() if label else _("(destination)")
    return label


def _verdict(verdict: RouteVerdict, out: TextIO) -> None:
    from probes.routes import RULES

    line = _("verdict: {line_class} — {explanation}").format(
        line_class=verdict.line_class, explanation=verdict.explanation()
    )
    out.write(line + "\n")
    rule = next((r for r in RULES if r.id == verdict.rule), None)
    if rule is not None:
        line = _("rule {rule} (source: {source})").format(rule=verdict.rule, source=rule.source)
    else:
        line = _("rule {rule}").format(rule=verdict.rule)
    out.write(f"  {line}\n")
    for item in verdict.evidence:
        out.write("  " + _("evidence: {evidence}").format(evidence=item.describe()) + "\n")
    sources = []
    for item in verdict.evidence:
        if item.match.prefix.source not in sources:
            sources.append(item.match.prefix.source)
            line = _("{prefix} source: {source}").format(
                prefix=item.match.prefix.cidr, source=item.match.prefix.source
            )
            out.write(f"    {line}\n")
    for doubt in verdict.doubts:
        out.write("  " + _("doubt: {doubt}").format(doubt=doubt) + "\n")


def _wrap(text: str, width: int = 100) -> str:
    """`text` in lines of at most `width` columns (CJK characters take two; lines break between words,
    and inside a run of Chinese text, where there are no spaces, between any two characters)."""
    from rich.cells import cell_len, chop_cells

    lines: list[str] = []
    for word in text.split():
        pieces = chop_cells(word, width) if cell_len(word) > width else [word]
        for piece in pieces:
            if lines and cell_len(lines[-1]) + 1 + cell_len(piece) <= width:
                lines[-1] = f"{lines[-1]} {piece}"
            else:
                lines.append(piece)
    return "\n".join(lines)
