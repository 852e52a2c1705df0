"""The Charts screen: the stored measurements of one target over time (smoke timeline, day × hour heatmap)
and of several side by side (hour-of-day profile with the peak windows shaded, RTT CDF). Where the store
holds a region measured from two or more vantage points (offices), an office choice narrows the charts to one
office's rounds, and the "Offices compared" tab (`offices_panel`) shows the offices side by side.

All store queries and aggregation run in a worker (`chart_data.load_charts`); the plots only draw what it
returns. A newer request supersedes an older one still in flight.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent, QTimer
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSplitter,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from desktop.app.chart_data import (
    EVERY_VANTAGE,
    ChartBundle,
    ChartTarget,
    VantageChoice,
    load_charts,
    load_stored_targets,
    peak_spans,
    utc_offset_s,
)
from desktop.app.context import AppContext
from desktop.app.models.stored_targets import StoredTargetsModel
from desktop.app.offices_panel import OfficesPanel, load_offices
from desktop.app.widgets.cdf_plot import CdfPlot
from desktop.app.widgets.heatmap_plot import HeatmapPlot
from desktop.app.widgets.hour_profile_plot import HourProfilePlot
from desktop.app.widgets.line_type_badge import LineTypeBadgeDelegate
from desktop.app.widgets.timeline_plot import TimelinePlot
from probes import timestamps

if TYPE_CHECKING:
    from probes.analysis import VantageComparison

# (seconds back from now, or None for everything)
RANGES: tuple[int | None, ...] = (3600, 6 * 3600, 24 * 3600, 7 * 86400, 30 * 86400, None)
DEFAULT_RANGE = 2


class ChartsScreen(QWidget):
    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self.model = StoredTargetsModel(self)
        self.bundle: ChartBundle | None = None
        self._generation = 0
        self._current_id: int | None = None
        self.loading = False
        self._started = 0.0
        self._period: tuple[float, float] | None = None  # the period last asked for (epoch seconds)
        self._offices_generation = 0
        self.offices_loading = False

        self.title = QLabel()
        self.title.setObjectName("screenTitle")
        self.range = QComboBox()
        for _ in RANGES:
            self.range.addItem("")
        self.range.setCurrentIndex(DEFAULT_RANGE)
        self.refresh_button = QPushButton()
        self.png_button = QPushButton()
        self.status = QLabel()
        self.status.setObjectName("screenHint")
        top = QHBoxLayout()
        top.addWidget(self.title)
        top.addStretch(1)
        self.range_label = QLabel()
        top.addWidget(self.range_label)
        top.addWidget(self.range)
        self.vantage_label = QLabel()
        self.vantage = QComboBox()
        self.vantage.addItem("", EVERY_VANTAGE)
        top.addWidget(self.vantage_label)
        top.addWidget(self.vantage)
        top.addWidget(self.refresh_button)
        top.addWidget(self.png_button)

        self.list = QTableView()
        self.list.setModel(self.model)
        self.list.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.list.verticalHeader().setVisible(False)
        self.list.setItemDelegateForColumn(StoredTargetsModel.LINE_TYPE, LineTypeBadgeDelegate(self.list))
        self.list.horizontalHeader().setSectionResizeMode(
            StoredTargetsModel.NAME, QHeaderView.ResizeMode.Stretch
        )
        self.list.setColumnWidth(StoredTargetsModel.LINE_TYPE, 90)
        self.list.setColumnHidden(StoredTargetsModel.REGION, True)
        self.list_hint = QLabel()
        self.list_hint.setWordWrap(True)
        self.list_hint.setObjectName("screenHint")
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addWidget(self.list, 1)
        left_layout.addWidget(self.list_hint)

        self.timeline = TimelinePlot()
        self.profile = HourProfilePlot()
        self.heatmap = HeatmapPlot()
        self.heat_metric = QComboBox()
        self.heat_metric.addItems(["", ""])
        heat_page = QWidget()
        heat_layout = QVBoxLayout(heat_page)
        heat_row = QHBoxLayout()
        heat_row.addStretch(1)
        self.heat_label = QLabel()
        heat_row.addWidget(self.heat_label)
        heat_row.addWidget(self.heat_metric)
        heat_layout.addLayout(heat_row)
        heat_layout.addWidget(self.heatmap, 1)
        self.cdf = CdfPlot()
        self.tabs = QTabWidget()
        self.tabs.addTab(self.timeline, "")
        self.tabs.addTab(self.profile, "")
        self.tabs.addTab(heat_page, "")
        self.tabs.addTab(self.cdf, "")
        self.offices = OfficesPanel()
        self.tabs.addTab(self.offices, "")

        splitter = QSplitter()
        splitter.addWidget(left)
        splitter.addWidget(self.tabs)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([330, 950])
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(splitter, 1)
        layout.addWidget(self.status)

        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(120)
        self._debounce.timeout.connect(self.load_charts)
        self.range.currentIndexChanged.connect(self._schedule)
        self.range.currentIndexChanged.connect(self.reload_offices)
        self.vantage.currentIndexChanged.connect(self._schedule)
        self.refresh_button.clicked.connect(self.reload_targets)
        self.png_button.clicked.connect(self._ask_png)
        self.heat_metric.currentIndexChanged.connect(
            lambda index: self.heatmap.set_matrix(self.heatmap.matrix, show_loss=index == 1)
        )
        self.list.selectionModel().currentRowChanged.connect(self._current_changed)
        self.model.dataChanged.connect(self._checks_changed)
        context.store_events.changed.connect(self.reload_targets)
        context.settings.changed.connect(lambda _key: self._schedule())
        context.settings.changed.connect(lambda _key: self.reload_offices())
        self.retranslate()
        self.reload_targets()

    # -- loading -----------------------------------------------------------------------------------------

    def reload_targets(self) -> None:
        self.context.workers.submit(
            load_stored_targets,
            self.context.settings.store_location,
            on_done=self._targets_loaded,
            on_error=self._failed,
        )
        self.reload_offices()

    def _period_us(self) -> tuple[int | None, int | None]:
        seconds = RANGES[self.range.currentIndex()]
        now_us = timestamps.now_us()
        return (None, None) if seconds is None else (now_us - seconds * 1_000_000, now_us)

    def reload_offices(self) -> None:
        """Compare the offices over the period (in a worker); the office choice follows."""
        self._offices_generation += 1
        self.offices_loading = True
        since_us, until_us = self._period_us()
        self.context.workers.submit(
            _tagged,
            self._offices_generation,
            load_offices,
            self.context.settings.store_location,
            self.context.settings.peak_windows,
            since_us,
            until_us,
            on_done=self._offices_loaded,
            on_error=self._offices_failed,
        )

    def _offices_loaded(self, tagged: tuple[int, list[VantageComparison]]) -> None:
        generation, comparisons = tagged
        if generation != self._offices_generation:
            return
        self.offices_loading = False
        self.offices.set_comparisons(comparisons)
        self._show_vantages()

    def _offices_failed(self, message: str) -> None:
        self.offices_loading = False
        self._failed(message)

    def _show_vantages(self) -> None:
        """The office choice: every office, then each compared one; hidden with fewer than two."""
        chosen = self.vantage_choice()
        choices = [EVERY_VANTAGE, *(VantageChoice(False, v) for v in self.offices.vantages)]
        self.vantage.blockSignals(True)
        self.vantage.clear()
        self.vantage.addItem(self.tr("all vantage points"), EVERY_VANTAGE)
        for choice in choices[1:]:
            self.vantage.addItem(self.offices.office_name(choice.vantage), choice)
        self.vantage.setCurrentIndex(choices.index(chosen) if chosen in choices else 0)
        self.vantage.blockSignals(False)
        many = len(choices) > 2
        self.vantage.setVisible(many)
        self.vantage_label.setVisible(many)
        if self.vantage_choice() != chosen:
            self._schedule()

    def vantage_choice(self) -> VantageChoice:
        choice = self.vantage.currentData()
        return choice if isinstance(choice, VantageChoice) else EVERY_VANTAGE

    def choose_vantage(self, vantage: str | None) -> None:
        """Draw only the rounds of `vantage` (an office in the comparison)."""
        for i in range(self.vantage.count()):
            if self.vantage.itemData(i) == VantageChoice(False, vantage):
                self.vantage.setCurrentIndex(i)
                return
        raise ValueError(f"{vantage!r} is not a compared vantage point")

    def _targets_loaded(self, targets: list[ChartTarget]) -> None:
        self.model.set_targets(targets)
        if not targets:
            self._current_id = None
            self._show(None)
            self.status.setText(
                self.tr("No measurements yet: run a probe (Probe screen) or `linkvet schedule`.")
            )
            return
        row = self.model.row_of(self._current_id) if self._current_id is not None else None
        self.list.selectRow(row if row is not None else 0)
        self._schedule()

    def _current_changed(self, current: object, _previous: object) -> None:
        row = self.list.currentIndex().row()
        self._current_id = self.model.target(row).id if 0 <= row < self.model.rowCount() else None
        self._schedule()

    def _checks_changed(self, *_: object) -> None:
        self._schedule()

    def _schedule(self) -> None:
        self._debounce.start()

    def selection(self) -> tuple[tuple[int, str] | None, list[tuple[int, str]]]:
        """(the current target, the targets to compare: the ticked ones, else the current one)."""
        current = None
        if self._current_id is not None:
            row = self.model.row_of(self._current_id)
            if row is not None:
                t = self.model.target(row)
                current = (t.id, t.name)
        compare = [(t.id, t.name) for t in self.model.checked()]
        if not compare and current is not None:
            compare = [current]
        return current, compare

    def load_charts(self) -> None:
        current, compare = self.selection()
        if current is None and not compare:
            return
        self._generation += 1
        generation = self._generation
        since_us, until_us = self._period_us()
        self._period = None if since_us is None or until_us is None else (since_us / 1e6, until_us / 1e6)
        self.loading = True
        self.status.setText(self.tr("Loading…"))
        self._started = time.monotonic()
        self.context.workers.submit(
            _tagged,
            generation,
            load_charts,
            self.context.settings.store_location,
            current,
            compare,
            tz=self.context.settings.time_zone,
            since_us=since_us,
            until_us=until_us,
            choice=self.vantage_choice(),
            on_done=self._chart_loaded,
            on_error=self._failed,
        )

    def _chart_loaded(self, tagged: tuple[int, ChartBundle]) -> None:
        generation, bundle = tagged
        if generation != self._generation:
            return  # a newer request is on its way
        self.loading = False
        self._show(bundle)
        self.status.setText(
            self.tr("Drawn in {seconds:.2f} s · hours in {zone}").format(
                seconds=time.monotonic() - self._started, zone=bundle.tz
            )
        )

    def _failed(self, message: str) -> None:
        self.loading = False
        self.status.setText(message)
        self.context.reporter.info(message)

    def _show(self, bundle: ChartBundle | None) -> None:
        self.bundle = bundle
        settings = self.context.settings
        tz = settings.time_zone
        line = bundle.timeline if bundle else None
        if line is not None and line.bin_start_s.size:
            self.timeline.set_time_zone(utc_offset_s(tz, float(line.bin_start_s[line.bin_start_s.size // 2])))
        else:
            self.timeline.set_time_zone(utc_offset_s(tz, time.time()))
        self.timeline.time_format = lambda t: _local_text(t, tz)
        empty_note = ""
        if bundle is not None and bundle.last_measured_us is not None:
            empty_note = self.tr(
                "{target}: nothing measured in this period; last measured {when} (choose a longer period)"
            ).format(target=bundle.current, when=_local_text(bundle.last_measured_us / 1e6, tz))
        self.timeline.set_timeline(line, period=self._period, empty_note=empty_note)
        self.profile.set_peak_spans(peak_spans(settings.peak_windows, tz))
        self.profile.set_profiles(bundle.profiles if bundle else [])
        self.heatmap.set_matrix(bundle.matrix if bundle else None)
        self.cdf.set_cdfs(bundle.cdfs if bundle else [])

    # -- PNG ---------------------------------------------------------------------------------------------

    def save_png(self, path: Path) -> Path:
        """Save the chart on the current tab as a PNG; the path written."""
        widget = self.tabs.currentWidget()
        if not widget.grab().save(str(path), "PNG"):
            raise OSError(self.tr("{path}: could not write the PNG").format(path=path))
        return path

    def _ask_png(self) -> None:
        name = ["timeline", "hour-of-day", "day-hour", "cdf", "offices"][self.tabs.currentIndex()]
        suggested = self.context.settings.export_dir / f"linkvet-{name}.png"
        chosen, _ = QFileDialog.getSaveFileName(
            self, self.tr("Save chart as PNG"), str(suggested), "PNG (*.png)"
        )
        if not chosen:
            return
        try:
            self.save_png(Path(chosen))
        except OSError as exc:
            self.context.reporter.failure(self.tr("Chart not saved"), exc)
            return
        self.context.settings.export_dir = Path(chosen).parent
        self.context.reporter.info(self.tr("Chart saved to {path}").format(path=chosen))

    # -- language ----------------------------------------------------------------------------------------

    def retranslate(self) -> None:
        self.title.setText(self.tr("Charts"))
        names = [
            self.tr("Last hour"),
            self.tr("Last 6 hours"),
            self.tr("Last 24 hours"),
            self.tr("Last 7 days"),
            self.tr("Last 30 days"),
            self.tr("Everything"),
        ]
        for i, name in enumerate(names):
            self.range.setItemText(i, name)
        self.range_label.setText(self.tr("Period"))
        self.vantage_label.setText(self.tr("Vantage point"))
        self._show_vantages()
        self.refresh_button.setText(self.tr("Refresh"))
        self.png_button.setText(self.tr("Save as PNG…"))
        self.list_hint.setText(
            self.tr(
                "Click a target for its timeline and heatmap; "
                "tick several to compare them by hour of day and CDF."
            )
        )
        self.tabs.setTabText(0, self.tr("Timeline"))
        self.tabs.setTabText(1, self.tr("Hour of day"))
        self.tabs.setTabText(2, self.tr("Day × hour"))
        self.tabs.setTabText(3, self.tr("RTT distribution (CDF)"))
        self.tabs.setTabText(4, self.tr("Offices compared"))
        self.heat_label.setText(self.tr("Colour by"))
        self.heat_metric.setItemText(0, self.tr("median RTT"))
        self.heat_metric.setItemText(1, self.tr("loss"))
        self.model.set_headers(
            [self.tr("Target"), self.tr("Method"), self.tr("Line"), self.tr("Provider / region")]
        )
        words = {
            "rtt": self.tr("RTT (ms)"),
            "loss": self.tr("loss %"),
            "median": self.tr("median"),
            "p95": self.tr("p95"),
            "lost": self.tr("lost"),
            "no_data": self.tr("no data"),
            "replies": self.tr("replies"),
            "hour": self.tr("hour of day"),
            "attempts": self.tr("attempts"),
            "share": self.tr("replies at or below (%)"),
            # Notes above the charts: what each rests on, and where there is too little data for a box.
            "attempts_n": self.tr("{n} attempts"),
            "rounds_1": self.tr("1 round"),
            "rounds_n": self.tr("{n} rounds"),
            "bins_of": self.tr("bins of {width}"),
            "units": self.tr("d h min s"),
            "few_p5_p95": self.tr(
                "Too little data for p5–p95 boxes: a box needs {need} replies, the fullest bin has {most}."
            ),
            "some_few_p5_p95": self.tr(
                "{count} of {total} bins have fewer than {need} replies: min–max only there."
            ),
            "few_boxes": self.tr(
                "Too little data for boxes: at most one reply per bin; the line joins the replies."
            ),
            "all_lost": self.tr("No replies: every attempt was lost (the loss bars below)."),
            "hours_of_24": self.tr("{name}: {hours} of 24 hours measured, on {days} days at most"),
            "one_day": self.tr("{name}: every hour from a single day: that day's values, not a typical day"),
            "few_p95": self.tr("p95 left out where an hour has fewer than {need} replies"),
            "measured": self.tr("Hours measured: {cells} · days with data: {days} of {span}"),
            "weekdays": self.tr("Mon Tue Wed Thu Fri Sat Sun"),
            "months": self.tr("Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec"),
            "few": self.tr(
                "Too little data for a distribution: {names} (fewer than {need} replies; n in the legend)"
            ),
        }
        self.timeline.set_words(words)
        self.profile.set_words(words)
        self.heatmap.set_words({**words, "median": self.tr("median RTT (ms)")})
        self.cdf.set_words(words)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)


def _tagged(generation: int, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[int, Any]:
    return generation, fn(*args, **kwargs)


def _local_text(t_s: float, tz: str) -> str:
    from datetime import datetime
    from zoneinfo import ZoneInfo

    return datetime.fromtimestamp(t_s, ZoneInfo(tz)).strftime("%Y-%m-%d %H:%M:%S %Z")
