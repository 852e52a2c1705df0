"""The Routes screen: trace a target, or every endpoint of a region on the probe list, with `linkvet trace`'s
protocol, probes per hop and number of traces; watch the hops fill as the answers come (mtr-style rows with
the network of each address), then read the verdict with its evidence, doubts and the claim check; below,
the region's stored traces on a timeline beside its RTT (`desktop.app.route_history_panel`).

The trace runs in the probing child process (`desktop.app.trace_task`, `desktop.app.trace_job`), as probes
do: the GUI thread never waits on a socket. A 5 Hz timer folds in what the child reported. The verdict's
words come from the core (`probes.routes`); the window's own words are translated.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QEvent, Qt, QTimer
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSpinBox,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from desktop.app.context import AppContext
from desktop.app.models.trace_hops import TraceHopsModel
from desktop.app.route_history_panel import RouteHistoryPanel
from desktop.app.route_verdict import RouteVerdictView
from desktop.app.trace_task import TraceTask
from desktop.app.widgets.sparkline import SparklineDelegate
from probes.errors import TargetError
from probes.routes.claims import CLAIMED_LINE_TYPES
from probes.target import TRACE_PROBES_PER_HOP, Method, Target, parse_target

REDRAW_MS = 200


def trace_targets(entries: Sequence[Target]) -> list[tuple[str, list[Target]]]:
    """What the target picker offers from the probe list: each host once (as a trace target with the
    entry's labels), then each region with its hosts. (label, targets) pairs."""
    hosts: dict[str, Target] = {}
    for entry in entries:
        if entry.host and entry.host not in hosts:
            hosts[entry.host] = Target(
                Method.TRACE,
                host=entry.host,
                name=entry.name if entry.method is not Method.TCP and not entry.url else entry.host,
                provider=entry.provider,
                region=entry.region,
                line_type=entry.line_type,
            )
    choices = []
    for target in hosts.values():
        where = f" — {target.provider}/{target.region}" if target.provider and target.region else ""
        shown = target.host if target.name == target.host else f"{target.name} ({target.host})"
        choices.append((f"{shown}{where}", [target]))
    regions: dict[tuple[str, str], list[Target]] = {}
    for target in hosts.values():
        if target.provider and target.region:
            regions.setdefault((target.provider, target.region), []).append(target)
    for (provider, region), targets in regions.items():
        if len(targets) > 1:
            choices.append((f"{provider}/{region} ({len(targets)})", targets))
    return choices


class RoutesScreen(QWidget):
    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self.task: TraceTask | None = None
        self.child_prefix: tuple[str, ...] = ()  # how to start the tracing process (see JobProcess)
        self.vantage: str | None = None  # the office the traces are stored for (the evaluation home's Trace)
        self.model = TraceHopsModel(self)
        self.done: dict[str, Any] | None = None
        self.finished_traces: list[tuple[int, int, dict[str, Any]]] = []
        self._targets: list[Target] = []
        self._current = -1  # the target whose hops the table shows
        self._done: dict[str, Any] | None = None

        self.title = QLabel()
        self.title.setObjectName("screenTitle")
        self.target = QComboBox()
        self.target.setEditable(True)
        self.target.setMinimumContentsLength(34)
        self.protocol = QComboBox()
        self.protocol.addItems(["icmp", "udp", "tcp"])
        self.probes = QSpinBox()
        self.probes.setRange(1, 100)
        self.probes.setValue(TRACE_PROBES_PER_HOP)
        self.traces = QSpinBox()
        self.traces.setRange(1, 50)
        self.max_hops = QSpinBox()
        self.max_hops.setRange(1, 255)
        self.max_hops.setValue(30)
        self.port = QSpinBox()
        self.port.setRange(0, 65535)
        self.timeout = QDoubleSpinBox()
        self.timeout.setRange(0.1, 30.0)
        self.timeout.setValue(2.0)
        self.interval = QDoubleSpinBox()
        self.interval.setRange(0.0, 60.0)
        self.interval.setSingleStep(0.1)
        self.interval.setValue(0.5)
        self.claim = QComboBox()
        self.claim.addItem("", None)
        for line_type in CLAIMED_LINE_TYPES:
            self.claim.addItem(line_type, line_type)
        self.save = QCheckBox()
        self.save.setChecked(True)
        self.run_button = QPushButton()
        self.run_button.setObjectName("primary")
        self.stop_button = QPushButton()
        self.stop_button.setEnabled(False)
        self.status = QLabel()
        self.status.setObjectName("screenHint")
        self.status.setWordWrap(True)

        self.form_labels = [QLabel() for _ in range(9)]
        fields = (
            self.target,
            self.protocol,
            self.probes,
            self.traces,
            self.max_hops,
            self.port,
            self.timeout,
            self.interval,
            self.claim,
        )
        left_form, right_form = QFormLayout(), QFormLayout()
        for index, (label, field) in enumerate(zip(self.form_labels, fields, strict=True)):
            (left_form if index in (0, 1, 2, 3, 8) else right_form).addRow(label, field)
        left_form.addRow(self.save)
        actions = QVBoxLayout()
        actions.addWidget(self.run_button)
        actions.addWidget(self.stop_button)
        actions.addStretch(1)
        controls = QHBoxLayout()
        controls.addLayout(left_form)
        controls.addLayout(right_form)
        controls.addLayout(actions)
        controls.addStretch(1)

        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setAlternatingRowColors(True)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(24)
        self.table.setItemDelegateForColumn(
            TraceHopsModel.TREND, SparklineDelegate(TraceHopsModel.SparkRole, self.table)
        )
        self.table.horizontalHeader().setStretchLastSection(True)
        self._widths = widths = {
            TraceHopsModel.HOP: 36,
            TraceHopsModel.ADDRESS: 112,
            TraceHopsModel.NETWORK: 170,
            TraceHopsModel.LOSS: 52,
            TraceHopsModel.SENT: 42,
        }
        for column in range(TraceHopsModel.TREND):
            self.table.setColumnWidth(column, widths.get(column, 58))
        self.verdict = RouteVerdictView()
        top = QSplitter(Qt.Orientation.Horizontal)
        top.addWidget(self.table)
        top.addWidget(self.verdict)
        top.setStretchFactor(0, 5)
        top.setStretchFactor(1, 3)
        top.setSizes([760, 420])
        self.history = RouteHistoryPanel(context)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(top)
        split.addWidget(self.history)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)

        layout = QVBoxLayout(self)
        layout.addWidget(self.title)
        layout.addLayout(controls)
        layout.addWidget(self.status)
        layout.addWidget(split, 1)

        self.timer = QTimer(self)
        self.timer.setInterval(REDRAW_MS)
        self.timer.timeout.connect(self.redraw)
        self.run_button.clicked.connect(self.start_trace)
        self.stop_button.clicked.connect(self.stop_trace)
        self.target.currentIndexChanged.connect(self._target_chosen)
        for signal in (
            context.targets.modelReset,
            context.targets.rowsInserted,
            context.targets.rowsRemoved,
            context.targets.dataChanged,
        ):
            signal.connect(self.refresh_targets)
        self.retranslate()
        self.refresh_targets()
        self.history.refresh_regions()

    # -- the picker ---------------------------------------------------------------------------------------

    def refresh_targets(self, *_: object) -> None:
        text = self.target.currentText()
        self.target.blockSignals(True)
        self.target.clear()
        for label, targets in trace_targets([e.target for e in self.context.targets.entries()]):
            self.target.addItem(label, targets)
        index = self.target.findText(text)
        if index >= 0:
            self.target.setCurrentIndex(index)
        else:
            self.target.setEditText(text)
        self.target.blockSignals(False)

    def trace_for(self, label: str, targets: list[Target], *, vantage: str | None) -> None:
        """Trace `targets` (an evaluation's candidate, labelled with it) stored for the office `vantage`."""
        index = self.target.findText(label)
        if index < 0:
            self.target.addItem(label, targets)
            index = self.target.count() - 1
        self.target.setItemData(index, targets)
        self.target.setCurrentIndex(index)
        self.vantage = vantage
        self.save.setChecked(True)
        self.start_trace()

    def _target_chosen(self, index: int) -> None:
        self.vantage = None  # a target picked by hand is traced from this machine
        targets = self.target.itemData(index)
        if targets:
            line_type = targets[0].line_type
            found = self.claim.findData(line_type) if line_type else 0
            self.claim.setCurrentIndex(max(found, 0))

    def chosen_targets(self) -> list[Target]:
        """The targets to trace: the picked entry's, or the typed host (raises TargetError)."""
        index = self.target.currentIndex()
        text = self.target.currentText().strip()
        if index >= 0 and self.target.itemText(index) == text and self.target.itemData(index):
            return list(self.target.itemData(index))
        typed = parse_target(text, Method.TRACE)
        return [typed]

    # -- running -----------------------------------------------------------------------------------------

    @property
    def running(self) -> bool:
        return self.task is not None

    def options(self) -> dict[str, Any]:
        return {
            "protocol": self.protocol.currentText(),
            "probes_per_hop": self.probes.value(),
            "max_hops": self.max_hops.value(),
            "timeout_s": self.timeout.value(),
            "round_interval_s": self.interval.value(),
            "port": self.port.value() or None,
        }

    def start_trace(self) -> None:
        if self.running:
            return
        try:
            targets = self.chosen_targets()
            from probes.traceroute import TraceOptions

            TraceOptions(**self.options())  # refused here, with its reason, rather than in the child
        except TargetError as exc:
            self.context.reporter.error(self.tr("Cannot trace"), str(exc))
            return
        self._targets = targets
        self._current = -1
        self.finished_traces = []
        self.done = None
        self._done = None
        self.model.clear()
        self.verdict.clear()
        db_path = self.context.settings.store_location if self.save.isChecked() else None
        self.task = TraceTask(
            targets,
            self.options(),
            self.traces.value(),
            claimed=self.claim.currentData() or targets[0].line_type,
            db_path=db_path,
            prefix=self.child_prefix,
            vantage=self.vantage,
        )
        self.task.signals.finished.connect(self._on_finished)
        self.task.signals.cancelled.connect(self._on_cancelled)
        self.task.signals.failed.connect(self._on_failed)
        self.run_button.setEnabled(False)
        self.stop_button.setEnabled(True)
        self.timer.start()
        signals = self.task.signals
        self.context.workers.start(self.task, signals, signals.finished, signals.cancelled, signals.failed)
        self.status.setText(
            self.tr("Tracing %n target(s)…", "", len(targets)) + " " + ", ".join(str(t.host) for t in targets)
        )

    def stop_trace(self) -> None:
        if self.task is not None:
            self.task.cancel()
            self.stop_button.setEnabled(False)

    def shutdown(self) -> None:
        self.stop_trace()

    def redraw(self) -> None:
        if self.task is None:
            return
        self._collect(self.task)
        if self._done is not None and not self.task.backlog:
            done, self._done = self._done, None
            self._end()
            self._show_done(done)

    def _collect(self, task: TraceTask) -> None:
        replies, ended = task.collect()
        for reply in replies:
            number = reply[0]
            if number != self._current:
                self._current = number
                self.model.clear()
            self.model.add_replies([(reply[2], reply[3], reply[4], reply[5], reply[6], *reply[8:])])
        for trace in ended:
            self.finished_traces.append(trace)
            self._show_verdicts()

    def _end(self) -> None:
        if self.task is not None:
            while self.task.backlog:
                self._collect(self.task)
        self.task = None
        self.timer.stop()
        self.run_button.setEnabled(True)
        self.stop_button.setEnabled(False)

    def _on_finished(self, done: dict[str, Any]) -> None:
        self._done = done

    def _show_done(self, done: dict[str, Any]) -> None:
        self.done = done
        self._show_verdicts()
        parts = [self.tr("%n trace(s) done", "", len(self.finished_traces))]
        if done.get("store_error"):
            self.context.reporter.error(self.tr("Traces not stored"), str(done["store_error"]))
        elif self.save.isChecked():
            parts.append(self.tr("stored"))
            self.context.store_events.changed.emit()
            first = self._targets[0] if self._targets else None
            if first is not None and first.provider and first.region:
                self.history.refresh_regions((first.provider, first.region))
        self.status.setText(self.tr("; ").join(parts))

    def _on_cancelled(self) -> None:
        self._end()
        self.status.setText(self.tr("Trace stopped; nothing of it was stored."))

    def _on_failed(self, message: str) -> None:
        self._end()
        self.context.reporter.error(self.tr("Trace failed"), message)

    # -- the verdict ---------------------------------------------------------------------------------------

    def _show_verdicts(self) -> None:
        self.verdict.show_run(self._targets, self.finished_traces, self.done)

    # -- language ----------------------------------------------------------------------------------------

    def retranslate(self) -> None:
        self.title.setText(self.tr("Routes"))
        texts = [
            self.tr("Target"),
            self.tr("Protocol"),
            self.tr("Probes per hop"),
            self.tr("Traces"),
            self.tr("Max hops"),
            self.tr("Port"),
            self.tr("Timeout"),
            self.tr("Interval"),
            self.tr("Claimed line type"),
        ]
        for label, text in zip(self.form_labels, texts, strict=True):
            label.setText(text)
        editor = self.target.lineEdit()
        if editor is not None:
            editor.setPlaceholderText(self.tr("host name or address, or pick from the probe list"))
        self.port.setSpecialValueText(self.tr("default"))
        self.timeout.setSuffix(self.tr(" s"))
        self.interval.setSuffix(self.tr(" s"))
        self.claim.setItemText(0, self.tr("as the target is labelled"))
        self.save.setText(self.tr("Save the traces in the store (for the history)"))
        self.run_button.setText(self.tr("Trace"))
        self.stop_button.setText(self.tr("Stop"))
        self.model.set_headers(
            [
                self.tr("Hop"),
                self.tr("Address"),
                self.tr("Network"),
                self.tr("Loss"),
                self.tr("Sent"),
                self.tr("Last ms"),
                self.tr("Avg ms"),
                self.tr("Best ms"),
                self.tr("Worst ms"),
                self.tr("Trend"),
            ]
        )
        metrics = self.table.horizontalHeader().fontMetrics()
        for column in range(TraceHopsModel.LOSS, TraceHopsModel.TREND):  # figures: as wide as their title
            title = str(self.model.headerData(column, Qt.Orientation.Horizontal))
            self.table.setColumnWidth(
                column, max(self._widths.get(column, 58), metrics.horizontalAdvance(title) + 14)
            )
        self.model.destination_text = self.tr("(destination)")
        self.model.also_text = self.tr("also answered: {addresses}")
        if self.finished_traces:
            self._show_verdicts()

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)
