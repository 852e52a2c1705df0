"""Alert events and their words: the JSON-ready event a notifier receives (keys and enumerated values never
translated) and the sentences people read (gettext, `probes` domain, zh_CN translated).

An event:

    {"status": "firing" | "resolved", "rule": "sj-loss", "kind": "loss",
     "target": {"name", "key", "method", "host", "provider", "region", "line_type"},
     "plan": "office", "vantage": "shanghai-office" | null,
     "value": 7.5, "threshold": 2.0, "unit": "%" | "ms" | "Mbit/s" | "s" | null, "rounds": 3,
     "observed": "163" | null, "expected": "cn2-gia" | null,
     "since": "2026-12-01T12:00:00Z", "at": "2026-12-01T12:05:00Z",
     "text": "FIRING sj-loss from shanghai-office: sj-cn2 (icmp 203.0.113.10): loss 7.5% …"}

A rule that needs several offices (`offices = N`) tells one event for them all (`team_event`): `vantage` is
null, `offices` the offices that see it (by name), `offices_needed` N, `offices_total` how many offices
there are, `values` each office's last judged value (`value`: the highest of those firing).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from probes.alerts.judge import RuleReading
from probes.alerts.rules import AlertRule, describe_rule
from probes.i18n import _, ngettext
from probes.target import Target
from probes.timestamps import iso_utc

FIRING = "firing"
RESOLVED = "resolved"
_UNITS = {"loss": "%", "p95": "ms", "throughput": "Mbit/s", "no_data": "s", "route": None}


def event(
    rule: AlertRule,
    target: Target,
    status: str,
    judgement: RuleReading,
    *,
    plan: str,
    vantage: str | None,
    since_us: int,
    at_us: int,
    expected: str | None = None,
) -> dict[str, Any]:
    """The event of a rule changing state for a target, with its sentence in the current language."""
    out: dict[str, Any] = {
        "status": status,
        "rule": rule.name,
        "kind": rule.kind,
        "target": {
            "name": target.name,
            "key": target.key,
            "method": str(target.method),
            "host": target.host,
            "provider": target.provider,
            "region": target.region,
            "line_type": target.line_type,
        },
        "plan": plan,
        "vantage": vantage,
        "value": judgement.value,
        "threshold": rule.threshold if rule.kind != "no_data" else rule.for_s,
        "unit": _UNITS[rule.kind],
        "rounds": rule.rounds,
        "observed": judgement.observed,
        "expected": expected if rule.kind == "route" else None,
        "since": iso_utc(since_us),
        "at": iso_utc(at_us),
    }
    out["text"] = line(out, rule)
    return out


def team_event(
    rule: AlertRule,
    target: Target,
    status: str,
    *,
    plan: str,
    firing: list[str],
    values: dict[str, float | None],
    total: int,
    since_us: int,
    at_us: int,
) -> dict[str, Any]:
    """The event of a rule that needs several offices (`offices = N`) changing state for a target: which
    offices see it (`offices`, with each office's last judged value), how many were needed and of how many."""
    out: dict[str, Any] = {
        "status": status,
        "rule": rule.name,
        "kind": rule.kind,
        "target": {
            "name": target.name,
            "key": target.key,
            "method": str(target.method),
            "host": target.host,
            "provider": target.provider,
            "region": target.region,
            "line_type": target.line_type,
        },
        "plan": plan,
        "vantage": None,
        "offices": firing,
        "offices_needed": rule.offices,
        "offices_total": total,
        "values": values,
        "value": max((v for o in firing if (v := values.get(o)) is not None), default=None),
        "threshold": rule.threshold if rule.kind != "no_data" else rule.for_s,
        "unit": _UNITS[rule.kind],
        "rounds": rule.rounds,
        "observed": None,
        "expected": rule.expect if rule.kind == "route" else None,
        "since": iso_utc(since_us),
        "at": iso_utc(at_us),
    }
    out["text"] = team_line(out, rule)
    return out


def team_line(event: dict[str, Any], rule: AlertRule) -> str:
    """One line for the offices' shared alert: how many offices see it, which, and each one's value."""
    t = event["target"]
    target = f"{t['name']} ({t['method']} {t['host'] or ''})".replace(" )", ")")
    unit = event["unit"] or ""
    seen = ", ".join(
        f"{office} {event['values'][office]:.1f}{unit}" if event["values"].get(office) is not None else office
        for office in event["offices"]
    )
    fields = {
        "rule": rule.name,
        "count": len(event["offices"]),
        "total": event["offices_total"],
        "needed": rule.offices,
        "offices": seen or "-",
        "target": target,
        "condition": describe_rule(rule),
    }
    if event["status"] == FIRING:
        return _("FIRING {rule} from {count} of {total} offices ({offices}): {target}: {condition}").format(
            **fields
        )
    return _(
        "RESOLVED {rule}: {count} of {total} offices see it now ({offices}), fewer than {needed}: {target}"
    ).format(**fields)


def line(event: dict[str, Any], rule: AlertRule) -> str:
    """One line: status, rule, where from, and what was judged."""
    where = event["vantage"] or event["plan"]
    summary = _summary(event, rule)
    if event["status"] == FIRING:
        return _("FIRING {rule} from {where}: {summary}").format(rule=rule.name, where=where, summary=summary)
    return _("RESOLVED {rule} from {where}: {summary}").format(rule=rule.name, where=where, summary=summary)


def _summary(event: dict[str, Any], rule: AlertRule) -> str:
    t = event["target"]
    target = f"{t['name']} ({t['method']} {t['host'] or ''})".replace(" )", ")")
    firing = event["status"] == FIRING
    value = event["value"] if event["value"] is not None else float("nan")
    threshold = event["threshold"] if event["threshold"] is not None else float("nan")
    fields = {"target": target, "value": value, "threshold": threshold, "rounds": rule.rounds}
    n = rule.rounds
    if rule.kind == "loss":
        text = (
            ngettext(
                "{target}: loss {value:.1f}% in the last round, above {threshold:g}%",
                "{target}: loss {value:.1f}% over the last {rounds} rounds, above {threshold:g}%",
                n,
            )
            if firing
            else ngettext(
                "{target}: loss {value:.1f}% in the last round, back to at most {threshold:g}%",
                "{target}: loss {value:.1f}% over the last {rounds} rounds, back to at most {threshold:g}%",
                n,
            )
        )
    elif rule.kind == "p95":
        text = (
            ngettext(
                "{target}: p95 RTT {value:.1f} ms in the last round, above {threshold:g} ms",
                "{target}: p95 RTT {value:.1f} ms over the last {rounds} rounds, above {threshold:g} ms",
                n,
            )
            if firing
            else ngettext(
                "{target}: p95 RTT {value:.1f} ms in the last round, back to at most {threshold:g} ms",
                "{target}: p95 RTT {value:.1f} ms over the last {rounds} rounds, back to at most {threshold:g} ms",
                n,
            )
        )
        if rule.windows:
            text = _("{judged} (peak hours only)").format(judged=text)
    elif rule.kind == "throughput":
        fields["direction"] = rule.direction
        text = (
            ngettext(
                "{target}: {direction} throughput {value:.1f} Mbit/s in the last transfer, below {threshold:g} Mbit/s",
                "{target}: {direction} throughput {value:.1f} Mbit/s over the last {rounds} transfers, "
                "below {threshold:g} Mbit/s",
                n,
            )
            if firing
            else ngettext(
                "{target}: {direction} throughput {value:.1f} Mbit/s in the last transfer, "
                "back to at least {threshold:g} Mbit/s",
                "{target}: {direction} throughput {value:.1f} Mbit/s over the last {rounds} transfers, "
                "back to at least {threshold:g} Mbit/s",
                n,
            )
        )
    elif rule.kind == "route":
        fields["observed"] = event["observed"] or "?"
        fields["expected"] = event["expected"] or "?"
        text = (
            ngettext(
                "{target}: the route is {observed} on the last trace, expected {expected}",
                "{target}: the route is {observed} on the last {rounds} traces, expected {expected}",
                n,
            )
            if firing
            else _("{target}: the route is {expected} again")
        )
    else:
        fields["minutes"] = value / 60
        fields["limit"] = threshold / 60
        text = (
            _("{target}: no data for {minutes:.0f} min (the rule allows {limit:g} min)")
            if firing
            else _("{target}: data again after {minutes:.0f} min without")
        )
    return text.format(**fields)


def title(events: Sequence[dict[str, Any]]) -> str:
    """A message's title: the one event's, or how many a held batch carries."""
    if len(events) == 1:
        e = events[0]
        name = e["target"]["name"]
        if e["status"] == FIRING:
            return _("linkvet alert: {rule} firing for {target}").format(rule=e["rule"], target=name)
        return _("linkvet alert resolved: {rule} for {target}").format(rule=e["rule"], target=name)
    return ngettext(
        "linkvet: {n} alert notification", "linkvet: {n} alert notifications", len(events)
    ).format(n=len(events))
