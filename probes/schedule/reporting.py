"""A plan's `[report]` table: the evaluation's decision report, written by the scheduling agent at a weekday and
hour, and optionally sent through the plan's notifiers (`[notifiers.NAME]`, `probes.alerts.rules`):

    [report]
    evaluation = "q1"                          # the evaluation in the plan's store
    weekday = "monday"                         # monday … sunday, or "daily"
    hour = 9                                   # the local hour it is written at (0-23)
    tz = "Asia/Shanghai"                       # optional: default the plan's first peak window's zone
    out = "reports/{evaluation}-{date}.pdf"    # .pdf or .html; {evaluation}, {date} (YYYY-MM-DD), {week}
                                               # (YYYY-Www); relative to the plan file's folder
    lang = "zh_CN"                             # optional: en | zh_CN (default: the agent's language)
    notify = ["team-wecom", "management-mail"] # optional: webhooks get a short summary and the file's path,
                                               # e-mail gets the PDF attached

Only what the table says is read here (no evaluation, no catalogs: `probes` knows neither); the agent's hook
(`desktop.usecases.report_schedule`) writes and sends. Errors name the file, the line and the field.
"""

from __future__ import annotations

import re
import string
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Literal
from zoneinfo import ZoneInfo

from pydantic import Field, ValidationError, field_validator

from probes.errors import PeakWindowError, PlanError
from probes.files.filemodel import FileModel
from probes.files.inputfile import explain, field_name, locate
from probes.i18n import _
from probes.peak import check_zone

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
PLACEHOLDERS = frozenset({"evaluation", "date", "week"})
Weekday = Literal["daily", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]


class ReportModel(FileModel):
    evaluation: str = Field(pattern=r"^[a-z0-9][a-z0-9._-]{0,62}$")
    weekday: Weekday = "monday"
    hour: int = Field(default=9, ge=0, le=23)
    tz: str | None = None
    out: str = Field(min_length=1, max_length=1000)
    lang: Literal["en", "zh_CN"] | None = None
    notify: list[str] = Field(default_factory=list)

    @field_validator("tz")
    @classmethod
    def _zone(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                check_zone(value, PeakWindowError)
            except PeakWindowError as exc:
                raise ValueError(str(exc)) from None
        return value

    @field_validator("out")
    @classmethod
    def _pattern(cls, value: str) -> str:
        names = {name for _text, name, _spec, _conv in string.Formatter().parse(value) if name is not None}
        unknown = sorted(names - PLACEHOLDERS)
        if unknown:
            raise ValueError(
                _("unknown placeholder {name} (expected {{evaluation}}, {{date}} or {{week}})").format(
                    name="{" + unknown[0] + "}"
                )
            )
        if not re.search(r"\.(pdf|html?)$", value, re.IGNORECASE):
            raise ValueError(_("a report's name must end in .pdf or .html (the format it is written in)"))
        return value


@dataclass(frozen=True, slots=True)
class ReportSchedule:
    """When and where the agent writes an evaluation's report, and whom it tells."""

    evaluation: str
    weekday: int | None  # 0 = Monday … 6 = Sunday; None: every day
    hour: int
    tz: str
    out: str  # the path pattern
    folder: Path  # relative patterns are relative to this folder (the plan file's)
    lang: str | None = None
    notify: tuple[str, ...] = ()

    def last_slot(self, now: datetime) -> datetime:
        """The latest scheduled moment at or before `now` (aware, in the table's zone)."""
        local = now.astimezone(ZoneInfo(self.tz))
        slot = local.replace(hour=self.hour, minute=0, second=0, microsecond=0)
        if slot > local:
            slot -= timedelta(days=1)
        if self.weekday is not None:
            slot -= timedelta(days=(slot.weekday() - self.weekday) % 7)
        return slot

    def path_for(self, slot: datetime) -> Path:
        """The file of the report of `slot`: the pattern's placeholders filled in."""
        year, week, _day = slot.isocalendar()
        name = self.out.format(
            evaluation=self.evaluation, date=f"{slot:%Y-%m-%d}", week=f"{year}-W{week:02d}"
        )
        path = Path(name).expanduser()
        return path if path.is_absolute() else self.folder / path


def parse_report(
    raw: Mapping[str, Any],
    text: str,
    path: str,
    notifiers: Mapping[str, object],
    default_tz: str,
) -> ReportSchedule:
    """The `[report]` table; PlanError naming the file, line and field (a notifier it names must be one of
    the plan's)."""
    try:
        model = ReportModel.model_validate(dict(raw))
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = ("report", *first["loc"])
        raise PlanError(path, explain(first), line=locate(text, loc), field=field_name(loc)) from None
    for position, name in enumerate(model.notify):
        if name not in notifiers:
            raise PlanError(
                path,
                _("no notifier {name!r} (add a [notifiers.{name}] table; defined: {known})").format(
                    name=name, known=", ".join(sorted(notifiers)) or "-"
                ),
                line=locate(text, ("report", "notify")),
                field=field_name(("report", "notify", position)),
            )
    return ReportSchedule(
        evaluation=model.evaluation,
        weekday=None if model.weekday == "daily" else WEEKDAYS.index(model.weekday),
        hour=model.hour,
        tz=model.tz or default_tz,
        out=model.out,
        folder=Path(path).resolve().parent if not path.startswith("<") else Path.cwd(),
        lang=model.lang,
        notify=tuple(model.notify),
    )
