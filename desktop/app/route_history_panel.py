"""The Routes screen's history: a region's stored traces on a timeline beside its RTT, and the changes in
words ("Tue 12-01 21:00: the line fell from CN2 GIA to ChinaNet 163"). The store is read in a worker
(`desktop.usecases.routes.route_history`); a newer request supersedes an older one still in flight."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from PySide6.QtCore import QEvent, Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop.app.context import AppContext
from desktop.app.widgets.route_timeline import RouteTimeline
from desktop.usecases.routes import RouteChange, RouteHistory, route_history, traced_regions
from probes.routes import LINE_CLASSES, class_name
from probes.store_location import StoreLocation

PERIODS: tuple[int | None, ...] = (7 * 86400, 30 * 86400, 90 * 86400, None)  # seconds back, None: all


class RouteHistoryPanel(QWidget):
    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self.history: RouteHistory | None = None
        self.loading = False
        self._generation = 0
        self.heading = QLabel()
        self.heading.setObjectName("screenTitle")
        self.region = QComboBox()
        self.region.setMinimumContentsLength(24)
        self.period = QComboBox()
        for _ in PERIODS:
            self.period.addItem("")
        self.period.setCurrentIndex(1)
        self.refresh_button = QPushButton()
        self.region_label, self.period_label = QLabel(), QLabel()
        bar = QHBoxLayout()
        bar.addWidget(self.heading)
        bar.addStretch(1)
        for widget in (self.region_label, self.region, self.period_label, self.period, self.refresh_button):
            bar.addWidget(widget)
        self.note = QLabel()
        self.note.setObjectName("screenHint")
        self.note.setWordWrap(True)
        self.timeline = RouteTimeline()
        self.changes = QTableWidget(0, 3)
        self.changes.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.changes.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.changes.verticalHeader().setVisible(False)
        self.changes.horizontalHeader().setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        self.changes.setColumnWidth(0, 128)
        self.changes.setColumnWidth(1, 150)
        self.changes.setWordWrap(True)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.timeline)
        split.addWidget(self.changes)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        split.setSizes([760, 420])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(bar)
        layout.addWidget(self.note)
        layout.addWidget(split, 1)
        self.region.currentIndexChanged.connect(lambda _=0: self.reload())
        self.period.currentIndexChanged.connect(lambda _=0: self.reload())
        self.refresh_button.clicked.connect(lambda _=False: self.refresh_regions())
        context.store_events.changed.connect(lambda: self.refresh_regions())
        self.retranslate()

    # -- loading -----------------------------------------------------------------------------------------

    def refresh_regions(self, select: tuple[str, str] | None = None) -> None:
        """List the regions with stored traces again (in a worker), then show `select` or the current one."""
        keep = select or self.region.currentData()
        self.context.workers.submit(
            _regions,
            keep,
            self.context.settings.store_location,
            on_done=self._regions_loaded,
            on_error=self._failed,
        )

    def _regions_loaded(self, loaded: tuple[object, list[tuple[str, str, int, int]]]) -> None:
        keep, regions = loaded
        self.region.blockSignals(True)
        self.region.clear()
        for provider, region, count, _last in regions:
            self.region.addItem(
                self.tr("{provider}/{region} ({count} traces)").format(
                    provider=provider, region=region, count=count
                ),
                (provider, region),
            )
        index = self.region.findData(keep) if keep is not None else -1
        self.region.setCurrentIndex(index if index >= 0 else (0 if regions else -1))
        self.region.blockSignals(False)
        if not regions:
            self.note.setText(
                self.tr(
                    "No traces stored for a region yet: trace a target labelled with a provider and "
                    "region (Targets screen) with “Save the traces” on."
                )
            )
            self.timeline.set_history([], [], [])
            self.changes.setRowCount(0)
            return
        self.reload()

    def reload(self) -> None:
        chosen = self.region.currentData()
        if not chosen:
            return
        provider, region = chosen
        back = PERIODS[self.period.currentIndex()]
        since = None if back is None else int((time.time() - back) * 1e6)
        self._generation += 1
        generation = self._generation
        self.loading = True
        self.context.workers.submit(
            _history,
            generation,
            self.context.settings.store_location,
            provider,
            region,
            since,
            on_done=self._history_loaded,
            on_error=self._failed,
        )

    def _history_loaded(self, loaded: tuple[int, RouteHistory]) -> None:
        self._loaded(loaded[1], loaded[0])

    def _failed(self, message: str) -> None:
        self.loading = False
        self.context.reporter.error(self.tr("Route history not loaded"), message)

    def _loaded(self, history: RouteHistory, generation: int) -> None:
        if generation != self._generation:
            return  # a newer request is on its way
        self.loading = False
        self.history = history
        tz = self.context.settings.time_zone
        at = history.points[-1].at_us / 1e6 if history.points else time.time()
        offset = datetime.fromtimestamp(at, ZoneInfo(tz)).utcoffset()
        self.timeline.set_time_zone(int(offset.total_seconds()) if offset else 0)
        self.timeline.set_history(history.points, history.changes, history.rtt)
        self.changes.setRowCount(len(history.changes))
        for row, change in enumerate(reversed(history.changes)):  # newest first
            cells = (self.when(change.at_us), change.target, self.describe(change))
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(f"{change.target}\n{self.hops_tooltip(change)}" if column == 2 else text)
                self.changes.setItem(row, column, item)
        # One traced target: its name says nothing the region does not (it is in the tooltip).
        self.changes.setColumnHidden(1, len({c.target for c in history.changes}) <= 1)
        self.changes.resizeRowsToContents()
        parts = [
            self.tr("%n trace(s) stored", "", len(history.points)),
            self.tr("%n change(s)", "", len(history.changes)),
        ]
        if history.rtt_method:
            parts.append(self.tr("RTT from {methods}").format(methods=history.rtt_method))
        if history.claim:
            parts.append(self.tr("claim check: {evidence}").format(evidence=history.claim["evidence"]))
        self.note.setText(self.tr("; ").join(parts))

    # -- words -------------------------------------------------------------------------------------------

    def when(self, at_us: int) -> str:
        """e.g. `Tue 2026-12-01 21:00` in the window's time zone, the day in the window's language."""
        moment = datetime.fromtimestamp(at_us / 1e6, UTC).astimezone(
            ZoneInfo(self.context.settings.time_zone)
        )
        days = self.tr("Mon Tue Wed Thu Fri Sat Sun").split()
        day = days[moment.weekday()] if len(days) == 7 else moment.strftime("%a")
        return f"{day} {moment:%Y-%m-%d %H:%M}"

    def describe(self, change: RouteChange) -> str:
        before, after = class_name(change.before), class_name(change.after)
        if change.class_changed and change.direction == "down":
            text = self.tr("the line fell from {before} to {after}")
        elif change.class_changed and change.direction == "up":
            text = self.tr("the line rose from {before} to {after}")
        elif change.class_changed:
            text = self.tr("the line changed from {before} to {after}")
        else:
            text = self.tr("the hops changed; still {before}")
        text = text.format(before=before, after=after)
        if change.class_changed and change.hops_changed:
            text += self.tr(" (other hops)")
        return text

    def hops_tooltip(self, change: RouteChange) -> str:
        def path(hops: tuple[tuple[int, tuple[str, ...]], ...]) -> str:
            return " → ".join("/".join(addresses) or "*" for _ttl, addresses in hops)

        return self.tr("before: {before}\nafter: {after}").format(
            before=path(change.before_hops), after=path(change.after_hops)
        )

    def retranslate(self) -> None:
        self.heading.setText(self.tr("History"))
        self.region_label.setText(self.tr("Region"))
        self.period_label.setText(self.tr("Period"))
        for index, text in enumerate(
            (self.tr("last 7 days"), self.tr("last 30 days"), self.tr("last 90 days"), self.tr("everything"))
        ):
            self.period.setItemText(index, text)
        self.refresh_button.setText(self.tr("Refresh"))
        self.changes.setHorizontalHeaderLabels([self.tr("When"), self.tr("Target"), self.tr("Change")])
        self.timeline.class_names = {k: class_name(k) for k in LINE_CLASSES}
        self.timeline.rtt_label = self.tr("RTT (ms)")
        self.timeline.lane_label = self.tr("route")
        self.timeline.change_text = self.tr("{before} → {after}")
        self.timeline.hops_text = self.tr("hops changed")
        self.timeline.set_weekdays(
            self.tr("Mon Tue Wed Thu Fri Sat Sun").split(),
            self.tr("Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec").split(),
        )
        if self.history is not None:
            self._loaded(self.history, self._generation)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)


def _regions(keep: object, db_path: StoreLocation) -> tuple[object, list[tuple[str, str, int, int]]]:
    return keep, traced_regions(db_path)


def _history(
    generation: int, db_path: StoreLocation, provider: str, region: str, since_us: int | None
) -> tuple[int, RouteHistory]:
    return generation, route_history(db_path, provider, region, since_us=since_us)
