"""`linkvet history`: without a target, what the store holds (one line per series: a target as it was measured,
its name and labels, from one vantage point; method, address, first and last measurement, rounds, samples,
loss); with one, that target's stored summaries, one line per round, each under the name, labels and vantage
point it was measured with."""

from __future__ import annotations

import argparse
import json
import sys
from datetime import UTC, datetime, timedelta
from typing import Any, SupportsFloat

from desktop.cli._common import add_db_option, flag, time_flag
from desktop.cli._format import number, percent, table
from desktop.cli._safe_text import printable
from desktop.cli.errors import EXIT_OK, UsageError
from desktop.i18n import _, ngettext, vantage_name
from probes import limits
from probes.results import timed_by
from probes.target import Method


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "history",
        help=_("list what the store holds, or show a target's stored measurements"),
        description=_(
            "Without TARGET: every stored target, once per name, labels and vantage point it was measured "
            "with, with its method, address, first and last measurement (UTC), rounds, samples and loss. With "
            "TARGET (its name, host, URL or store key): its stored summaries, one per round, oldest first."
        ),
    )
    p.add_argument(
        "target",
        metavar="TARGET",
        nargs="?",
        help=_("target name, host, URL or key (e.g. icmp:10.0.0.1); omit it to list every stored target"),
    )
    p.add_argument(
        "--since",
        type=time_flag,
        help=_(
            "from this time: ISO date/time (UTC unless it says) or an age "
            "such as 30m, 24h, 7d (default: 24h for a target, everything for the list)"
        ),
    )
    p.add_argument("--until", type=time_flag, help=_("up to this time (same forms as --since)"))
    p.add_argument("--method", choices=[str(m) for m in Method], help=_("only this method"))
    p.add_argument(
        "--limit",
        type=flag(limits.ROWS),
        help=_("only the newest N rows (the list: the N most recently measured targets)"),
    )
    p.add_argument(
        "--json",
        action="store_true",
        help=_("one JSON object per line: per stored result, or per target for the list"),
    )
    add_db_option(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.target is None:
        return list_targets(args)
    from probes.store import Store

    since = args.since or datetime.now(UTC) - timedelta(hours=24)
    with Store(args.db, readonly=True) as store:
        series = store.find_series(args.target)
        if args.method:
            series = [s for s in series if s.method == args.method]
        if not series:
            raise UsageError(
                _("{target!r}: no such target in {store} (try the name, host or URL you probed)").format(
                    target=args.target, store=store.path
                )
            )
        frame = store.results_frame(
            [s.id for s in series],
            since_us=int(since.timestamp() * 1e6),
            until_us=None if args.until is None else int(args.until.timestamp() * 1e6),
        )
    if args.limit:
        frame = frame.tail(args.limit)
    if args.json:
        for row in frame.itertuples(index=False):
            sys.stdout.write(json.dumps(_row_dict(row), allow_nan=False) + "\n")
        return EXIT_OK
    if frame.empty:
        print(
            _("no measurements of {target} since {since} UTC").format(
                target=printable(args.target), since=f"{since:%Y-%m-%d %H:%M}"
            )
        )
        return EXIT_OK
    headers = [
        _("TIME (UTC)"),
        _("TARGET"),
        _("METHOD"),
        _("VANTAGE"),
        _("SENT"),
        _("LOSS"),
        _("MEDIAN ms"),
        _("P95 ms"),
        _("JITTER ms"),
        _("Mbit/s"),
        _("TIMED BY"),
        _("NOTE"),
    ]
    rows = [
        [
            f"{row.started_at:%Y-%m-%d %H:%M:%S}",
            row.name,
            row.method,
            vantage_name(row.vantage),
            str(row.sent),
            percent(_opt(row.loss)),
            number(_opt(row.rtt_median_ms)),
            number(_opt(row.rtt_p95_ms)),
            number(_opt(row.jitter_ms)),
            number(_opt(row.throughput_mbps), 1),
            timed_by(json.loads(row.metrics_json) if row.metrics_json else {}),
            f"{row.error}: {row.message}" if row.error else (row.message or ""),
        ]
        for row in frame.itertuples(index=False)
    ]
    table(headers, rows, sys.stdout)
    return EXIT_OK


def list_targets(args: argparse.Namespace) -> int:
    """What the store holds: one line (or JSON object) per series, by name, method and vantage point."""
    from probes.store import Store

    with Store(args.db, readonly=True) as store:
        held = store.series_histories(method=args.method, since_us=_us(args.since), until_us=_us(args.until))
        path = store.path
    if args.limit:
        held = sorted(held, key=lambda h: h.last_us)[-args.limit :]
        held.sort(key=lambda h: (h.series.name, h.series.method, h.series.vantage))
    if args.json:
        for history in held:
            sys.stdout.write(json.dumps(_history_dict(history), allow_nan=False) + "\n")
        return EXIT_OK
    if not held:
        if args.since:
            empty = _("no measurements in {store} since {since} UTC (run `linkvet probe HOST` to measure)")
        else:
            empty = _("no measurements in {store} (run `linkvet probe HOST` to measure)")
        print(empty.format(store=path, since=f"{args.since:%Y-%m-%d %H:%M}" if args.since else ""))
        return EXIT_OK
    headers = [
        _("TARGET"),
        _("METHOD"),
        _("ADDRESS"),
        _("VANTAGE"),
        _("FIRST (UTC)"),
        _("LAST (UTC)"),
        _("ROUNDS"),
        _("SAMPLES"),
        _("LOSS"),
        _("LINE"),
        _("PROVIDER / REGION"),
    ]
    rows = [
        [
            h.series.name,
            h.series.method,
            h.series.address,
            vantage_name(h.series.vantage),
            _iso(h.first_us, seconds=True),
            _iso(h.last_us, seconds=True),
            str(h.rounds),
            str(h.samples),
            percent(_loss(h.samples, h.replies)),
            h.series.line_type or "",
            " / ".join(label for label in (h.series.provider, h.series.region) if label),
        ]
        for h in held
    ]
    table(headers, rows, sys.stdout)
    print(
        ngettext(
            "{n} series in {store}; `linkvet history TARGET` lists a target's rounds",
            "{n} series in {store}; `linkvet history TARGET` lists a target's rounds",
            len(held),
        ).format(n=len(held), store=path)
    )
    return EXIT_OK


def _history_dict(history: Any) -> dict[str, object]:  # a probes.store.SeriesHistory
    series = history.series
    return {
        "target": series.name,
        "key": series.key,
        "method": series.method,
        "host": series.host,
        "port": series.port,
        "url": series.url,
        "provider": series.provider,
        "region": series.region,
        "line_type": series.line_type,
        "vantage": series.vantage,
        "first_at": _iso(history.first_us),
        "last_at": _iso(history.last_us),
        "rounds": history.rounds,
        "samples": history.samples,
        "replies": history.replies,
        "loss": _loss(history.samples, history.replies),
    }


def _us(moment: datetime | None) -> int | None:
    return None if moment is None else int(moment.timestamp() * 1e6)


def _iso(us: int, *, seconds: bool = False) -> str:
    moment = datetime.fromtimestamp(us / 1e6, UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ") if seconds else moment.isoformat().replace("+00:00", "Z")


def _loss(samples: int, replies: int) -> float | None:
    return None if samples == 0 else (samples - replies) / samples


def _opt(value: SupportsFloat | None) -> float | None:
    if value is None:
        return None
    number_value = float(value)
    return None if number_value != number_value else number_value


def _row_dict(row: Any) -> dict[str, object]:  # a row of DataFrame.itertuples: its fields are untyped
    metrics = json.loads(row.metrics_json) if row.metrics_json else {}
    out: dict[str, object] = {
        "target": row.name,
        "key": row.key,
        "method": row.method,
        "host": row.host,
        "port": _int(row.port),
        "url": row.url,
        "provider": row.provider,
        "region": row.region,
        "line_type": row.line_type,
        "started_at": row.started_at.isoformat().replace("+00:00", "Z"),
        "round_id": int(row.round_id),
        "vantage": row.vantage,
        "sent": int(row.sent),
        "received": int(row.received),
    }
    for key in (
        "loss",
        "rtt_min_ms",
        "rtt_median_ms",
        "rtt_mean_ms",
        "rtt_p95_ms",
        "rtt_max_ms",
        "jitter_ms",
    ):
        out[key] = _opt(getattr(row, key))
    out["error"] = row.error
    out["message"] = row.message
    out.update(metrics)
    return out


def _int(value: SupportsFloat | None) -> int | None:
    as_float = _opt(value)
    return None if as_float is None else int(as_float)
