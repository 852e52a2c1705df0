"""`linkvet accept`: run on the rented GPU server, read what it has (GPUs, NVLink topology, InfiniBand/RoCE,
NVMe, BMC, power, NCCL bandwidth, the return route to China) and check it against what the vendor's catalog
claims. `--replay DIR` reads recorded outputs instead; `--record DIR` writes them. The work is
`desktop.usecases.accept.accept`; this module parses arguments and prints.

Exit codes: 0 the report was made and no claim is contradicted (confirmed and unverified only);
4 at least one claim is contradicted (a finding, not a crash); 2 usage error or malformed input (the message
names the file and line); 3 the environment refused (e.g. a replay directory that does not exist).

`linkvet accept import report.json` (on the office machine) stores a report's checks as verified or
contradicted facts in the provider's overlay (`desktop.usecases.accept_import`); it exits 0 when stored.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, TextIO, cast

from desktop.cli._common import flag
from desktop.cli._format import table
from desktop.cli._safe_text import PrintableStream
from desktop.cli.errors import EXIT_CONTRADICTED, EXIT_OK, UsageError
from probes import limits


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from desktop.cli.catalog import add_catalog_option

    p = subparsers.add_parser(
        "accept",
        help="check a rented GPU server against what its vendor claims (run on the server)",
        description="Read this server's GPUs, NVLink topology, InfiniBand/RoCE, NVMe, BMC and power, NCCL "
        "bandwidth and return route to China, and compare each with the catalog's claims for the offering. "
        "No root needed where the kernel allows reading; what could not be read is listed with why.",
    )
    source = p.add_mutually_exclusive_group()
    source.add_argument(
        "--replay", type=Path, metavar="DIR", help="read recorded outputs from DIR instead of this machine"
    )
    source.add_argument(
        "--record", type=Path, metavar="DIR", help="also write every output read into DIR (replayable)"
    )
    p.add_argument("--provider", metavar="ID", help="catalog provider id (with --offering: check the claims)")
    p.add_argument("--offering", metavar="ID", help="catalog offering id")
    p.add_argument(
        "--region", metavar="ID", help="catalog region id (its line types are checked on the return route)"
    )
    add_catalog_option(p)
    p.add_argument(
        "--needs",
        type=Path,
        metavar="FILE",
        help="training-needs profile: check the inter-node bandwidth it requires",
    )
    p.add_argument(
        "--nccl-log",
        type=Path,
        action="append",
        default=[],
        metavar="FILE",
        help="an all_reduce_perf log or -J JSON (repeatable)",
    )
    p.add_argument(
        "--nccl-tests",
        type=Path,
        metavar="DIR",
        help="run DIR/all_reduce_perf -b 1G -e 8G -f 2 on the local GPUs",
    )
    p.add_argument(
        "--nccl-timeout",
        type=flag(limits.COMMAND_SECONDS),
        default=600.0,
        metavar="S",
        help="time cap for that run (default 600)",
    )
    p.add_argument(
        "--fio", metavar="DEVICE", help="run a bounded read-only fio test of DEVICE (e.g. /dev/nvme0n1)"
    )
    p.add_argument(
        "--fio-json", type=Path, metavar="FILE", help="a fio --output-format=json result to read instead"
    )
    p.add_argument(
        "--return-route", action="store_true", help="trace to the bundled China carrier endpoints (回程)"
    )
    p.add_argument(
        "-P",
        "--trace-protocol",
        choices=["icmp", "udp", "tcp"],
        default="icmp",
        help="protocol of those traces",
    )
    p.add_argument(
        "--office", metavar="HOST", help="also ping (and iperf3 where a server runs) back to the office"
    )
    p.add_argument(
        "--networks", type=Path, metavar="FILE", help="your network table, merged over the bundled one"
    )
    p.add_argument(
        "--no-nvml", action="store_true", help="do not use NVML even when nvidia-ml-py is installed"
    )
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument("--out", type=Path, metavar="FILE", help="write the JSON report to FILE")
    p.set_defaults(run=run)
    verbs = p.add_subparsers(dest="accept_verb", metavar="import")
    importer = verbs.add_parser(
        "import",
        help="on the office machine: store a report's checks as verified facts in your own catalog",
        description="Store an acceptance report's checks with the provider's catalog: measured values become "
        "verified facts (scoring prefers them), claims they contradict are marked contradicted (counted 0).",
    )
    importer.add_argument("report", type=Path, metavar="REPORT.json", help="a report of linkvet accept --out")
    add_catalog_option(importer)
    importer.set_defaults(run=run_import)


def run_import(args: argparse.Namespace) -> int:
    from desktop.cli.catalog import load_or_warn
    from desktop.i18n import _
    from desktop.usecases.accept_import import import_report

    if not args.report.is_file():
        raise UsageError(_("no such file: {file}").format(file=args.report))
    result = import_report(args.report, load_or_warn(args.catalogs, args.user_catalogs))
    where = f"{result.provider}/{result.offering}" + (f" in {result.region}" if result.region else "")
    print(
        _("{file}: checks of {where} on {host} at {time}: {added} stored").format(
            file=args.report, where=where, host=result.host, time=result.created_at, added=result.checks_added
        )
    )
    for change in result.changes:
        if change.what in ("added", "changed"):
            print(_("  {key} = {value}").format(key=change.key, value=_short(change.after)))
    for refused in result.refused:
        print(_("not written (the catalog's rules refuse it): {why}").format(why=refused), file=sys.stderr)
    if result.checks_added or any(c.what in ("added", "changed") for c in result.changes):
        print(_("written to {overlay}").format(overlay=result.overlay))
    else:
        print(_("nothing new: {overlay} already holds this report").format(overlay=result.overlay))
    return EXIT_OK


def run(args: argparse.Namespace) -> int:
    if (args.provider is None) != (args.offering is None):
        raise UsageError("--provider and --offering go together")
    if args.replay is not None and not args.replay.is_dir():
        raise UsageError(f"--replay {args.replay}: not a directory")
    if args.out is not None and not args.out.parent.exists():
        raise UsageError(f"--out {args.out}: the folder {args.out.parent} does not exist")
    report = _accept(args)
    text = json.dumps(report, ensure_ascii=False, indent=1, allow_nan=False)
    if args.out is not None:
        args.out.write_text(text + "\n", encoding="utf-8")
    if args.json:
        sys.stdout.write(text + "\n")
    else:
        print_summary(report, sys.stdout)
        if args.out is not None:
            sys.stdout.write(f"\nreport written to {args.out}\n")
    return EXIT_CONTRADICTED if report["summary"]["contradicted"] else EXIT_OK


def _accept(args: argparse.Namespace) -> dict[str, Any]:
    from catalogs.needs import load_needs
    from desktop.cli.catalog import load_or_warn
    from desktop.usecases.accept import accept
    from probes.accept import AcceptOptions

    options = AcceptOptions(
        replay_dir=args.replay,
        record_dir=args.record,
        nccl_logs=tuple(args.nccl_log),
        nccl_tests_dir=args.nccl_tests,
        nccl_timeout_s=args.nccl_timeout,
        fio_device=args.fio,
        fio_json=args.fio_json,
        return_route=args.return_route,
        trace_protocol=args.trace_protocol,
        office=args.office,
        use_nvml=not args.no_nvml,
        networks=args.networks,
    )
    catalogs = load_or_warn(args.catalogs, args.user_catalogs) if args.provider else None
    needs = load_needs(args.needs) if args.needs else None
    return accept(
        options,
        catalogs=catalogs,
        provider=args.provider,
        offering=args.offering,
        region=args.region,
        needs=needs,
        needs_path=args.needs,
    )


# -- the human summary ------------------------------------------------------------------------------------


def print_summary(report: dict[str, Any], out: TextIO) -> None:
    out = cast(TextIO, PrintableStream(out))  # what the server printed is untrusted
    host = report["host"]
    out.write(f"linkvet accept — {host['hostname']} ({report['machine']}), {report['created_at']}\n")
    facts = report["facts"]
    lines = _fact_lines(facts)
    out.write("\n" + "\n".join(lines) + "\n")
    missing = [r for r in report["read"] if r["status"] != "read"]
    if missing:
        out.write("\nnot read:\n")
        for r in missing:
            out.write(f"  {r['source']}: {r['reason']}\n")
    checks = report.get("checks") or []
    if report.get("claims"):
        c = report["claims"]
        out.write(
            f"\nchecks against {c['provider_name']} / {c['offering']}"
            + (f" / {c['region']}" if c["region"] else "")
            + ":\n"
        )
        rows = [
            [ch["verdict"].upper(), ch["fact"], _short(ch["claimed"]), _short(ch["measured"])]
            for ch in checks
        ]
        table(["VERDICT", "FACT", "CLAIMED", "MEASURED"], rows, out)
        for ch in checks:
            if ch["verdict"] != "confirmed":
                out.write(f"  {ch['fact']}: {ch['evidence']}\n")
        s = report["summary"]
        out.write(
            f"\n{s['confirmed']} confirmed, {s['contradicted']} contradicted, {s['unverified']} unverified\n"
        )
    else:
        out.write("\n(no claims checked: give --provider and --offering)\n")


def _short(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    return str(value)


def _fact_lines(facts: dict[str, Any]) -> list[str]:
    lines = []
    g = facts.get("gpus")
    lines.append(
        "GPUs:      "
        + (
            f"{g['count']} × {', '.join(g['models'])} (driver {g['driver_version'] or '?'}, {g['read_with']})"
            if g
            else "not read"
        )
    )
    t = facts.get("topology")
    lines.append("topology:  " + (f"{t['verdict']} — {t['explanation']}" if t else "not read"))
    r = facts.get("rdma")
    if r is None:
        lines.append("fabric:    not read")
    else:
        parts = [
            f"{k}: {v['active_ports']} active"
            + (f" at {'/'.join(f'{x:g}' for x in v['rates_gbit_s'])} Gb/s" if v["rates_gbit_s"] else "")
            for k, v in (("InfiniBand", r["infiniband"]), ("RoCE", r["roce"]))
        ]
        lines.append("fabric:    " + "; ".join(parts))
    n = facts.get("nvme")
    lines.append("NVMe:      " + (f"{n['count']} namespace(s), {n['total_tb']:.2f} TB" if n else "not read"))
    f = facts.get("fio")
    if f:
        lines.append(
            f"fio:       read {f['read_bw_mbytes_s']:.0f} MB/s, {f['read_iops']:.0f} IOPS ({f['filename']})"
        )
    m = facts.get("management") or {}
    psu = m.get("power_supplies_present")
    lines.append(
        f"BMC:       {'seen' if m.get('bmc_seen') else 'not seen'}; power supplies: "
        + ("not read" if psu is None else f"{psu} present, {m.get('power_supplies_healthy')} healthy")
    )
    nccl = facts.get("nccl")
    for run in (nccl or {}).get("runs", []):
        j = run["judgement"]
        lines.append(f"NCCL:      {run['source']}: {j['explanation']}")
    if not nccl:
        lines.append("NCCL:      no all_reduce_perf result")
    rr = facts.get("return_route")
    if rr:
        lines.append(f"return route, {rr['direction']}:")
        for route in rr["routes"]:
            lines.append(
                f"  {route.get('label') or route.get('address')}: {route.get('class_name') or route.get('error')}"
            )
    office = facts.get("office")
    if office:
        for result in office.get("results", []):
            lines.append(
                f"office:    {result.get('method')} {result.get('target')}: "
                + (
                    f"median {result.get('rtt_median_ms')} ms, loss {result.get('loss')}"
                    if result.get("error") is None
                    else f"{result.get('error')}"
                )
            )
    return lines
