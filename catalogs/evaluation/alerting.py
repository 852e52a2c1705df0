"""An evaluation's own schedule and alerts (format 2): how often its candidates are measured, and the alert
rules every office's agent judges for it, with the notifiers they name::

    every = "5m"                        # off-peak (default 5m)
    peak_every = "1m"                   # inside the peak windows (default 1m)

    [[alerts]]                          # as in a plan file (`probes.alerts.rules`), plus `offices`
    name = "peak-loss"
    when = "loss"
    above = 2.0
    peak_only = true
    offices = 2                         # one alert when at least 2 of the evaluation's offices see it at once
    notify = ["team-webhook"]

    [notifiers.team-webhook]
    type = "webhook"
    url_env = "LINKVET_TEAM_WEBHOOK"    # each office's agent reads it from its own environment

The tables are checked here as the plan reader checks them (every field, its type and range, every notifier a
rule names, `offices` no more than the evaluation has), with the document's line; whether a rule selects a
target is checked where the plan is built (it depends on the candidates' endpoints in the catalogs). The
evaluation keeps the tables as written and hands them to its plan (`desktop.usecases.evaluation_plan`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from catalogs.errors import EvaluationError
from catalogs.i18n import _, ngettext
from probes import limits
from probes.alerts.rules import AlertingModel
from probes.files.inputfile import explain

Fail = Callable[..., EvaluationError]
V2_KEYS = ("every", "peak_every", "alerts", "notifiers")


@dataclass(frozen=True, slots=True)
class EvaluationSchedule:
    """What format 2 adds: the cadences (None: linkvet's defaults) and the alert tables as written."""

    every_s: float | None = None
    peak_every_s: float | None = None
    alerts: tuple[Mapping[str, Any], ...] = ()
    notifiers: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    @property
    def given(self) -> bool:
        """Whether anything of format 2 is given (the document is written as format 1 otherwise)."""
        return (
            self.every_s is not None or self.peak_every_s is not None or bool(self.alerts or self.notifiers)
        )

    def as_tables(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.every_s is not None:
            out["every"] = limits.format_duration(self.every_s)
        if self.peak_every_s is not None:
            out["peak_every"] = limits.format_duration(self.peak_every_s)
        if self.alerts:
            out["alerts"] = [dict(rule) for rule in self.alerts]
        if self.notifiers:
            out["notifiers"] = {name: dict(table) for name, table in self.notifiers.items()}
        return out


def parse_schedule(raw: Mapping[str, Any], offices: int, fail: Fail) -> EvaluationSchedule:
    """The format-2 fields of a document (`fail(message, *location)` builds the error with its line)."""
    every = _cadence(raw, "every", fail)
    peak_every = _cadence(raw, "peak_every", fail)
    if every is not None and peak_every is not None and peak_every > every:
        raise fail(
            _(
                "peak_every ({peak}) is longer than every ({every}): the peak windows are measured more often "
                "than the rest of the day, not less"
            ).format(peak=limits.format_duration(peak_every), every=limits.format_duration(every)),
            "peak_every",
        )
    tables = {key: raw[key] for key in ("alerts", "notifiers") if key in raw}
    try:
        model = AlertingModel.model_validate(tables)
    except ValidationError as exc:
        first = exc.errors()[0]
        raise fail(explain(first), *first["loc"]) from None
    for index, rule in enumerate(model.alerts):
        for position, name in enumerate(rule.notify):
            if name not in model.notifiers:
                raise fail(
                    _("no notifier {name!r} (add a [notifiers.{name}] table; defined: {known})").format(
                        name=name, known=", ".join(sorted(model.notifiers)) or "-"
                    ),
                    "alerts",
                    index,
                    "notify",
                    position,
                )
        if rule.offices is not None and rule.offices > offices:
            raise fail(
                ngettext(
                    "offices = {wanted}: the evaluation has {count} office; a rule can ask for at most that "
                    "many to agree",
                    "offices = {wanted}: the evaluation has {count} offices; a rule can ask for at most that "
                    "many to agree",
                    offices,
                ).format(wanted=rule.offices, count=offices),
                "alerts",
                index,
                "offices",
            )
    return EvaluationSchedule(
        every,
        peak_every,
        tuple(dict(rule) for rule in tables.get("alerts", [])),
        {name: dict(table) for name, table in tables.get("notifiers", {}).items()},
    )


def _cadence(raw: Mapping[str, Any], key: str, fail: Fail) -> float | None:
    if key not in raw:
        return None
    try:
        return limits.parse_duration(raw[key], limits.CADENCE)
    except ValueError as exc:
        raise fail(str(exc), key) from None
