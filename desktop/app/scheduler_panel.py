"""Start and stop the scheduler from the app: the same `probes.schedule.scheduler.Scheduler` `linkvet schedule` runs,
on a plan file or on the probe list (saved as a plan in the data folder, so the office box can run the very
same file with `linkvet schedule --plan`)."""

from __future__ import annotations

import time
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

from PySide6.QtCore import QEvent, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from desktop.app.context import AppContext
from desktop.app.workers import SchedulerTask
from probes.errors import PlanError

if TYPE_CHECKING:  # the plan reader (pydantic) loads when a plan is first used, not with the screen
    from probes.schedule.plan import Plan
    from probes.schedule.report import RoundReport

GUI_PLAN_NAME = "gui-plan"


class SchedulerPanel(QGroupBox):
    round_done = Signal(object)  # probes.schedule.scheduler.RoundReport, for the live table

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self.task: SchedulerTask | None = None
        self.plan: Plan | None = None
        self.rounds = 0
        self.source = QComboBox()
        self.source.addItem("", None)  # the probe list
        self.choose_button = QPushButton()
        self.every = QSpinBox()
        self.every.setRange(1, 24 * 60)
        self.every.setValue(5)
        self.peak_every = QSpinBox()
        self.peak_every.setRange(1, 24 * 60)
        self.peak_every.setValue(1)
        self.start_button = QPushButton()
        self.stop_button = QPushButton()
        self.stop_button.setEnabled(False)
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.status.setObjectName("screenHint")
        self.every_label = QLabel()
        self.peak_label = QLabel()
        row = QHBoxLayout()
        row.addWidget(self.source, 1)
        row.addWidget(self.choose_button)
        row.addWidget(self.every_label)
        row.addWidget(self.every)
        row.addWidget(self.peak_label)
        row.addWidget(self.peak_every)
        row.addWidget(self.start_button)
        row.addWidget(self.stop_button)
        layout = QVBoxLayout(self)
        layout.addLayout(row)
        layout.addWidget(self.status)
        self.choose_button.clicked.connect(self._choose)
        self.start_button.clicked.connect(self.start)
        self.stop_button.clicked.connect(self.stop)
        self.source.currentIndexChanged.connect(self._source_changed)
        self.retranslate()

    # -- plan ---------------------------------------------------------------------------------------------

    def add_plan_file(self, path: Path) -> None:
        index = self.source.findData(str(path))
        if index < 0:
            self.source.addItem(path.name, str(path))
            index = self.source.count() - 1
        self.source.setCurrentIndex(index)

    def _choose(self) -> None:
        chosen, _ = QFileDialog.getOpenFileName(
            self,
            self.tr("Choose a plan file"),
            str(self.context.settings.data_dir),
            self.tr("Plan files (*.toml)"),
        )
        if chosen:
            self.add_plan_file(Path(chosen))

    def _source_changed(self, _index: int) -> None:
        from_list = self.source.currentData() is None
        self.every.setEnabled(from_list)
        self.peak_every.setEnabled(from_list)

    def build_plan(self) -> Plan:
        """The plan to run: the chosen file, or the probe list written as `gui-plan.toml` in the data folder."""
        from desktop.usecases.probe_list import save_as_plan
        from probes.schedule.plan import load_plan

        chosen = self.source.currentData()
        if chosen is not None:
            return load_plan(Path(chosen))
        entries = [e for e in self.context.targets.entries() if e.enabled]
        if not entries:
            raise PlanError(GUI_PLAN_NAME, self.tr("the probe list has no targets switched on"))
        return save_as_plan(
            entries,
            self.context.settings.data_dir / f"{GUI_PLAN_NAME}.toml",
            name=GUI_PLAN_NAME,
            every_s=self.every.value() * 60,
            peak_every_s=self.peak_every.value() * 60,
            peak_windows=self.context.settings.peak_windows,
            options=self.context.settings.probe_options,
        )

    # -- running ------------------------------------------------------------------------------------------

    @property
    def running(self) -> bool:
        return self.task is not None

    def start(self) -> None:
        if self.running:
            return
        try:
            plan = self.build_plan()
        except (PlanError, OSError) as exc:
            self.context.reporter.failure(self.tr("Scheduler not started"), exc)
            return
        self.plan = plan
        self.rounds = 0
        self.task = SchedulerTask(plan, self.context.settings.store_location, grace_s=5.0)
        signals = self.task.signals
        signals.round_done.connect(self._round_done)
        signals.notice.connect(self._store_unreachable)
        signals.stopped.connect(self._stopped)
        signals.failed.connect(self._failed)
        self.context.workers.start(self.task, signals, signals.stopped, signals.failed)
        self.start_button.setEnabled(False)
        self.stop_button.setEnabled(True)
        self.source.setEnabled(False)
        self._show_next()
        self.context.reporter.info(
            self.tr("Scheduler started: plan {plan}, {count} targets.").format(
                plan=plan.path, count=len(plan.targets)
            )
        )

    def stop(self) -> None:
        if self.task is not None:
            self.task.stop()
            self.stop_button.setEnabled(False)
            self.status.setText(self.tr("Stopping (the round in flight may finish first)…"))

    def shutdown(self) -> None:
        if self.task is not None:
            self.task.stop(grace_s=0.0)

    def _show_next(self, extra: str = "") -> None:
        from probes.schedule.timetable import next_slot

        if self.plan is None:
            return
        zone = ZoneInfo(self.context.settings.time_zone)
        upcoming = datetime.fromtimestamp(next_slot(self.plan, time.time()), zone)
        text = self.tr("Running {plan}: {rounds} round(s) stored; next round at {time}.").format(
            plan=self.plan.name, rounds=self.rounds, time=upcoming.strftime("%H:%M:%S %Z")
        )
        self.status.setText(f"{text} {extra}".strip())

    def _store_unreachable(self, message: str) -> None:
        """The store's server could not be reached at start: the scheduler measures into the spool."""
        self.context.reporter.info(message)
        self._show_next(message)

    def _round_done(self, report: RoundReport) -> None:
        note = report.store_note()
        if report.round_id is not None and note is None:
            self.rounds += 1
            self.context.store_events.changed.emit()
        self._show_next(note or (report.describe() if report.results else ""))
        self.round_done.emit(report)

    def _end(self) -> None:
        self.task = None
        self.start_button.setEnabled(True)
        self.stop_button.setEnabled(False)
        self.source.setEnabled(True)

    def _stopped(self, stored: int) -> None:
        self._end()
        self.status.setText(
            self.tr("Scheduler stopped after {rounds} stored round(s).").format(rounds=stored)
        )

    def _failed(self, message: str) -> None:
        self._end()
        self.status.setText(message)
        self.context.reporter.error(self.tr("Scheduler stopped"), message)

    # -- language -----------------------------------------------------------------------------------------

    def retranslate(self) -> None:
        self.setTitle(self.tr("Scheduler"))
        self.source.setItemText(0, self.tr("the probe list (saved as gui-plan.toml in the data folder)"))
        self.choose_button.setText(self.tr("Plan file…"))
        self.every_label.setText(self.tr("every"))
        self.peak_label.setText(self.tr("at peak every"))
        self.every.setSuffix(self.tr(" min"))
        self.peak_every.setSuffix(self.tr(" min"))
        self.start_button.setText(self.tr("Start scheduler"))
        self.stop_button.setText(self.tr("Stop scheduler"))
        if not self.running:
            self.status.setText(
                self.tr(
                    "Measures on a cadence, denser inside the peak windows, until stopped; every round is stored."
                )
            )

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)
