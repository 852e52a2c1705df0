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

from catalogs.facts import standing_name
from catalogs.i18n import clauses
from desktop.cli._common import flag, path_given
from desktop.cli._format import table
from desktop.cli._safe_text import PrintableStream
from desktop.cli.errors import EXIT_CONTRADICTED, EXIT_OK, UsageError
from desktop.i18n import _
from probes import limits


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from desktop.cli.catalog import add_catalog_option, add_team_options

    p = subparsers.add_parser(
        "accept",
        help=_("check a rented GPU server against what its vendor claims (run on the server)"),
        description=_(
            "Read this server's GPUs, NVLink topology, InfiniBand/RoCE, NVMe, BMC and power, NCCL "
            "bandwidth and return route to China, and compare each with the catalog's claims for the offering. "
            "No root needed where the kernel allows reading; what could not be read is listed with why."
        ),
    )
    source = p.add_mutually_exclusive_group()
    source.add_argument(
        "--replay", type=Path, metavar="DIR", help=_("read recorded outputs from DIR instead of this machine")
    )
    source.add_argument(
        "--record",
        type=path_given,
        metavar="DIR",
        help=_("also write every output read into DIR (replayable)"),
    )
    p.add_argument(
        "--provider", metavar="ID", help=_("catalog provider id (with --offering: check the claims)")
    )
    p.add_argument("--offering", metavar="ID", help=_("catalog offering id"))
    p.add_argument(
        "--region", metavar="ID", help=_("catalog region id (its line types are checked on the return route)")
    )
    add_catalog_option(p)
    p.add_argument(
        "--needs",
        type=Path,
        metavar="FILE",
        help=_("training-needs profile: check the inter-node bandwidth it requires"),
    )
    p.add_argument(
        "--nccl-log",
        type=Path,
        action="append",
        default=[],
        metavar="FILE",
        help=_("an all_reduce_perf log or -J JSON (repeatable)"),
    )
    p.add_argument(
        "--nccl-tests",
        type=Path,
        metavar="DIR",
        help=_("run DIR/all_reduce_perf -b 1G -e 8G -f 2 on the local GPUs"),
    )
    p.add_argument(
        "--nccl-timeout",
        type=flag(limits.COMMAND_SECONDS),
        default=600.0,
        metavar="S",
        help=_("time cap for that run (default 600)"),
    )
    p.add_argument(
        "--fio", metavar="DEVICE", help=_("run a bounded read-only fio test of DEVICE (e.g. /dev/nvme0n1)")
    )
    p.add_argument(
        "--fio-json", type=Path, metavar="FILE", help=_("a fio --output-format=json result to read instead")
    )
    p.add_argument(
        "--return-route", action="store_true", help=_("trace to the bundled China carrier endpoints (回程)")
    )
    p.add_argument(
        "-P",
        "--trace-protocol",
        choices=["icmp", "udp", "tcp"],
        default="icmp",
        help=_("protocol of those traces"),
    )
    p.add_argument(
        "--office", metavar="HOST", help=_("also ping (and iperf3 where a server runs) back to the office")
    )
    p.add_argument(
        "--networks", type=Path, metavar="FILE", help=_("your network table, merged over the bundled one")
    )
    p.add_argument(
        "--no-nvml", action="store_true", help=_("do not use NVML even when nvidia-ml-py is installed")
    )
    p.add_argument("--json", action="store_true", help=_("print the report as JSON"))
    p.add_argument("--out", type=path_given, metavar="FILE", help=_("write the JSON report to FILE"))
    p.set_defaults(run=run)
    verbs = p.add_subparsers(dest="accept_verb", metavar="import")
    importer = verbs.add_parser(
        "import",
        help=_("on the office machine: store a report's checks as verified facts in your own catalog"),
        description=_(
            "Store an acceptance report's checks with the provider's catalog: measured values become "
            "verified facts (scoring prefers them), claims they contradict are marked contradicted (counted 0)."
        ),
    )
    importer.add_argument(
        "report", type=Path, metavar="REPORT.json", help=_("a report of linkvet accept --out")
    )
    add_catalog_option(importer)
    add_team_options(importer, dest="team_office")
    importer.set_defaults(run=run_import)


def run_import(args: argparse.Namespace) -> int:
    from desktop.cli.catalog import load_or_warn
    from desktop.usecases.accept_import import import_report
    from desktop.usecases.files import not_a_file

    if (problem := not_a_file(args.report)) is not None:
        raise UsageError(_("{file}: {problem}").format(file=args.report, problem=problem))
    from desktop.usecases.overlay_home import overlay_home

    catalogs = load_or_warn(args.catalogs, args.user_catalogs, args.db)
    home = overlay_home(db=args.db, office=args.team_office)
    result = import_report(args.report, catalogs, home)
    where = f"{result.provider}/{result.offering}" + (f" in {result.region}" if result.region else "")
    print(
        _("{file}: checks of {where} on {host} at {time}: {added} stored").format(
            file=args.report, where=where, host=result.host, time=result.created_at, added=result.checks_added
        )
    )
    for change in result.changes:
        if change.what in ("added", "changed"):
            print(
                _("  {key} = {value} ({standing})").format(
                    key=change.key, value=_short(change.after), standing=standing_name(change.standing)
                )
            )
    for refused in result.refused:
        print(_("not written (the catalog's rules refuse it): {why}").format(why=refused), file=sys.stderr)
    if result.checks_added or any(c.what in ("added", "changed") for c in result.changes):
        print(_("written to {overlay}").format(overlay=result.overlay))
    else:
        print(_("nothing new: {overlay} already holds this report").format(overlay=result.overlay))
    from desktop.cli._catalog_team import print_conflicts

    print_conflicts(args.db, result.provider)
    return EXIT_OK


def run(args: argparse.Namespace) -> int:
    if (args.provider is None) != (args.offering is None):
        raise UsageError(_("--provider and --offering go together"))
    if args.replay is not None and not args.replay.is_dir():
        from desktop.usecases.files import not_a_folder

        what = not_a_folder(args.replay) or _("is not a folder")
        raise UsageError(_("--replay {dir}: {problem}").format(dir=args.replay, problem=what))
    if args.out is not None and args.out.parent.exists() and not args.out.parent.is_dir():
        raise UsageError(
            _("--out {file}: {folder} is a file, not a folder").format(file=args.out, folder=args.out.parent)
        )
    if args.out is not None and not args.out.parent.exists():
        raise UsageError(
            _("--out {file}: the folder {folder} does not exist").format(
                file=args.out, folder=args.out.parent
            )
        )
    report = _accept(args)
    text = json.dumps(report, ensure_ascii=False, indent=1, allow_nan=False)
    if args.out is not None:
        from desktop.usecases.files import write_text

        write_text(args.out, text + "\n")
    if args.json:
        sys.stdout.write(text + "\n")
    else:
        print_summary(report, sys.stdout)
        if args.out is not None:
            sys.stdout.write("\n" + _("report written to {file}").format(file=args.out) + "\n")
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
    heading = _("linkvet accept — {host} ({machine}), {created}").format(
        host=host["hostname"], machine=report["machine"], created=report["created_at"]
    )
    out.write(heading + "\n")
    facts = report["facts"]
    out.write("\n" + "\n".join(_lined_up(_fact_lines(facts))) + "\n")
    missing = [r for r in report["read"] if r["status"] != "read"]
    if missing:
        out.write("\n" + _("not read:") + "\n")
        for r in missing:
            out.write("  " + _("{name}: {text}").format(name=r["source"], text=r["reason"]) + "\n")
    checks = report.get("checks") or []
    if report.get("claims"):
        c = report["claims"]
        if c["region"]:
            against = _("checks against {provider} / {offering} / {region}:")
        else:
            against = _("checks against {provider} / {offering}:")
        out.write(
            "\n"
            + against.format(provider=c["provider_name"], offering=c["offering"], region=c["region"])
            + "\n"
        )
        rows = [
            [ch["verdict"].upper(), ch["fact"], _short(ch["claimed"]), _short(ch["measured"])]
            for ch in checks
        ]
        table([_("VERDICT"), _("FACT"), _("CLAIMED"), _("MEASURED")], rows, out)
        for ch in checks:
            if ch["verdict"] != "confirmed":
                out.write("  " + _("{name}: {text}").format(name=ch["fact"], text=ch["evidence"]) + "\n")
        s = report["summary"]
        counts = _("{confirmed} confirmed, {contradicted} contradicted, {unverified} unverified").format(
            confirmed=s["confirmed"], contradicted=s["contradicted"], unverified=s["unverified"]
        )
        out.write(f"\n{counts}\n")
    else:
        out.write("\n" + _("(no claims checked: give --provider and --offering)") + "\n")


def _lined_up(lines: list[tuple[str, str] | str]) -> list[str]:
    """`label  value` lines with the values in one column by display width (a Chinese label takes two
    columns a character); a plain string is a line as it is."""
    from rich.cells import cell_len

    widest = max((cell_len(line[0]) for line in lines if isinstance(line, tuple)), default=0)
    return [
        line if isinstance(line, str) else line[0] + " " * (widest - cell_len(line[0]) + 2) + line[1]
        for line in lines
    ]


def _short(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    return str(value)


def _fact_lines(facts: dict[str, Any]) -> list[tuple[str, str] | str]:
    unread = _("not read")
    lines: list[tuple[str, str] | str] = []
    g = facts.get("gpus")
    gpus = unread
    if g:
        gpus = _("{count} × {models} (driver {driver}, {read_with})").format(
            count=g["count"],
            models=", ".join(g["models"]),
            driver=g["driver_version"] or "?",
            read_with=g["read_with"],
        )
    lines.append((_("GPUs:"), gpus))
    t = facts.get("topology")
    lines.append((_("topology:"), f"{t['verdict']} — {t['explanation']}" if t else unread))
    r = facts.get("rdma")
    if r is None:
        lines.append((_("fabric:"), unread))
    else:
        parts = []
        for kind, v in (("InfiniBand", r["infiniband"]), ("RoCE", r["roce"])):
            if v["rates_gbit_s"]:
                parts.append(
                    _("{kind}: {ports} active at {rates} Gb/s").format(
                        kind=kind,
                        ports=v["active_ports"],
                        rates="/".join(f"{x:g}" for x in v["rates_gbit_s"]),
                    )
                )
            else:
                parts.append(_("{kind}: {ports} active").format(kind=kind, ports=v["active_ports"]))
        lines.append((_("fabric:"), clauses(parts)))
    n = facts.get("nvme")
    nvme = unread
    if n:
        nvme = _("{count} namespace(s), {tb} TB").format(count=n["count"], tb=f"{n['total_tb']:.2f}")
    lines.append((_("NVMe:"), nvme))
    f = facts.get("fio")
    if f and f.get("doubt"):
        lines.append((_("fio:"), _("could not judge: {reason}").format(reason=f["doubt"])))
    elif f:
        lines.append(
            (
                _("fio:"),
                _("read {bandwidth} MB/s, {iops} IOPS ({file})").format(
                    bandwidth=f"{f['read_bw_mbytes_s']:.0f}", iops=f"{f['read_iops']:.0f}", file=f["filename"]
                ),
            )
        )
    m = facts.get("management") or {}
    psu = m.get("power_supplies_present")
    if psu is None:
        power = _("{seen}; power supplies: not read")
    else:
        power = _("{seen}; power supplies: {present} present, {healthy} healthy")
    seen = _("seen") if m.get("bmc_seen") else _("not seen")
    lines.append((_("BMC:"), power.format(seen=seen, present=psu, healthy=m.get("power_supplies_healthy"))))
    nccl = facts.get("nccl")
    for run in (nccl or {}).get("runs", []):
        j = run["judgement"]
        lines.append((_("NCCL:"), _("{name}: {text}").format(name=run["source"], text=j["explanation"])))
    if not nccl:
        lines.append((_("NCCL:"), _("no all_reduce_perf result")))
    rr = facts.get("return_route")
    if rr:
        lines.append(_("return route, {direction}:").format(direction=rr["direction"]))
        for route in rr["routes"]:
            lines.append(
                "  "
                + _("{name}: {text}").format(
                    name=route.get("label") or route.get("address"),
                    text=route.get("class_name") or route.get("error"),
                )
            )
    office = facts.get("office")
    if office:
        for result in office.get("results", []):
            words = {
                "method": result.get("method"),
                "target": result.get("target"),
                "median": result.get("rtt_median_ms"),
                "loss": result.get("loss"),
                "error": result.get("error"),
            }
            if result.get("error") is None:
                text = _("{method} {target}: median {median} ms, loss {loss}")
            else:
                text = _("{method} {target}: {error}")
            lines.append((_("office:"), text.format(**words)))
    return lines
