"""The evaluation home's measuring panel: the background agent (`desktop.usecases.agent_process`) of the open
evaluation from this computer's office — measuring or not, its last stored round, the rounds waiting in the
spool, the next round — with Start measuring, Stop measuring and Install as my service…; and what the other
offices' agents last reported in the store.

The agent is a process of its own: closing the window leaves it measuring, and the next window finds it again.
Every look at it and every start or stop runs in a worker; a timer looks again every `REFRESH_MS`.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

from PySide6.QtCore import QEvent, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from catalogs.i18n import sentences
from desktop.app.context import AppContext
from desktop.i18n import vantage_name

if TYPE_CHECKING:
    from catalogs.evaluation.model import Evaluation
    from catalogs.loader import CatalogSet
    from desktop.usecases.agent_process import BackgroundAgent, LockHolder, MeasuringStatus
    from desktop.usecases.agent_service import UserService
    from probes.store_location import StoreLocation

REFRESH_MS = 10_000


def status_in_worker(
    db: StoreLocation, evaluation: Evaluation, catalogs: CatalogSet, office: str | None
) -> MeasuringStatus:
    from desktop.usecases.agent_process import measuring_status

    return measuring_status(db, evaluation, catalogs, office)


def start_in_worker(
    db: StoreLocation, evaluation: str, office: str | None, catalogs: CatalogSet
) -> BackgroundAgent:
    from desktop.usecases.agent_process import start_agent

    return start_agent(db, evaluation, office, catalogs)


def stop_in_worker(agent: BackgroundAgent | LockHolder) -> bool:
    from desktop.usecases.agent_process import stop_agent

    return stop_agent(agent)


def install_in_worker(
    db: StoreLocation, evaluation: str, office: str | None, running: BackgroundAgent | None
) -> UserService:
    """Stop the agent the window started (the service's own agent takes over its lock), then install and
    switch on the service."""
    from desktop.usecases.agent_process import stop_agent
    from desktop.usecases.agent_service import install_service, user_service

    service = user_service(db, evaluation, office)
    if running is not None and running.alive:
        stop_agent(running)
    install_service(service)
    return service


class MeasuringPanel(QGroupBox):
    """`status_changed(MeasuringStatus)` after every look at the agent."""

    status_changed = Signal(object)

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self.evaluation: Evaluation | None = None
        self.catalogs: CatalogSet | None = None
        self.status: MeasuringStatus | None = None
        self.busy = False
        self.looking = False
        self.question: QMessageBox | None = None
        self.office_label = QLabel()
        self.office = QComboBox()
        self.office.setMinimumContentsLength(12)
        self.start_button = QPushButton()
        self.start_button.setObjectName("primary")
        self.stop_button = QPushButton()
        self.service_button = QPushButton()
        self.state = QLabel()
        self.state.setWordWrap(True)
        self.others = QLabel()
        self.others.setWordWrap(True)
        self.others.setObjectName("screenHint")
        row = QHBoxLayout()
        row.addWidget(self.office_label)
        row.addWidget(self.office)
        row.addWidget(self.state, 1)
        row.addWidget(self.start_button)
        row.addWidget(self.stop_button)
        row.addWidget(self.service_button)
        layout = QVBoxLayout(self)
        layout.addLayout(row)
        layout.addWidget(self.others)
        self.timer = QTimer(self)
        self.timer.setInterval(REFRESH_MS)
        self.timer.timeout.connect(self.refresh)
        self.start_button.clicked.connect(self.start)
        self.stop_button.clicked.connect(self.stop)
        self.service_button.clicked.connect(self.install_service)
        self.office.currentIndexChanged.connect(self._office_chosen)
        self.retranslate()
        self._show()

    # -- the evaluation ----------------------------------------------------------------------------------

    def set_evaluation(self, evaluation: Evaluation | None, catalogs: CatalogSet | None) -> None:
        changed = self.evaluation is None or evaluation is None or evaluation.name != self.evaluation.name
        self.evaluation, self.catalogs = evaluation, catalogs
        if changed:
            self.status = None
        self.office.blockSignals(True)
        self.office.clear()
        if evaluation is not None:
            if evaluation.offices:
                for office in evaluation.offices:
                    self.office.addItem(office.name, office.name)
                chosen = self.context.settings.office(evaluation.name)
                self.office.setCurrentIndex(max(0, self.office.findData(chosen)))
            else:
                self.office.addItem(vantage_name(None), None)
        self.office.blockSignals(False)
        self._show()
        if evaluation is None:
            self.timer.stop()
        else:
            self.timer.start()
            self.refresh()

    def office_name(self) -> str | None:
        """The office this computer measures from (None: the evaluation names none: this machine)."""
        data = self.office.currentData()
        return str(data) if data else None

    def _office_chosen(self, _index: int) -> None:
        if self.evaluation is not None:
            self.context.settings.set_office(self.evaluation.name, self.office_name())
            self.status = None
            self._show()
            self.refresh()

    # -- looking, starting, stopping ---------------------------------------------------------------------

    @property
    def measuring(self) -> bool:
        return self.status is not None and self.status.measuring

    def refresh(self) -> None:
        if self.evaluation is None or self.catalogs is None or self.looking:
            return
        self.looking = True
        self.context.workers.submit(
            status_in_worker,
            self.context.settings.store_location,
            self.evaluation,
            self.catalogs,
            self.office_name(),
            on_done=self._looked,
            on_error=self._look_failed,
        )

    def _looked(self, status: MeasuringStatus) -> None:
        self.looking = False
        if self.evaluation is None or status.evaluation != self.evaluation.name:
            return
        if status.vantage != self.office_name():
            return
        self.status = status
        self._show()
        self.status_changed.emit(status)

    def _look_failed(self, message: str) -> None:
        self.looking = False
        self.state.setText(message)

    def start(self) -> None:
        if self.evaluation is None or self.catalogs is None or self.busy:
            return
        self.busy = True
        self._show()
        self.state.setText(self.tr("Starting the agent…"))
        self.context.workers.submit(
            start_in_worker,
            self.context.settings.store_location,
            self.evaluation.name,
            self.office_name(),
            self.catalogs,
            on_done=self._started,
            on_error=self._failed,
        )

    def _started(self, agent: BackgroundAgent) -> None:
        self.busy = False
        self.context.reporter.info(
            self.tr(
                "Measuring {evaluation} in the background (process {pid}); it goes on when the window closes."
            ).format(evaluation=agent.evaluation, pid=agent.pid)
        )
        self.refresh()

    def stop(self) -> None:
        if self.status is None or self.busy:
            return
        target: BackgroundAgent | LockHolder | None = None
        if self.status.agent is not None and self.status.agent.alive:
            target = self.status.agent
        elif self.status.holder is not None and self.status.holder.alive:
            target = self.status.holder
        if target is None:
            return
        self.busy = True
        self._show()
        self.state.setText(self.tr("Stopping the agent (the round in flight may finish first)…"))
        self.context.workers.submit(stop_in_worker, target, on_done=self._stopped, on_error=self._failed)

    def _stopped(self, ended: bool) -> None:
        self.busy = False
        if not ended:
            self.context.reporter.error(
                self.tr("Measuring not stopped"),
                self.tr("The agent did not end within 30 seconds; it may still be finishing a round."),
            )
        self.refresh()

    def _failed(self, message: str) -> None:
        self.busy = False
        self.context.reporter.error(self.tr("Measuring"), message)
        self.refresh()

    def install_service(self) -> None:
        if self.evaluation is None or self.busy:
            return
        from desktop.usecases.agent_service import user_service

        service = user_service(self.context.settings.store_location, self.evaluation.name, self.office_name())
        box = QMessageBox(
            QMessageBox.Icon.Question,
            self.tr("Install as my service"),
            self.tr(
                "Measure {evaluation} as a service of your user account, started again after a restart?\n\n"
                "It writes {file} and switches it on ({command})."
            ).format(
                evaluation=self.evaluation.name,
                file=service.path,
                command="; ".join(" ".join(c) for c in service.enable),
            ),
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
            self,
        )
        box.setWindowModality(Qt.WindowModality.WindowModal)
        self.question = box
        box.finished.connect(lambda result: self._install_answered(result == QMessageBox.StandardButton.Yes))
        box.open()

    def _install_answered(self, yes: bool) -> None:
        if not yes or self.evaluation is None:
            return
        self.busy = True
        self._show()
        running = self.status.agent if self.status is not None else None
        self.context.workers.submit(
            install_in_worker,
            self.context.settings.store_location,
            self.evaluation.name,
            self.office_name(),
            running,
            on_done=self._installed,
            on_error=self._failed,
        )

    def _installed(self, service: UserService) -> None:
        self.busy = False
        self.context.reporter.info(
            self.tr("Installed {file}. {note}").format(file=service.path, note=service.note).strip()
        )
        self.refresh()

    def shutdown(self) -> None:
        self.timer.stop()

    # -- showing -----------------------------------------------------------------------------------------

    def _time(self, moment_s: float) -> str:
        zone = ZoneInfo(self.context.settings.time_zone)
        return datetime.fromtimestamp(moment_s, zone).strftime("%m-%d %H:%M %Z")

    def _show(self) -> None:
        has = self.evaluation is not None
        status = self.status
        measuring = self.measuring
        self.office.setEnabled(has and not measuring and not self.busy and self.office.count() > 1)
        self.start_button.setEnabled(has and status is not None and not measuring and not self.busy)
        stoppable = status is not None and (
            (status.agent is not None and status.agent.alive)
            or (status.holder is not None and status.holder.alive and status.holder.here)
        )
        self.stop_button.setEnabled(bool(stoppable) and not self.busy)
        self.service_button.setEnabled(has and not self.busy)
        if self.busy:
            return
        self.state.setText(self.describe(status) if has else self.tr("No evaluation open."))
        self.others.setText(self._others(status))
        self.others.setVisible(bool(self.others.text()))

    def describe(self, status: MeasuringStatus | None) -> str:
        """What the agent is doing, in one or two sentences."""
        if status is None:
            return self.tr("Looking for the agent…")
        parts = []
        if status.unreachable:
            parts.append(self.tr("The store cannot be read: {reason}").format(reason=status.unreachable))
        if status.agent is not None and status.agent.alive:
            parts.append(
                self.tr("Measuring in the background (process {pid}, since {since}).").format(
                    pid=status.agent.pid, since=self._time(status.agent.started_us / 1e6)
                )
            )
        elif status.holder is not None and status.holder.alive:
            parts.append(
                self.tr("Measured by process {pid} on {host} (started outside this window).").format(
                    pid=status.holder.pid or "?", host=status.holder.host or "?"
                )
            )
        elif status.agent is not None:
            parts.append(
                self.tr("The agent started {since} has ended; its log: {log}").format(
                    since=self._time(status.agent.started_us / 1e6), log=status.agent.log
                )
            )
        else:
            parts.append(self.tr("Not measuring. Start measuring: it goes on after the window closes."))
        if status.last_round_us is not None:
            parts.append(self.tr("Last round {time}.").format(time=self._time(status.last_round_us / 1e6)))
        if status.next_round_s is not None:
            parts.append(self.tr("Next round {time}.").format(time=self._time(status.next_round_s)))
        if status.spooled_rounds:
            parts.append(self.tr("%n round(s) wait in the spool for the store.", "", status.spooled_rounds))
        return sentences(parts)

    def _others(self, status: MeasuringStatus | None) -> str:
        """Every other office's agent of the evaluation as its health in the store says
        (`desktop.usecases.agent_health`: measuring, spooling, silent or none yet), as `linkvet eval show`
        lists them."""
        if status is None or self.evaluation is None:
            return ""
        from desktop.usecases.agent_health import office_agents
        from probes.timestamps import now_us
        from probes.vantage import THIS_MACHINE

        here = status.vantage or THIS_MACHINE
        lines = []
        for agent in office_agents(self.evaluation, status.health, now_us()):
            if agent.office == here:
                continue
            health = agent.health
            if health is None:
                lines.append(
                    self.tr("{office}: no agent has reported").format(office=vantage_name(agent.office))
                )
                continue
            last = self._time(health.last_round_us / 1e6) if health.last_round_us else self.tr("none yet")
            state = {
                "measuring": self.tr("measuring"),
                "spooling": self.tr("%n round(s) in its spool", "", health.spooled_rounds),
                "silent": self.tr("silent since {time}").format(time=self._time(health.updated_us / 1e6)),
            }.get(agent.state, agent.state)
            lines.append(
                self.tr("{office}: {state}, last round {time} on {host}").format(
                    office=vantage_name(agent.office), state=state, time=last, host=health.host
                )
            )
        return self.tr("Other offices' agents: {agents}").format(agents="; ".join(lines)) if lines else ""

    # -- language ----------------------------------------------------------------------------------------

    def retranslate(self) -> None:
        self.setTitle(self.tr("Measuring"))
        self.office_label.setText(self.tr("This computer measures from"))
        self.start_button.setText(self.tr("Start measuring"))
        self.stop_button.setText(self.tr("Stop measuring"))
        self.service_button.setText(self.tr("Install as my service…"))
        self.service_button.setToolTip(
            self.tr(
                "Run the agent as a service of your user account (systemd, launchd or Task Scheduler), so "
                "that it measures after a restart too."
            )
        )
        if self.evaluation is not None and not self.evaluation.offices:
            self.office.setItemText(0, vantage_name(None))
        self._show()

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)
