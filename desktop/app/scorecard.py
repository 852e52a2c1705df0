"""The Needs & score screen's scorecard: a status line (candidates, how many pass every gate, the ranking
time, whether the first place holds when a weight moves, how many regions are measured), the ranked
candidates (optionally only those passing every gate), and for the selected one its per-criterion breakdown
(reasons and sources) and the explanation in words; the sensitivity check in full in a tab of its own (a long
paragraph above the table would leave it a few rows). It shows a `catalogs.scoring.Ranking`; it computes
nothing."""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QSplitter,
    QTableView,
    QTabWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from catalogs.i18n import sentences
from catalogs.scoring import Ranking, method_title, order_title
from desktop.app.checklist_words import criterion_title
from desktop.app.models.ranking import BreakdownModel, RankingModel


class Scorecard(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ranking: Ranking | None = None
        self.regions_measured = 0
        self.ranking_time_s = 0.0
        self._selected_key: str | None = None

        self.passing_only = QCheckBox()
        self.status = QLabel()
        self.status.setObjectName("screenHint")
        self.status.setWordWrap(True)
        self.model = RankingModel(self)
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.verticalHeader().setVisible(False)
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(False)  # one line a candidate; a long cell is elided, its tooltip is whole
        # Figures keep their width; the gates and the offering's name share what is left, so every column is
        # in view on a 1280-pixel window (a long cell is elided, its tooltip whole).
        header = self.table.horizontalHeader()
        header.setStretchLastSection(False)
        widths = {0: 32, 1: 72, 2: 150, 4: 84, 6: 110, 7: 96, 8: 118, 9: 72, 10: 70}
        for column, width in widths.items():
            self.table.setColumnWidth(column, width)
        for column in (RankingModel.GATES, RankingModel.OFFERING):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.Stretch)
        header.setMinimumSectionSize(40)
        self.breakdown = BreakdownModel(self, title=criterion_title)
        self.breakdown_table = QTableView()
        self.breakdown_table.setModel(self.breakdown)
        self.breakdown_table.verticalHeader().setVisible(False)
        self.breakdown_table.setWordWrap(True)
        self.breakdown_table.horizontalHeader().setSectionResizeMode(
            BreakdownModel.REASON, QHeaderView.ResizeMode.Stretch
        )
        for column, width in {0: 180, 1: 64, 2: 64, 3: 52, 4: 52, 6: 150}.items():
            self.breakdown_table.setColumnWidth(column, width)
        self.explanation = QTextBrowser()
        self.sensitivity = QTextBrowser()
        self.detail_tabs = QTabWidget()
        self.detail_tabs.addTab(self.breakdown_table, "")
        self.detail_tabs.addTab(self.explanation, "")
        self.detail_tabs.addTab(self.sensitivity, "")

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        bar = QHBoxLayout()
        bar.addWidget(self.status, 1)
        bar.addWidget(self.passing_only)
        layout.addLayout(bar)
        lower = QSplitter(Qt.Orientation.Vertical)
        lower.addWidget(self.table)
        lower.addWidget(self.detail_tabs)
        lower.setSizes([360, 300])
        layout.addWidget(lower, 1)

        self.passing_only.toggled.connect(lambda *_: self._show())
        self.table.selectionModel().currentRowChanged.connect(lambda *_: self._show_selected())
        self.retranslate()

    def show_ranking(self, ranking: Ranking, regions_measured: int, ranking_time_s: float) -> None:
        """Show `ranking`, ranked in `ranking_time_s` with line quality measured for `regions_measured`
        regions; the selected candidate stays selected."""
        self.ranking = ranking
        self.regions_measured = regions_measured
        self.ranking_time_s = ranking_time_s
        self._show()

    def _rating_header(self) -> str:
        """The header of the figure that orders the ranking, naming it."""
        ordered_by = self.ranking.ordered_by if self.ranking is not None else "score-min"
        if ordered_by == "topsis":
            return self.tr("TOPSIS ↓")
        if ordered_by == "total":
            return self.tr("Score ↓")
        return self.tr("At worst ↓")

    def _ranking_headers(self) -> list[str]:
        return [
            self.tr("#"),
            self._rating_header(),
            self.tr("Score"),
            self.tr("Gates"),
            self.tr("Provider"),
            self.tr("Offering"),
            self.tr("Region"),
            self.tr("GPU"),
            self.tr("Plan"),
            self.tr("$/GPU-h"),
            self.tr("Unknown"),
        ]

    def _show(self) -> None:
        ranking = self.ranking
        if ranking is None:
            return
        self.model.set_headers(self._ranking_headers())
        entries = [e for e in ranking.entries if e.eligible or not self.passing_only.isChecked()]
        self.model.set_entries(entries)
        passing = sum(1 for e in ranking.entries if e.eligible)
        measured = self.tr("Line quality measured for %n region(s).", "", self.regions_measured)
        notes = [self.tr("Note: {note}.").format(note=n) for n in ranking.notes]
        sensitivity = ranking.sensitivity
        if sensitivity.top is None:
            holds = self.tr("no first place")
        elif sensitivity.stable:
            holds = self.tr("the first place holds when any weight moves ±20 %")
        else:
            holds = self.tr("the first place changes when a weight moves ±20 % (Sensitivity tab)")
        self.status.setText(
            self.tr(
                "{total} candidates (offering × region), {passing} pass every gate · ranked in {ms:.0f} ms by "
                "{method}, ordered by {order} · {holds}"
            ).format(
                total=len(ranking.entries),
                passing=passing,
                ms=self.ranking_time_s * 1000,
                method=method_title(ranking.method),
                order=order_title(ranking.ordered_by),
                holds=holds,
            )
            + "\n"
            + sentences([measured, *notes[:1]])
        )
        self.sensitivity.setPlainText("\n\n".join([sensitivity.describe(), measured, *notes]))
        row = next((i for i, e in enumerate(entries) if e.label == self._selected_key), 0)
        if entries:
            self.table.selectRow(row)
        self._show_selected()

    def _show_selected(self) -> None:
        index = self.table.currentIndex()
        if not index.isValid():
            self.breakdown.set_judgements([])
            self.explanation.clear()
            return
        entry = self.model.entry(index.row())
        self._selected_key = entry.label
        self.breakdown.set_judgements(entry.judgements)
        self.breakdown_table.resizeRowsToContents()
        self.explanation.setPlainText(entry.explanation)

    def retranslate(self) -> None:
        self.passing_only.setText(self.tr("Only those passing every gate"))
        self.detail_tabs.setTabText(0, self.tr("Breakdown"))
        self.detail_tabs.setTabText(1, self.tr("In words"))
        self.detail_tabs.setTabText(2, self.tr("Sensitivity"))
        self.model.set_headers(self._ranking_headers())
        self.model.words = {
            "pass": self.tr("pass"),
            "unchecked": self.tr("pass (unchecked: {gates})"),
            "fail": self.tr("fail: {gates}"),
            "region?": self.tr("not stated"),
            "nodes": self.tr("{gpus} GPUs / {nodes} nodes"),
        }
        self.breakdown.set_headers(
            [
                self.tr("Criterion"),
                self.tr("Kind"),
                self.tr("Result"),
                self.tr("Weight"),
                self.tr("Counts"),
                self.tr("Why"),
                self.tr("Source"),
            ]
        )
        self.breakdown.words = {
            "gate": self.tr("gate"),
            "weighted": self.tr("weighted"),
            "unknown": self.tr("unknown"),
            "pass": self.tr("pass"),
            "fail": self.tr("fail"),
            "n/a": self.tr("n/a"),
        }
        self._show()

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)
