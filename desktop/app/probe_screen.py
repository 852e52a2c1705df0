"""The Probe screen: run the switched-on targets now, watch the live table and chart fill, stop at will; the
scheduler panel (`desktop.app.scheduler_panel`) above them runs a plan instead.

The run is `probes.runner.Runner` in a child process (`ProbeTask`, `desktop.app.job_process`), stored as
`linkvet probe` stores it. A 5 Hz timer (`REDRAW_MS`) collects what the child reported, decoding within a
few milliseconds' budget, on one tick and redraws the chart on the next, so a burst of thousands of replies
costs the GUI thread small updates at 2.5 Hz each instead of one freeze.
"""

from __future__ import annotations

import time
from dataclasses import replace

from PySide6.QtCore import QEvent, Qt, QTimer
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from desktop.app.context import AppContext
from desktop.app.models.live_probe import LiveProbeModel
from desktop.app.scheduler_panel import SchedulerPanel
from desktop.app.widgets.line_type_badge import LineTypeBadgeDelegate
from desktop.app.widgets.sparkline import SparklineDelegate
from desktop.app.workers import ProbeOutcome, ProbeTask
from probes.errors import ErrorKind, TargetError
from probes.results import ProbeResult
from probes.target import (
    DEFAULT_CONNECTIONS,
    DEFAULT_COUNTS,
    TRACE_PROBES_PER_HOP,
    URL_METHODS,
    Method,
    ProbeOptions,
    Target,
    parse_target,
)
from probes.timestamps import now_us

REDRAW_MS = 200  # alternately the table and the chart: each refreshed at 2.5 Hz, never both in one pass
MAX_CHART_SERIES = 4  # the selected rows (the first row when none is selected)


def set_progress(bar: QProgressBar, value: int) -> None:
    """`bar.setValue(value)`, painted with the next window update instead of at once.

    QProgressBar.setValue repaints synchronously whenever its percentage changes, and a synchronous
    repaint paints every dirty region of the window with it: the live table the same refresh just changed,
    so one timer tick paid for decoding and for painting the table (20-40 ms in the 200-target benchmark).
    """
    if bar.value() == value:
        return
    bar.setUpdatesEnabled(False)  # QWidget.repaint() does nothing while updates are off
    bar.setValue(value)
    bar.setUpdatesEnabled(True)  # schedules an ordinary update()


def retarget(target: Target, method: Method) -> Target:
    """The same endpoint measured with another method (host targets cannot become URL methods)."""
    if target.method is method:
        return target
    if target.url and method in URL_METHODS:
        return replace(target, method=method, name="")
    if target.url:
        return parse_target(
            target.url,
            method,
            target.port,
            provider=target.provider,
            region=target.region,
            line_type=target.line_type,
        )
    return Target(
        method=method,
        host=target.host,
        port=target.port,
        url=None,
        provider=target.provider,
        region=target.region,
        line_type=target.line_type,
    )


def _expected_attempts(method: Method, options: ProbeOptions) -> int:
    """The attempts a target will report: a responsiveness test's latency probes, else `count`."""
    if method is Method.RESPONSIVENESS:
        seconds = options.load_idle_s + options.download_max_seconds
        return options.count * round(seconds / options.load_probe_interval_s)
    return options.count


def _expected_s(method: Method, options: ProbeOptions) -> float:
    """How long a run of `method` should take, for the live chart's time axis."""
    if method is Method.RESPONSIVENESS:  # idle phase, then the capped download
        return options.count * (options.load_idle_s + options.download_max_seconds) + options.timeout_s
    return options.count * options.interval_s + options.timeout_s


_COLUMN_WIDTHS = {  # px; the others 80
    LiveProbeModel.TARGET: 200,
    LiveProbeModel.METHOD: 60,
    LiveProbeModel.LINE_TYPE: 80,
    LiveProbeModel.PROGRESS: 60,
    LiveProbeModel.TREND: 140,
}


class ProbeScreen(QWidget):
    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self.task: ProbeTask | None = None
        self.model = LiveProbeModel(self)
        self.model.shown_names = context.targets.shown_names  # kept up to date by the probe list's book
        self._started = 0.0
        self._done: dict[str, object] | None = None  # the child's final report, until collected
        self._tick = 0

        self.title = QLabel()
        self.title.setObjectName("screenTitle")
        self.method = QComboBox()
        self.method.addItem("", None)
        for method in DEFAULT_COUNTS:  # the methods `linkvet probe --method` offers (trace: `linkvet trace`)
            self.method.addItem(str(method), method)
        self.count = QSpinBox()
        self.count.setRange(0, 100_000)
        self.interval = QDoubleSpinBox()
        self.interval.setRange(0.0, 3600.0)
        self.interval.setDecimals(2)
        self.interval.setSingleStep(0.1)
        self.timeout = QDoubleSpinBox()
        self.timeout.setRange(0.05, 120.0)
        self.timeout.setDecimals(2)
        self.store_results = QCheckBox()
        self.run_button = QPushButton()
        self.run_button.setObjectName("primary")
        self.stop_button = QPushButton()
        self.stop_button.setEnabled(False)
        self.progress = QProgressBar()
        self.progress.setTextVisible(True)
        self.elapsed = QLabel()

        self.form = QFormLayout()
        self.form_labels = [QLabel() for _ in range(4)]
        for label, field in zip(
            self.form_labels, (self.method, self.count, self.interval, self.timeout), strict=True
        ):
            self.form.addRow(label, field)
        self.form.addRow(self.store_results)
        controls = QHBoxLayout()
        controls.addLayout(self.form)
        actions = QVBoxLayout()
        actions.addWidget(self.run_button)
        actions.addWidget(self.stop_button)
        actions.addStretch(1)
        controls.addLayout(actions)
        controls.addStretch(1)

        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setAlternatingRowColors(True)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(24)
        self.table.setItemDelegateForColumn(
            LiveProbeModel.TREND, SparklineDelegate(LiveProbeModel.SparkRole, self.table)
        )
        self.table.setItemDelegateForColumn(LiveProbeModel.LINE_TYPE, LineTypeBadgeDelegate(self.table))
        self.table.horizontalHeader().setStretchLastSection(True)

        from desktop.app.widgets.live_rtt_plot import LiveRttPlot

        self.chart = LiveRttPlot()
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(self.table)
        splitter.addWidget(self.chart)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)

        status = QHBoxLayout()
        status.addWidget(self.progress, 1)
        status.addWidget(self.elapsed)
        self.scheduler = SchedulerPanel(context)
        self.scheduler.round_done.connect(self._scheduled_round)

        layout = QVBoxLayout(self)
        layout.addWidget(self.title)
        layout.addLayout(controls)
        layout.addWidget(self.scheduler)
        layout.addLayout(status)
        layout.addWidget(splitter, 1)

        self.timer = QTimer(self)
        self.timer.setInterval(REDRAW_MS)
        self.timer.timeout.connect(self.redraw)
        self.run_button.clicked.connect(self.start_run)
        self.stop_button.clicked.connect(self.stop_run)
        self.table.selectionModel().selectionChanged.connect(lambda *_: self._draw_chart())
        self._load_options()
        self.retranslate()

    # -- options -----------------------------------------------------------------------------------------

    def _load_options(self) -> None:
        saved = self.context.settings.probe_options
        method = saved.get("method")
        index = self.method.findData(Method(method)) if method in {m.value for m in Method} else 0
        self.method.setCurrentIndex(max(index, 0))
        self.count.setValue(int(saved.get("count", 0)))
        self.interval.setValue(float(saved.get("interval_s", 1.0)))
        self.timeout.setValue(float(saved.get("timeout_s", 2.0)))
        self.store_results.setChecked(bool(saved.get("store", True)))

    def _save_options(self) -> None:
        method = self.method.currentData()
        self.context.settings.probe_options = {
            "method": None if method is None else str(method),
            "count": self.count.value(),
            "interval_s": self.interval.value(),
            "timeout_s": self.timeout.value(),
            "store": self.store_results.isChecked(),
        }

    def options_for(self, methods: set[Method]) -> dict[Method, ProbeOptions]:
        """One `ProbeOptions` per method, with the default counts (`linkvet probe`'s) when the count is "auto";
        a trace target (from a plan) gets its probes per hop."""
        return {
            m: ProbeOptions(
                count=self.count.value() or DEFAULT_COUNTS.get(m, TRACE_PROBES_PER_HOP),
                interval_s=self.interval.value(),
                timeout_s=self.timeout.value(),
                download_connections=DEFAULT_CONNECTIONS.get(m, 1),
            )
            for m in methods
        }

    # -- running -----------------------------------------------------------------------------------------

    @property
    def running(self) -> bool:
        return self.task is not None

    def start_run(self) -> None:
        if self.running:
            return
        chosen = self.context.targets.enabled_targets()
        if not chosen:
            self.context.reporter.info(self.tr("Nothing to probe: switch on targets on the Targets screen."))
            return
        self._save_options()
        method = self.method.currentData()
        targets: list[Target] = []
        refused: list[ProbeResult] = []
        for target in chosen:
            try:
                targets.append(retarget(target, method) if method is not None else target)
            except TargetError as exc:
                now = now_us()
                refused.append(ProbeResult(target, now, now, error=ErrorKind.INVALID, message=str(exc)))
        unique: dict[str, Target] = {}
        for target in targets:
            unique.setdefault(target.key, target)
        targets = list(unique.values())
        options = self.options_for({t.method for t in targets})
        self.model.start(
            [*targets, *(r.target for r in refused)],
            [_expected_attempts(t.method, options[t.method]) for t in targets] + [0] * len(refused),
        )
        for result in refused:
            self.model.finish_target(result)
        if not targets:
            self.context.reporter.info(self.tr("None of the targets can be measured with that method."))
            return
        db_path = self.context.settings.store_location if self.store_results.isChecked() else None
        self.task = ProbeTask(targets, options, db_path, source="probe")
        self.task.signals.finished.connect(self._on_finished)
        self.task.signals.cancelled.connect(self._on_cancelled)
        self.task.signals.failed.connect(self._on_failed)
        self.progress.setRange(0, max(1, self.model.attempts()[1]))  # counted in attempts
        self.progress.setValue(0)
        self._started = time.monotonic()
        self.run_button.setEnabled(False)
        self.stop_button.setEnabled(True)
        self.timer.start()
        # A fixed time axis over the run's expected span: the axes are not redrawn on every refresh.
        expected_s = max(_expected_s(m, o) for m, o in options.items())
        self.chart.show_span(time.time(), expected_s)
        signals = self.task.signals
        self.context.workers.start(self.task, signals, signals.finished, signals.cancelled, signals.failed)
        self.context.reporter.info(self.tr("Probing %n target(s)…", "", len(targets)))

    def stop_run(self) -> None:
        if self.task is not None:
            self.task.cancel()
            self.stop_button.setEnabled(False)

    def shutdown(self) -> None:
        """The window is closing: stop the run (nothing of it is stored) and the scheduler."""
        self.stop_run()
        self.scheduler.shutdown()

    def _scheduled_round(self, report: object) -> None:
        """Show a scheduled round's results in the table (unless a run started here is on screen)."""
        results = list(getattr(report, "results", ()))
        if self.running or not results:
            return
        self.model.start([r.target for r in results], [r.sent for r in results])
        for result in results:
            self.model.finish_target(result)
        self.chart.set_origin(None)  # x from the round's first attempt
        self._draw_chart()

    def redraw(self) -> None:
        """The refresh timer: on one tick fold in what the probing process reported (the table repaints),
        on the next redraw the chart, so no event-loop pass pays for painting both."""
        self._tick += 1
        if self._tick % 2 and self.task is not None:
            self._draw_chart()
            return
        if self.task is not None:
            self._collect(self.task)
            if self._done is not None and not self.task.backlog:
                self._finish_run(self._done)
                return
            self.elapsed.setText(self.tr("{seconds:.1f} s").format(seconds=time.monotonic() - self._started))

    def _collect(self, task: ProbeTask) -> None:
        samples, summaries, finished = task.collect()
        self.model.add_samples(samples, summaries)
        self.model.finish_targets(finished)
        set_progress(self.progress, self.model.attempts()[0])

    def _end(self) -> None:
        if self.task is not None:
            while self.task.backlog:
                self._collect(self.task)
        self.task = None
        self._done = None
        self.timer.stop()
        self.run_button.setEnabled(True)
        self.stop_button.setEnabled(False)
        self.elapsed.setText(self.tr("{seconds:.1f} s").format(seconds=time.monotonic() - self._started))
        self._draw_chart()

    def _on_finished(self, done: dict[str, object]) -> None:
        """The child is done; the run ends once the refresh timer has collected everything it sent."""
        self._done = done

    def _finish_run(self, done: dict[str, object]) -> None:
        assert self.task is not None
        outcome: ProbeOutcome = self.task.outcome(done)
        self._end()
        failed = sum(1 for r in outcome.results if r.error is not None)
        parts = [
            self.tr("Measured %n target(s) in {seconds:.1f} s", "", len(outcome.results)).format(
                seconds=outcome.elapsed_s
            )
        ]
        if failed:
            parts.append(self.tr("%n could not be measured (see the Status column)", "", failed))
        if outcome.round_id is not None:
            parts.append(self.tr("stored as round {round}").format(round=outcome.round_id))
            self.context.store_events.changed.emit()
        summary = self.tr("; ").join(parts)
        self.context.reporter.info(self.tr("{summary}.").format(summary=summary))
        if outcome.store_error and outcome.spooled:
            self.context.reporter.error(
                self.tr("Results kept in the spool"),
                self.tr(
                    "The store did not take this run; it is kept in the spool and stored by the next run "
                    "or scheduled round that reaches the store.\n{error}"
                ).format(error=outcome.store_error),
            )
        elif outcome.store_error:
            self.context.reporter.error(
                self.tr("Results not stored"),
                self.tr("The measurements are shown but could not be saved:\n{error}").format(
                    error=outcome.store_error
                ),
            )

    def _on_cancelled(self) -> None:
        self._end()
        self.context.reporter.info(self.tr("Probe stopped; nothing of this run was stored."))

    def _on_failed(self, message: str) -> None:
        self._end()
        self.context.reporter.error(self.tr("Probe failed"), message)

    # -- chart -------------------------------------------------------------------------------------------

    def _draw_chart(self) -> None:
        rows = self.model.rows()
        selected = sorted({i.row() for i in self.table.selectionModel().selectedRows()})
        chosen = (selected or [0])[:MAX_CHART_SERIES] if rows else []
        key = tuple((number, rows[number].version, id(rows[number])) for number in chosen)
        series = []
        for number in chosen:
            row = rows[number]
            x, y = row.live_xy()
            if x.size:
                series.append((row.target.name, x, y))
        self.chart.set_series(series, key=key)

    # -- language ----------------------------------------------------------------------------------------

    def retranslate(self) -> None:
        self.title.setText(self.tr("Probe"))
        self.progress.setFormat(self.tr("%v of %m attempts (%p%)"))
        self.method.setItemText(0, self.tr("as each target says"))
        self.count.setSpecialValueText(
            self.tr("auto (10 icmp/tcp, 3 http, 1 download/iperf3/responsiveness)")
        )
        self.interval.setSuffix(self.tr(" s"))
        self.timeout.setSuffix(self.tr(" s"))
        self.store_results.setText(self.tr("Save the results in the store (for Charts and Export)"))
        # The status line says how long the measuring took; this is the wait since the click.
        self.elapsed.setToolTip(self.tr("Time since Run now, including starting the probing process"))
        self.run_button.setText(self.tr("Run now"))
        self.stop_button.setText(self.tr("Stop"))
        texts = [self.tr("Method"), self.tr("Attempts"), self.tr("Interval"), self.tr("Timeout")]
        for label, text in zip(self.form_labels, texts, strict=True):
            label.setText(text)
        self.model.set_headers(
            [
                self.tr("Target"),
                self.tr("Method"),
                self.tr("Line"),
                self.tr("Sent"),
                self.tr("Last ms"),
                self.tr("Median ms"),
                self.tr("P95 ms"),
                self.tr("Loss"),
                self.tr("Jitter ms"),
                self.tr("Trend"),
                self.tr("Status"),
            ]
        )
        self._size_columns()
        self.model.state_texts = {
            "waiting": self.tr("waiting"),
            "running": self.tr("running"),
            "done": self.tr("done"),
            "error": self.tr("error"),
        }
        self.model.lost_text = self.tr("lost")
        self.chart.set_labels(self.tr("RTT"), self.tr("ms"), self.tr("Seconds since the run started"))

    def _size_columns(self) -> None:
        """Fixed widths (sizing columns to their contents would read every row on every update), each at
        least as wide as its header in the current language."""
        header = self.table.horizontalHeader()
        for column in range(LiveProbeModel.STATUS):
            width = _COLUMN_WIDTHS.get(column, 80)
            self.table.setColumnWidth(column, max(width, header.sectionSizeHint(column)))

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)
