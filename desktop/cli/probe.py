"""`linkvet probe`: a one-off measurement of one or more hosts or URLs."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from desktop.cli._common import add_db_option, add_vantage_option, flag, port_number
from desktop.cli._format import ProgressLine, result_rows, table
from desktop.cli.errors import EXIT_OK, EXIT_SOME_FAILED, UsageError, context
from desktop.i18n import _
from desktop.usecases.measuring import MeasuringJob
from probes import limits
from probes.target import DEFAULT_CONNECTIONS, DEFAULT_COUNTS

if TYPE_CHECKING:  # for annotations; `run` imports the probes modules when a probe runs
    from probes.results import ProbeResult
    from probes.target import Target


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "probe",
        help=_("measure hosts or URLs now"),
        description=_("Measure one or more hosts or URLs now. Hosts default to ICMP echo, URLs to HTTP."),
    )
    p.add_argument("targets", nargs="*", metavar="HOST_OR_URL", help=_("host, address, host:port or URL"))
    p.add_argument(
        "-f", "--file", type=Path, help=_("read targets from FILE, one per line ('#' starts a comment)")
    )
    p.add_argument(
        "-m",
        "--method",
        choices=[str(m) for m in DEFAULT_COUNTS],
        help=_("probe method (default: icmp for hosts, http for URLs)"),
    )
    p.add_argument(
        "-c",
        "--count",
        type=flag(limits.COUNT),
        help=_(
            "attempts per target (default: 10 for icmp/tcp, 3 for http, 1 for download/iperf3/"
            "responsiveness; responsiveness: tests)"
        ),
    )
    p.add_argument(
        "-i",
        "--interval",
        type=flag(limits.INTERVAL),
        default=1.0,
        metavar="S",
        help=_("seconds between attempts to the same target (default 1)"),
    )
    p.add_argument(
        "-t",
        "--timeout",
        type=flag(limits.TIMEOUT),
        default=2.0,
        metavar="S",
        help=_("seconds to wait for each reply (default 2)"),
    )
    p.add_argument(
        "-p",
        "--port",
        type=port_number,
        help=_(
            "TCP port (tcp), server port (iperf3), or the TCP port "
            "to fall back to when ICMP is not permitted (icmp)"
        ),
    )
    p.add_argument(
        "--gap-ms",
        type=flag(limits.GAP_MS),
        default=1.0,
        help=_("minimum milliseconds between packets to different targets (default 1, as fping -i 1)"),
    )
    p.add_argument(
        "--concurrency",
        type=flag(limits.CONCURRENCY),
        default=256,
        help=_("targets measured at once (default 256)"),
    )
    p.add_argument(
        "--payload",
        type=flag(limits.PAYLOAD),
        default=56,
        metavar="BYTES",
        help=_("ICMP payload size (default 56)"),
    )
    p.add_argument(
        "--max-bytes",
        type=flag(limits.DOWNLOAD_BYTES),
        default=100 * 1024 * 1024,
        help=_("download: stop after this many bytes (default 100 MiB)"),
    )
    p.add_argument(
        "--max-seconds",
        type=flag(limits.DOWNLOAD_SECONDS),
        default=10.0,
        help=_("download: stop after this many seconds (default 10)"),
    )
    p.add_argument(
        "--connections",
        type=flag(limits.CONNECTIONS),
        help=_(
            "download/responsiveness: parallel connections (default 1 for download, 4 for responsiveness)"
        ),
    )
    p.add_argument(
        "--idle-seconds",
        type=flag(limits.LOAD_IDLE),
        default=5.0,
        metavar="S",
        help=_("responsiveness: seconds of latency probes before the load (default 5)"),
    )
    p.add_argument(
        "--probe-interval",
        type=flag(limits.LOAD_PROBE_INTERVAL),
        default=0.1,
        metavar="S",
        help=_("responsiveness: seconds between latency probes, idle and under load (default 0.1)"),
    )
    p.add_argument(
        "--upload-url",
        metavar="URL",
        help=_(
            "responsiveness: also load the uplink by POSTing to this URL (it must accept POST bodies, "
            "e.g. https://speed.cloudflare.com/__up)"
        ),
    )
    p.add_argument(
        "--iperf3-seconds",
        type=flag(limits.IPERF3_SECONDS),
        default=5.0,
        help=_("iperf3: seconds per direction"),
    )
    p.add_argument(
        "--iperf3-omit",
        type=flag(limits.IPERF3_OMIT),
        default=2.0,
        metavar="S",
        help=_("iperf3: seconds of TCP slow start to leave out first (iperf3 -O, default 2)"),
    )
    p.add_argument("--insecure", action="store_true", help=_("http/download: do not verify TLS certificates"))
    p.add_argument("--provider", help=_("label the targets with a catalog provider id"))
    p.add_argument("--region", help=_("label the targets with a catalog region id"))
    p.add_argument(
        "--line-type", help=_("label the targets with the line type the vendor claims (e.g. cn2-gia)")
    )
    p.add_argument("--json", action="store_true", help=_("print one JSON object per target per line"))
    p.add_argument("--no-store", action="store_true", help=_("do not save the results in the store"))
    add_vantage_option(p)
    add_db_option(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from probes.target import Method, ProbeOptions, load_target_list, parse_target

    if not args.targets and args.file is None:
        raise UsageError(_("no targets: give hosts or URLs, or --file FILE"))
    method = Method(args.method) if args.method else None
    labels = {"provider": args.provider, "region": args.region, "line_type": args.line_type}
    targets = [parse_target(text, method, args.port, **labels) for text in args.targets]
    if args.file is not None:  # every line read strictly; a line repeating another names both
        targets += load_target_list(args.file, method, args.port, **labels)
    _refuse_repeats(targets)
    options = {
        m: ProbeOptions(
            count=args.count or DEFAULT_COUNTS[m],
            interval_s=args.interval,
            timeout_s=args.timeout,
            payload_bytes=args.payload,
            verify_tls=not args.insecure,
            download_max_bytes=args.max_bytes,
            download_max_seconds=args.max_seconds,
            download_connections=args.connections or DEFAULT_CONNECTIONS.get(m, 1),
            iperf3_seconds=args.iperf3_seconds,
            iperf3_omit_s=args.iperf3_omit,
            load_idle_s=args.idle_seconds,
            load_probe_interval_s=args.probe_interval,
            load_upload_url=args.upload_url,
        )
        for m in {t.method for t in targets}
    }
    job = MeasuringJob(
        targets,
        options,
        location=args.db,
        keep=not args.no_store,
        vantage=args.vantage,
        source="probe",
        interface="cli",
        concurrency=args.concurrency,
        gap_ms=args.gap_ms,
    )
    job.open()  # a store that cannot be used is said before measuring
    try:
        results = _measure(job, quiet=len(targets) == 1 and args.json)
        _print(results, args.json)  # before storing: a store that refuses must not cost the user the figures
        kept = job.keep(results)
    finally:
        job.close()
    if kept is not None and kept.problem is not None:
        with context(_("the results above were measured but not stored")):
            raise kept.problem
    return EXIT_OK if all(r.ok for r in results) else EXIT_SOME_FAILED


def _measure(job: MeasuringJob, *, quiet: bool) -> list[ProbeResult]:
    progress = ProgressLine(enabled=False if quiet else None)
    try:
        return asyncio.run(job.measure(progress=progress))
    finally:
        progress.finish()


def _print(results: Sequence[ProbeResult], as_json: bool) -> None:
    if as_json:
        for result in results:
            sys.stdout.write(json.dumps(result.as_dict(), allow_nan=False) + "\n")
        return
    headers, rows = result_rows(results)
    table(headers, rows, sys.stdout)


def _refuse_repeats(targets: Sequence[Target]) -> None:
    """One measurement per target: the same target twice (given and in --file, or spelled two ways that
    normalise alike) would share its samples."""
    seen: set[str] = set()
    for target in targets:
        if target.key in seen:
            raise UsageError(
                _("{target} is given twice (each target is measured once)").format(target=target.name)
            )
        seen.add(target.key)
