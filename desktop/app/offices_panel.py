"""The Charts screen's "Offices compared" tab: every region measured from two or more vantage points (offices),
each office's peak p95, peak loss and route class side by side, the office that sees the worst peak marked,
and a note where the route class differs by office. The comparison is `desktop.usecases.vantages`' (what
`linkvet vantages` prints), computed in a worker (`load_offices`); this widget only shows it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QBrush, QColor, QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop.i18n import vantage_name
from probes.routes.names import class_name
from probes.vantage import THIS_MACHINE

if TYPE_CHECKING:
    from probes.analysis import VantageComparison
    from probes.peak import PeakWindow
    from probes.store_location import StoreLocation

WORST = QColor("#fde2e1")
DIFFERS = QColor("#fff1c2")


def load_offices(
    location: StoreLocation,
    windows: Sequence[PeakWindow],
    since_us: int | None = None,
    until_us: int | None = None,
) -> list[VantageComparison]:
    """The worker's part: the bundled and user catalogs (for the claimed line types), then the store's
    regions compared by office over the period."""
    from desktop.usecases.offerings import load_catalog_set
    from desktop.usecases.vantages import stored_vantage_comparisons
    from probes.analysis import Scope

    return stored_vantage_comparisons(
        location, windows, load_catalog_set(db=location), Scope(since_us=since_us, until_us=until_us)
    )


class OfficesPanel(QWidget):
    REGION, OFFICE, P95, LOSS, ROUTE, NOTE = range(6)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.comparisons: list[VantageComparison] = []
        self.intro = QLabel()
        self.intro.setWordWrap(True)
        self.intro.setObjectName("screenHint")
        self.table = QTableWidget(0, 6)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.verticalHeader().setVisible(False)
        self.table.setWordWrap(False)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)  # the note: at least as wide as its text, else the rest
        self.notes = QLabel()
        self.notes.setWordWrap(True)
        self.notice = QLabel()
        self.notice.setWordWrap(True)
        self.notice.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.notice.setObjectName("screenHint")
        layout = QVBoxLayout(self)
        layout.addWidget(self.intro)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.notes)
        layout.addWidget(self.notice, 1)
        self.retranslate()
        self.set_comparisons([])

    def set_comparisons(self, comparisons: list[VantageComparison]) -> None:
        self.comparisons = comparisons
        shown = bool(comparisons)
        for widget in (self.intro, self.table, self.notes):
            widget.setVisible(shown)
        self.notice.setVisible(not shown)
        self._fill()

    @property
    def vantages(self) -> list[str | None]:
        """Every vantage point in the comparison, named ones by name, this machine's (the rounds that named
        none) last."""
        found = {view.vantage for c in self.comparisons for view in c.views}
        return sorted(found, key=lambda v: (v is None or v == THIS_MACHINE, v or ""))

    def office_name(self, vantage: str | None) -> str:
        return vantage_name(vantage)

    def _fill(self) -> None:
        rows = [(c, view) for c in self.comparisons for view in c.views]
        self.table.setRowCount(len(rows))
        bold = QFont(self.font())
        bold.setBold(True)
        for row, (comparison, view) in enumerate(rows):
            worst = comparison.worst_peak == view.vantage and comparison.judged > 0
            differs = comparison.route_differs and view.route_class is not None
            note = ""
            if worst and comparison.peak_p95_spread_ms is not None:
                note = self.tr("worst peak (+{spread:.0f} ms vs the best)").format(
                    spread=comparison.peak_p95_spread_ms
                )
            elif worst:
                note = self.tr("worst peak")
            first = row == 0 or rows[row - 1][0] is not comparison
            cells = [
                f"{comparison.provider} / {comparison.region}" if first else "",
                self.office_name(view.vantage),
                "–" if view.peak_rtt_p95_ms is None else f"{view.peak_rtt_p95_ms:.1f}",
                "–" if view.peak_loss is None else f"{view.peak_loss * 100:.2f}%",
                class_name(view.route_class) if view.route_class else self.tr("not traced"),
                note,
            ]
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(text)  # a note too long for its column reads whole here
                if column in (self.P95, self.LOSS):
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                if worst:
                    item.setFont(bold)
                    if column in (self.OFFICE, self.P95, self.NOTE):
                        item.setBackground(QBrush(WORST))
                if differs and column == self.ROUTE:
                    item.setBackground(QBrush(DIFFERS))
                self.table.setItem(row, column, item)
        self.notes.setText("\n".join(self.route_notes()))

    def route_notes(self) -> list[str]:
        """One line per region whose route class differs by office."""
        lines = []
        for c in self.comparisons:
            if not c.route_differs:
                continue
            by_office = ", ".join(
                f"{self.office_name(v.vantage)} {class_name(v.route_class)}"
                for v in c.views
                if v.route_class is not None
            )
            lines.append(
                self.tr("{provider} / {region}: the route class differs by office ({offices})").format(
                    provider=c.provider, region=c.region, offices=by_office
                )
            )
        return lines

    def worst_rows(self) -> list[int]:
        """The table rows marked as the worst peak (for tests and screenshots)."""
        font_rows = []
        for row in range(self.table.rowCount()):
            item = self.table.item(row, self.OFFICE)
            if item is not None and item.font().bold():
                font_rows.append(row)
        return font_rows

    def retranslate(self) -> None:
        self.intro.setText(
            self.tr(
                "Each region measured from two or more vantage points (offices), side by side: "
                "p95 and loss in the peak hours, and the route class each office's traces measured."
            )
        )
        self.table.setHorizontalHeaderLabels(
            [
                self.tr("Provider / region"),
                self.tr("Vantage point"),
                self.tr("Peak p95 (ms)"),
                self.tr("Peak loss"),
                self.tr("Measured route"),
                self.tr("Note"),
            ]
        )
        self.notice.setText(
            self.tr(
                "Only one vantage point (office) in this period: nothing to compare. Measure the same "
                "targets from a second office (`linkvet schedule` with another vantage point, into the "
                "same store) to see them side by side here."
            )
        )
        self._fill()

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)
