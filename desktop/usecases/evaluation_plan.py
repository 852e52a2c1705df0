"""What an office measures for an evaluation: every candidate's endpoints, each the way a decision needs it,
denser in the evaluation's peak windows, labelled with the candidate's provider, region and claimed line type
(the labels that join each round to its candidate), as a plan the scheduling agent runs
(`desktop.usecases.agent`) or `linkvet eval plan --out` writes.

Per endpoint:
    a host or address   ICMP every round (to TCP port 22 where this machine may not send ICMP), a trace
                        every 15 minutes (the route, outbound)
    host:port           TCP connect every round, ICMP and the trace to its host as above
    an http(s) URL      a download every 30 minutes, long enough to leave slow start (bounded by time, not
                        by size: up to 15 s, at most 1 GiB), a latency-under-load test every 30 minutes,
                        and ICMP and the trace to its host as above
    iperf3 (catalog)    an iperf3 test every 30 minutes
Off-peak every 5 minutes, every minute inside the peak windows (or the evaluation's own `every` and
`peak_every`); its alert rules and notifiers go into the plan as they are written. The plan is written as a
plan document and
read back by the plan reader (`probes.schedule.plan.parse_plan`), so what `eval plan --out` writes and what
an agent runs are the same thing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import tomli_w

from catalogs.evaluation.candidates import candidate_endpoints, claimed_line_type
from catalogs.evaluation.model import Evaluation
from catalogs.loader import CatalogSet
from probes.limits import format_duration, parse_duration
from probes.peak import DEFAULT_PEAK_WINDOWS
from probes.schedule.plan import PLAN_VERSION, Plan, parse_plan
from probes.target import Method, Target, parse_target

EVERY = "5m"
PEAK_EVERY = "1m"
TRACE_EVERY = "15m"
TRANSFER_EVERY = "30m"
ATTEMPTS = 10  # an endpoint's echoes (or handshakes) a round
ICMP_FALLBACK_PORT = 22  # where this machine may not send ICMP: the TCP handshake to the server's SSH
DOWNLOAD_SECONDS = (
    15.0  # long enough to leave slow start on a 300 ms line; the analysis takes its steady rate
)
DOWNLOAD_MAX_BYTES = 1024 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class PlannedEndpoint:
    """One line of the plan, before it is read back: what, how, how often."""

    name: str
    address: dict[str, Any]  # {"host": …} or {"url": …}
    methods: tuple[Method, ...]
    labels: dict[str, str]
    port: int | None = None
    every: str | None = None


def evaluation_plan(
    evaluation: Evaluation, catalogs: CatalogSet, office: str | None, *, alerts: bool = True
) -> Plan:
    """The plan `office` runs for the evaluation (office None: this machine, no vantage point); without its
    alert rules when `alerts` is false. PlanError when a rule selects none of the plan's targets."""
    text = plan_document(evaluation, catalogs, office, alerts=alerts)
    return parse_plan(text, f"evaluation {evaluation.name}")


def plan_document(
    evaluation: Evaluation, catalogs: CatalogSet, office: str | None, *, alerts: bool = True
) -> str:
    """The plan as a plan file's text (versioned; `linkvet schedule --plan` runs it as it is)."""
    entries: list[PlannedEndpoint] = []
    for candidate in evaluation.candidates:
        labels = {"provider": candidate.provider, "region": candidate.region}
        line_type = claimed_line_type(candidate, catalogs)
        if line_type:
            labels["line_type"] = line_type
        for endpoint in candidate_endpoints(candidate, catalogs):
            entries += _planned(parse_target(endpoint.address), endpoint.method, labels, candidate.label)
    doc: dict[str, Any] = {
        "version": PLAN_VERSION,
        "name": evaluation.name,
        **({"vantage": office} if office else {}),
        "schedule": {
            "every": _every(evaluation),
            "peak_every": _peak_every(evaluation),
            "peak_windows": [str(w) for w in evaluation.peak_windows],
        },
        "defaults": {
            "count": ATTEMPTS,
            "interval": 1.0,
            "timeout": 2.0,
            "download": {"count": 1, "max_seconds": DOWNLOAD_SECONDS, "max_bytes": DOWNLOAD_MAX_BYTES},
            "responsiveness": {"count": 1},
            "iperf3": {"count": 1},
        },
        "targets": [_target_table(e) for e in _unique(entries)],
    }
    if not doc["targets"]:
        del doc["targets"]
    if alerts and evaluation.schedule.alerts:
        tables = evaluation.schedule.as_tables()
        doc["alerts"], doc["notifiers"] = tables["alerts"], tables.get("notifiers", {})
    header = (
        f"# The plan of evaluation {evaluation.name!r}"
        + (f" for the office {office!r}" if office else "")
        + " (written by `linkvet eval plan`).\n"
    )
    return header + tomli_w.dumps(doc)


def _every(evaluation: Evaluation) -> str:
    every_s = evaluation.schedule.every_s
    return EVERY if every_s is None else format_duration(every_s)


def _peak_every(evaluation: Evaluation) -> str:
    """The evaluation's peak cadence (never slower than its off-peak one: a team that sets only `every`
    below 1m gets its peak at that cadence too)."""
    peak_s, every_s = evaluation.schedule.peak_every_s, evaluation.schedule.every_s
    if peak_s is not None:
        return format_duration(peak_s)
    if every_s is not None and every_s < parse_duration(PEAK_EVERY):
        return format_duration(every_s)
    return PEAK_EVERY


def _planned(
    target: Target, catalog_method: str | None, labels: dict[str, str], candidate: str
) -> list[PlannedEndpoint]:
    host = str(target.host)
    shown = target.url or target.name
    out: list[PlannedEndpoint] = []
    if catalog_method == "iperf3":
        return [
            PlannedEndpoint(
                f"{candidate} iperf3 {shown}",
                {"host": host},
                (Method.IPERF3,),
                labels,
                target.port,
                TRANSFER_EVERY,
            )
        ]
    if target.url is not None:
        out.append(
            PlannedEndpoint(
                f"{candidate} {shown}",
                {"url": target.url},
                (Method.DOWNLOAD, Method.RESPONSIVENESS),
                labels,
                None,
                TRANSFER_EVERY,
            )
        )
    elif target.method is Method.TCP:
        out.append(
            PlannedEndpoint(f"{candidate} tcp {shown}", {"host": host}, (Method.TCP,), labels, target.port)
        )
    port = target.port if target.method is Method.TCP else ICMP_FALLBACK_PORT
    out.append(PlannedEndpoint(f"{candidate} {host}", {"host": host}, (Method.ICMP,), labels, port))
    out.append(
        PlannedEndpoint(f"{candidate} {host}", {"host": host}, (Method.TRACE,), labels, None, TRACE_EVERY)
    )
    return out


def _unique(entries: list[PlannedEndpoint]) -> list[PlannedEndpoint]:
    """One entry per (what, how, labels): a host given twice (its address and a URL on it) is measured once."""
    seen: set[tuple[Any, ...]] = set()
    kept = []
    for entry in entries:
        key = (tuple(sorted(entry.address.items())), entry.methods, tuple(sorted(entry.labels.items())))
        if key not in seen:
            seen.add(key)
            kept.append(entry)
    return kept


def _target_table(entry: PlannedEndpoint) -> dict[str, Any]:
    table: dict[str, Any] = {"name": entry.name, **entry.address, "methods": [str(m) for m in entry.methods]}
    if entry.port is not None:
        table["port"] = entry.port
    table.update(entry.labels)
    if entry.every is not None:
        table["every"] = entry.every
    return table


def planned_peak_samples(evaluation: Evaluation) -> float:
    """The peak samples an evening the evaluation's plan measures of a candidate's line, at the least: one
    endpoint, its longest peak window at its peak cadence, `ATTEMPTS` a round. What the evidence and the
    ranking count on for the evenings still needed (`catalogs.checklist.Evidence.planned_peak_samples`):
    one round measured at peak is not an evening's worth."""
    windows = evaluation.peak_windows or DEFAULT_PEAK_WINDOWS
    minutes = max(
        ((w.end.hour * 60 + w.end.minute) - (w.start.hour * 60 + w.start.minute)) % (24 * 60) for w in windows
    )
    return max(1.0, minutes * 60 / parse_duration(_peak_every(evaluation))) * ATTEMPTS
