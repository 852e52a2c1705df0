"""The scheduled report: a plan's `[report]` table (`probes.schedule.reporting`) carried out by the scheduling
agent. After each round the agent calls `ScheduledReports.after_round`; when the table's weekday and hour have
come since the last report it wrote, the report is written (`desktop.usecases.report.write_report`) in a
thread of its own, so that rounds go on meanwhile, and sent through the notifiers the table names: a short
Markdown summary with the file's path to webhooks (WeCom, DingTalk, Feishu, Slack, linkvet's own), the file
attached to e-mail. A report more than a day late (the agent was down at its hour) is not written, and one
that fails is said in the log once: the next one comes at the next slot. Which slot was written last is kept per plan, vantage point and evaluation in
`scheduled-reports.json` in the user data directory, so a restarted agent does not write it twice. No Qt.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from desktop.i18n import _

if TYPE_CHECKING:
    from probes.alerts.rules import Secrets
    from probes.schedule.plan import Plan
    from probes.schedule.report import RoundReport
    from probes.schedule.reporting import ReportSchedule
    from probes.store_location import StoreLocation

log = logging.getLogger("linkvet.schedule")
LATE_AFTER = timedelta(days=1)
STATE_FILE = "scheduled-reports.json"


class ScheduledReports:
    """A plan's scheduled report: `after_round` is the agent's round hook; `close` waits for a report being
    written. `clock` gives the time (UTC seconds); `state` is the file that remembers the last slot."""

    def __init__(
        self,
        plan: Plan,
        db: StoreLocation,
        *,
        secrets: dict[str, Secrets] | None = None,
        state: Path | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        assert plan.report is not None
        self.plan = plan
        self.schedule: ReportSchedule = plan.report
        self.db = db
        self.secrets = secrets or {}
        self.clock = clock
        if state is None:
            from probes.paths import data_dir

            state = data_dir() / STATE_FILE
        self.state = state
        self.key = f"{plan.name}|{plan.vantage or ''}|{self.schedule.evaluation}"
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self.written: list[Path] = []  # what this agent wrote (for its log and the tests)

    def due(self) -> datetime | None:
        """The slot to write now, or None (not yet, written already, or more than a day late)."""
        now = datetime.fromtimestamp(self.clock(), tz=UTC)
        slot = self.schedule.last_slot(now)
        if now - slot > LATE_AFTER:
            return None
        done = self._done().get(self.key)
        if done is not None and datetime.fromisoformat(done) >= slot:
            return None
        return slot

    def after_round(self, _report: RoundReport) -> None:
        """The round hook: start writing the report when its slot has come (and none is being written)."""
        with self._lock:
            if self._thread is not None and self._thread.is_alive():
                return
            slot = self.due()
            if slot is None:
                return
            self._thread = threading.Thread(
                target=self._write, args=(slot,), name="linkvet-report", daemon=True
            )
            self._thread.start()

    def close(self, timeout_s: float = 300.0) -> None:
        thread = self._thread
        if thread is not None:
            thread.join(timeout_s)

    def _write(self, slot: datetime) -> None:
        from catalogs.user import load_with_user
        from desktop.usecases.report import ReportJob, write_report

        path = self.schedule.path_for(slot)
        try:
            written = write_report(
                ReportJob(
                    self.schedule.evaluation, path, load_with_user(), db=self.db, language=self.schedule.lang
                )
            )
        except Exception as exc:  # an agent keeps measuring whatever a report does: said in its log, once
            log.error(_("scheduled report {file} not written: {reason}").format(file=path, reason=exc))
            self._remember(slot)  # not again every round of the day: the next slot tries again
            return
        self._remember(slot)
        self.written.append(path)
        log.info(_("wrote the scheduled report {file}").format(file=path))
        self._send(written.path, written.summary)

    def _send(self, path: Path, summary: str) -> None:
        if not self.schedule.notify:
            return
        from desktop.i18n import current_language, language
        from probes.alerts.delivery import send_note
        from probes.alerts.rules import Secrets
        from probes.errors import DeliveryError

        assert self.plan.alerting is not None
        with language(self.schedule.lang or current_language()):  # the message in the report's language
            title = _("linkvet report: {evaluation}").format(evaluation=self.schedule.evaluation)
            text = summary + "\n" + _("The report: {file}").format(file=path)
        for name in self.schedule.notify:
            notifier = self.plan.alerting.notifiers[name]
            attachment = path if notifier.type == "email" else None
            try:
                send_note(notifier, self.secrets.get(name) or Secrets(), title, text, attachment)
            except DeliveryError as exc:
                log.warning(
                    _("the scheduled report was not sent to {notifier}: {reason}").format(
                        notifier=name, reason=exc
                    )
                )
            else:
                log.info(_("sent the scheduled report to {notifier}").format(notifier=name))

    def _done(self) -> dict[str, str]:
        try:
            found = json.loads(self.state.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return {str(k): str(v) for k, v in found.items()} if isinstance(found, dict) else {}

    def _remember(self, slot: datetime) -> None:
        from desktop.usecases.errors import WriteError
        from desktop.usecases.files import write_text

        done = self._done()
        done[self.key] = slot.isoformat()
        try:
            write_text(self.state, json.dumps(done, indent=1, sort_keys=True) + "\n")
        except WriteError as exc:
            log.warning(str(exc))


def scheduled_reports(plan: Plan, db: StoreLocation) -> ScheduledReports | None:
    """The hook of the plan's `[report]` (None without one), its notifiers' secrets resolved (a missing one
    is a PlanError before anything starts, as for alerts)."""
    if plan.report is None:
        return None
    secrets: dict[str, Secrets] = {}
    if plan.report.notify and plan.alerting is not None:
        from probes.alerts.rules import Alerting, resolve_secrets

        named = {n: plan.alerting.notifiers[n] for n in plan.report.notify}
        secrets = resolve_secrets(Alerting(plan.alerting.path, (), named))
    return ScheduledReports(plan, db, secrets=secrets)
