"""`linkvet probe`: a one-off measurement of one or more hosts or URLs."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from desktop.cli._common import (
    add_db_option,
    add_vantage_option,
    non_negative_float,
    port_number,
    positive_float,
    positive_int,
)
from desktop.cli._format import ProgressLine, result_rows, table
from desktop.cli.errors import EXIT_OK, EXIT_SOME_FAILED, UsageError, context
from probes.target import DEFAULT_COUNTS

if TYPE_CHECKING:  # for annotations; `run` imports the probes modules when a probe runs
    from probes.results import ProbeResult
    from probes.store import Store
    from probes.target import Method, ProbeOptions, Target


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "probe",
        help="measure hosts or URLs now",
        description="Measure one or more hosts or URLs now. Hosts default to ICMP echo, URLs to HTTP.",
    )
    p.add_argument("targets", nargs="*", metavar="HOST_OR_URL", help="host, address, host:port or URL")
    p.add_argument(
        "-f", "--file", type=Path, help="read targets from FILE, one per line ('#' starts a comment)"
    )
    p.add_argument(
        "-m",
        "--method",
        choices=[str(m) for m in DEFAULT_COUNTS],
        help="probe method (default: icmp for hosts, http for URLs)",
    )
    p.add_argument(
        "-c",
        "--count",
        type=positive_int,
        help="attempts per target (default: 10 for icmp/tcp, 3 for http, 1 for download/iperf3)",
    )
    p.add_argument(
        "-i",
        "--interval",
        type=non_negative_float,
        default=1.0,
        metavar="S",
        help="seconds between attempts to the same target (default 1)",
    )
    p.add_argument(
        "-t",
        "--timeout",
        type=positive_float,
        default=2.0,
        metavar="S",
        help="seconds to wait for each reply (default 2)",
    )
    p.add_argument(
        "-p",
        "--port",
        type=port_number,
        help="TCP port (tcp), server port (iperf3), or the TCP port "
        "to fall back to when ICMP is not permitted (icmp)",
    )
    p.add_argument(
        "--gap-ms",
        type=non_negative_float,
        default=1.0,
        help="minimum milliseconds between packets to different targets (default 1, as fping -i 1)",
    )
    p.add_argument(
        "--concurrency", type=positive_int, default=256, help="targets measured at once (default 256)"
    )
    p.add_argument("--payload", type=int, default=56, metavar="BYTES", help="ICMP payload size (default 56)")
    p.add_argument(
        "--max-bytes",
        type=positive_int,
        default=100 * 1024 * 1024,
        help="download: stop after this many bytes (default 100 MiB)",
    )
    p.add_argument(
        "--max-seconds",
        type=positive_float,
        default=10.0,
        help="download: stop after this many seconds (default 10)",
    )
    p.add_argument("--connections", type=positive_int, default=1, help="download: parallel connections")
    p.add_argument("--iperf3-seconds", type=positive_float, default=5.0, help="iperf3: seconds per direction")
    p.add_argument(
        "--iperf3-omit",
        type=non_negative_float,
        default=2.0,
        metavar="S",
        help="iperf3: seconds of TCP slow start to leave out first (iperf3 -O, default 2)",
    )
    p.add_argument("--insecure", action="store_true", help="http/download: do not verify TLS certificates")
    p.add_argument("--provider", help="label the targets with a catalog provider id")
    p.add_argument("--region", help="label the targets with a catalog region id")
    p.add_argument(
        "--line-type", help="label the targets with the line type the vendor claims (e.g. cn2-gia)"
    )
    p.add_argument("--json", action="store_true", help="print one JSON object per target per line")
    p.add_argument("--no-store", action="store_true", help="do not save the results in the store")
    add_vantage_option(p)
    add_db_option(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from probes.errors import TargetError
    from probes.target import Method, ProbeOptions, parse_target

    texts: list[tuple[str, str | None]] = [(text, None) for text in args.targets]
    if args.file is not None:
        texts.extend(_read_target_file(args.file))
    if not texts:
        raise UsageError("no targets: give hosts or URLs, or --file FILE")
    method = Method(args.method) if args.method else None
    labels = {"provider": args.provider, "region": args.region, "line_type": args.line_type}
    targets = []
    for text, origin in texts:
        try:
            targets.append(parse_target(text, method, args.port, **labels))
        except TargetError as exc:  # say which line of the list, and which text, it was
            where = f"{origin}: " if origin else ""
            raise TargetError(f"{where}{exc}" if text in str(exc) else f"{where}{text}: {exc}") from exc
    options = {
        m: ProbeOptions(
            count=args.count or DEFAULT_COUNTS[m],
            interval_s=args.interval,
            timeout_s=args.timeout,
            payload_bytes=args.payload,
            verify_tls=not args.insecure,
            download_max_bytes=args.max_bytes,
            download_max_seconds=args.max_seconds,
            download_connections=args.connections,
            iperf3_seconds=args.iperf3_seconds,
            iperf3_omit_s=args.iperf3_omit,
        )
        for m in {t.method for t in targets}
    }
    store = None if args.no_store else _open_store(args.db)
    try:
        results = _measure(targets, options, args)
        _print(results, args.json)  # before storing: a store that refuses must not cost the user the figures
        if store is not None:
            with context("the results above were measured but not stored"):
                store.save_results(results, source="probe", vantage=args.vantage)
    finally:
        if store is not None:
            store.close()
    return EXIT_OK if all(r.ok for r in results) else EXIT_SOME_FAILED


def _open_store(path: Path | None) -> Store:
    from probes.store import Store  # pandas and NumPy load only when there is something to store

    return Store(path)


def _measure(
    targets: Sequence[Target], options: Mapping[Method, ProbeOptions], args: argparse.Namespace
) -> list[ProbeResult]:
    from probes.runner import Runner

    progress = ProgressLine(enabled=None if len(targets) > 1 or not args.json else False)
    runner = Runner(options, concurrency=args.concurrency, gap_ms=args.gap_ms, progress=progress)
    try:
        return asyncio.run(runner.run(targets))
    finally:
        progress.finish()


def _print(results: Sequence[ProbeResult], as_json: bool) -> None:
    if as_json:
        for result in results:
            sys.stdout.write(json.dumps(result.as_dict(), allow_nan=False) + "\n")
        return
    headers, rows = result_rows(results)
    table(headers, rows, sys.stdout)


def _read_target_file(path: Path) -> list[tuple[str, str | None]]:
    """(target text, "FILE:LINE") for each target in a list file; '#' starts a comment."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"{path}: cannot read the target list: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise UsageError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from exc
    entries: list[tuple[str, str | None]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        target = line.split("#", 1)[0].strip()
        if target:
            entries.append((target, f"{path}:{number}"))
    return entries
