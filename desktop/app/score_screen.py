"""The Needs & score screen: the training-needs form with live sizing, the checklist's weights as sliders,
and the ranked scorecard (gates, per-criterion breakdown with reasons and sources, the explanation and the
sensitivity check), re-ranked in a worker whenever the needs or a weight change."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from PySide6.QtCore import QCoreApplication, QEvent, QSize, Qt, QTimer
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QFileDialog,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QScrollArea,
    QSlider,
    QSpinBox,
    QSplitter,
    QTableView,
    QTabWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from catalogs.checklist import default_checklist
from catalogs.errors import CatalogError
from catalogs.loader import CatalogSet
from catalogs.needs import NeedsProfile
from catalogs.scoring import Ranking
from desktop.app.context import AppContext
from desktop.app.errors import error_text
from desktop.app.models.ranking import BreakdownModel, RankingModel
from desktop.app.needs_form import DEFAULTS, NeedsForm
from desktop.usecases.errors import UsecaseError
from desktop.usecases.links import stored_link_summaries
from desktop.usecases.offerings import load_catalog_set
from desktop.usecases.ranking import ScoreRequest, rank
from desktop.usecases.sizing import DEFAULT_GPU, gpu_names, size_on

WEIGHT_MAX = 40
DEBOUNCE_MS = 150


class FormScrollArea(QScrollArea):
    """A vertically scrolling form that is never narrower than the form: the splitter beside it stops there,
    so no field is reached by scrolling sideways."""

    def minimumSizeHint(self) -> QSize:
        hint = super().minimumSizeHint()
        form = self.widget()
        if form is not None:
            bar = self.verticalScrollBar().sizeHint().width()
            hint.setWidth(form.minimumSizeHint().width() + bar + 2 * self.frameWidth())
        return hint


def criterion_title(criterion: str) -> str:
    """The checklist item's title in the current language (the checklist file's English title otherwise)."""
    titles = {c.id: c.title for c in default_checklist().criterion}
    title = titles.get(criterion, criterion)
    return QCoreApplication.translate("Checklist", title)


class ScoreScreen(QWidget):
    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self.catalogs: CatalogSet | None = None
        self.ranking: Ranking | None = None
        self.ranked: ScoreRequest | None = None  # what `ranking` was computed for
        self.ranking_time_s = 0.0
        self._generation = 0
        self._started = 0.0
        self._selected_key: str | None = None
        self._pending = False
        self._requested: ScoreRequest | None = None
        self.summaries: list[Any] | None = None  # the store's link summaries, once loaded
        self.checklist = default_checklist()
        self.defaults = {c.id: c.weight for c in self.checklist.weighted}

        self.title = QLabel()
        self.title.setObjectName("screenTitle")
        # left: needs and weights
        self.form = NeedsForm()
        self.load_button = QPushButton()
        self.reset_needs = QPushButton()
        needs_page = QWidget()
        needs_layout = QVBoxLayout(needs_page)
        buttons = QHBoxLayout()
        buttons.addWidget(self.load_button)
        buttons.addWidget(self.reset_needs)
        buttons.addStretch(1)
        needs_layout.addLayout(buttons)
        needs_layout.addWidget(self.form)
        needs_scroll = FormScrollArea()
        needs_scroll.setWidgetResizable(True)
        needs_scroll.setWidget(needs_page)

        self.sliders: dict[str, QSlider] = {}
        self.slider_labels: dict[str, QLabel] = {}
        self.slider_values: dict[str, QLabel] = {}
        weights_page = QWidget()
        grid = QGridLayout(weights_page)
        self.method = QComboBox()
        self.method.addItem("", "weighted-sum")
        self.method.addItem("", "topsis")
        self.method_label = QLabel()
        grid.addWidget(self.method_label, 0, 0)
        grid.addWidget(self.method, 0, 1, 1, 2)
        saved = context.settings.score_weights
        for row, item in enumerate(self.checklist.weighted, start=1):
            label = QLabel()
            label.setWordWrap(True)
            slider = QSlider(Qt.Orientation.Horizontal)
            slider.setRange(0, WEIGHT_MAX)
            slider.setValue(round(saved.get(item.id, item.weight)))
            value = QLabel(str(slider.value()))
            value.setMinimumWidth(24)
            slider.valueChanged.connect(lambda v, key=item.id: self._weight_moved(key, v))
            grid.addWidget(label, row, 0)
            grid.addWidget(slider, row, 1)
            grid.addWidget(value, row, 2)
            self.sliders[item.id] = slider
            self.slider_labels[item.id] = label
            self.slider_values[item.id] = value
        self.reset_weights = QPushButton()
        grid.addWidget(self.reset_weights, len(self.checklist.weighted) + 1, 0, 1, 3)
        grid.setColumnStretch(0, 3)
        grid.setColumnStretch(1, 2)
        weights_scroll = QScrollArea()
        weights_scroll.setWidgetResizable(True)
        weights_scroll.setWidget(weights_page)
        self.left_tabs = QTabWidget()
        self.left_tabs.addTab(needs_scroll, "")
        self.left_tabs.addTab(weights_scroll, "")

        # right: sizing, scorecard, breakdown
        self.gpu = QComboBox()
        self.gpu.addItems(gpu_names())
        self.gpu.setCurrentText(DEFAULT_GPU)
        self.per_node = QSpinBox()
        self.per_node.setRange(1, 64)
        self.per_node.setValue(8)
        self.sizing_text = QLabel()
        self.sizing_text.setWordWrap(True)
        self.sizing_text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.sizing_box = QGroupBox()
        sizing_layout = QVBoxLayout(self.sizing_box)
        sizing_row = QHBoxLayout()
        self.gpu_label = QLabel()
        self.per_node_label = QLabel()
        sizing_row.addWidget(self.gpu_label)
        sizing_row.addWidget(self.gpu)
        sizing_row.addWidget(self.per_node_label)
        sizing_row.addWidget(self.per_node)
        sizing_row.addStretch(1)
        sizing_layout.addLayout(sizing_row)
        sizing_layout.addWidget(self.sizing_text)

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
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setWordWrap(False)  # one line a candidate; a long cell is elided, its tooltip is whole
        for column, width in {0: 36, 1: 60, 2: 215, 3: 80, 4: 190, 5: 120, 6: 110, 7: 130, 8: 80}.items():
            self.table.setColumnWidth(column, width)
        self.breakdown = BreakdownModel(self, title=criterion_title)
        self.breakdown_table = QTableView()
        self.breakdown_table.setModel(self.breakdown)
        self.breakdown_table.verticalHeader().setVisible(False)
        self.breakdown_table.setWordWrap(True)
        self.breakdown_table.horizontalHeader().setSectionResizeMode(
            BreakdownModel.REASON, QHeaderView.ResizeMode.Stretch
        )
        for column, width in {0: 210, 1: 70, 2: 70, 3: 55, 4: 55, 6: 160}.items():
            self.breakdown_table.setColumnWidth(column, width)
        self.explanation = QTextBrowser()
        self.detail_tabs = QTabWidget()
        self.detail_tabs.addTab(self.breakdown_table, "")
        self.detail_tabs.addTab(self.explanation, "")

        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.addWidget(self.sizing_box)
        bar = QHBoxLayout()
        bar.addWidget(self.status, 1)
        bar.addWidget(self.passing_only)
        right_layout.addLayout(bar)
        lower = QSplitter(Qt.Orientation.Vertical)
        lower.addWidget(self.table)
        lower.addWidget(self.detail_tabs)
        lower.setSizes([330, 260])
        right_layout.addWidget(lower, 1)
        splitter = QSplitter()
        splitter.addWidget(self.left_tabs)
        splitter.addWidget(right)
        splitter.setSizes([380, 900])
        layout = QVBoxLayout(self)
        layout.addWidget(self.title)
        layout.addWidget(splitter, 1)

        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(DEBOUNCE_MS)
        self._debounce.timeout.connect(self.rerank)
        self.form.changed.connect(self._needs_changed)
        self.gpu.currentIndexChanged.connect(self._update_sizing)
        self.per_node.valueChanged.connect(self._update_sizing)
        self.method.setCurrentIndex(max(0, self.method.findData(context.settings.score_method)))
        self.method.currentIndexChanged.connect(self._method_changed)
        self.passing_only.toggled.connect(lambda *_: self._show_ranking())
        self.reset_weights.clicked.connect(self.reset_all_weights)
        self.reset_needs.clicked.connect(lambda: self.form.set_values(DEFAULTS))
        self.load_button.clicked.connect(self._ask_load)
        self.table.selectionModel().currentRowChanged.connect(lambda *_: self._show_selected())

        saved_needs = context.settings.needs
        if saved_needs:
            try:
                self.form.set_values(saved_needs)
            except (CatalogError, ValueError):
                self.form.set_values(DEFAULTS)
        self.retranslate()
        self._update_sizing()
        # The measurements are read once the catalogs are in: their route checks use the regions' claims.
        context.workers.submit(load_catalog_set, on_done=self._catalogs_loaded, on_error=self._failed)
        context.store_events.changed.connect(self.reload_measurements)
        context.settings.changed.connect(self._setting_changed)

    # -- inputs ------------------------------------------------------------------------------------------

    def weights(self) -> dict[str, float]:
        return {key: float(slider.value()) for key, slider in self.sliders.items()}

    def set_weight(self, criterion: str, value: float) -> None:
        self.sliders[criterion].setValue(round(value))

    def reset_all_weights(self) -> None:
        for key, slider in self.sliders.items():
            slider.blockSignals(True)
            slider.setValue(round(self.defaults[key]))
            self.slider_values[key].setText(str(slider.value()))
            slider.blockSignals(False)
        self.context.settings.score_weights = self.weights()
        self._schedule()

    def _weight_moved(self, key: str, value: int) -> None:
        self.slider_values[key].setText(str(value))
        self.context.settings.score_weights = self.weights()
        self._schedule()

    def _method_changed(self, *_: object) -> None:
        self.context.settings.score_method = str(self.method.currentData())
        self._schedule()

    def _needs_changed(self) -> None:
        self.context.settings.needs = self.form.values()
        self._update_sizing()
        self._schedule()

    def _ask_load(self) -> None:
        chosen, _ = QFileDialog.getOpenFileName(
            self, self.tr("Load a needs profile"), str(Path.home()), self.tr("Needs profiles (*.toml)")
        )
        if chosen:
            try:
                self.form.load_file(Path(chosen))
            except CatalogError as exc:
                self.context.reporter.failure(self.tr("Needs profile not loaded"), exc)

    def needs(self) -> NeedsProfile | None:
        try:
            profile = self.form.profile()
        except CatalogError as exc:
            self.form.error.setText(error_text(exc))
            return None
        self.form.error.setText("")
        return profile

    # -- sizing (fast, pure: done here as the user types) ------------------------------------------------

    def _update_sizing(self, *_: object) -> None:
        needs = self.needs()
        if needs is None:
            self.sizing_text.setText(self.tr("Fix the highlighted field to see the sizing."))
            return
        try:
            result, gpu = size_on(needs, self.gpu.currentText(), self.per_node.value())
        except (CatalogError, UsecaseError) as exc:
            self.sizing_text.setText(error_text(exc))
            return
        self.sizing_text.setText(self.describe_sizing(result, gpu))

    def describe_sizing(self, r: Any, gpu: str) -> str:
        lines = [
            self.tr(
                "Weights alone: {weights:,.1f} GB · model states before sharding: {states:,.1f} GB"
            ).format(weights=r.weights_gb, states=r.model_states_gb)
        ]
        if r.min_gpus is None or r.per_gpu is None:
            lines.append(
                self.tr("On {gpu}: does not fit at any GPU count with this strategy.").format(gpu=gpu)
            )
        else:
            lines.append(
                self.tr(
                    "On {gpu}: fits from {min} GPU(s); planned {planned} = {nodes} node(s) of {per_node} ({span})"
                ).format(
                    gpu=gpu,
                    min=r.min_gpus,
                    planned=r.planned_gpus,
                    nodes=r.nodes,
                    per_node=r.gpus_per_node,
                    span=self.tr("spans nodes") if r.spans_nodes else self.tr("one node"),
                )
            )
            p = r.per_gpu
            lines.append(
                self.tr(
                    "Memory per GPU: {total:.1f} GB of {usable:.1f} usable (weights {w:.1f}, gradients {g:.1f}, "
                    "optimizer {o:.1f}, activations {a:.1f})"
                ).format(
                    total=p.total_gb,
                    usable=r.usable_gb,
                    w=p.weights_gb,
                    g=p.gradients_gb,
                    o=p.optimizer_gb,
                    a=p.activations_gb,
                )
            )
        if r.sync_gb_per_step is not None:
            lines.append(
                self.tr("Gradient sync per step: {gb:,.1f} GB over each node's inter-node links").format(
                    gb=r.sync_gb_per_step
                )
            )
        if r.internode_gbit_s is not None:
            lines.append(
                self.tr(
                    "Bandwidth needed between nodes: {rate:,.0f} Gbit/s per node (step {step:.1f} s)"
                ).format(rate=r.internode_gbit_s, step=r.step_seconds or 0)
            )
        elif r.spans_nodes is False:
            lines.append(self.tr("No inter-node traffic: the job fits in one node."))
        return "\n".join(lines)

    # -- ranking (in a worker) ---------------------------------------------------------------------------

    def reload_measurements(self) -> None:
        """Read the store's link summaries again (after a probe, a scheduled round, a settings change)."""
        settings = self.context.settings
        self.context.workers.submit(
            stored_link_summaries,
            settings.db_path,
            settings.peak_windows,
            self.catalogs,
            on_done=self._summaries_loaded,
            on_error=self._summaries_failed,
        )

    def _setting_changed(self, key: str) -> None:
        if key in (self.context.settings.DATA_DIR, self.context.settings.PEAK_WINDOWS):
            self.reload_measurements()

    def _summaries_loaded(self, summaries: list[Any]) -> None:
        self.summaries = summaries
        self.rerank()

    def _summaries_failed(self, message: str) -> None:
        self.summaries = []
        self.context.reporter.info(self.tr("Measured line quality not read: {error}").format(error=message))
        self.rerank()

    def _catalogs_loaded(self, catalogs: CatalogSet) -> None:
        self.catalogs = catalogs
        if catalogs.errors:
            self.context.reporter.info(
                self.tr(
                    "%n catalog file(s) skipped (see the Catalog screen).",
                    "",
                    len({e.path for e in catalogs.errors}),
                )
            )
        self.reload_measurements()  # ranks when read

    def _schedule(self, *_: object) -> None:
        self._debounce.start()

    @property
    def busy(self) -> bool:
        """A re-rank is scheduled or running."""
        return self._debounce.isActive() or self._pending

    def rerank(self) -> None:
        needs = self.needs()
        if needs is None or self.catalogs is None or self.summaries is None:
            return
        weights = self.weights()
        if sum(weights.values()) <= 0:
            self.status.setText(self.tr("All weights are zero: move at least one slider up."))
            return
        request = ScoreRequest(needs, weights, self.method.currentData(), tuple(self.summaries))
        self._generation += 1
        self._pending = True
        self._started = time.monotonic()
        self._requested = request
        self.context.workers.submit(
            _tagged,
            self._generation,
            rank,
            self.catalogs,
            request,
            on_done=self._ranked,
            on_error=self._failed,
        )

    def _ranked(self, tagged: tuple[int, Ranking]) -> None:
        generation, ranking = tagged
        if generation != self._generation:
            return
        self._pending = False
        self.ranking = ranking
        self.ranked = self._requested
        self.ranking_time_s = time.monotonic() - self._started
        self._show_ranking()

    def _failed(self, message: str) -> None:
        self._pending = False
        self.status.setText(message)
        self.context.reporter.info(message)

    def _show_ranking(self) -> None:
        ranking = self.ranking
        if ranking is None:
            return
        entries = [e for e in ranking.entries if e.eligible or not self.passing_only.isChecked()]
        self.model.set_entries(entries)
        passing = sum(1 for e in ranking.entries if e.eligible)
        notes = " ".join(f"{n}." for n in ranking.notes)
        regions = len({(s.provider, s.region) for s in self.summaries or ()})
        measured = self.tr("line quality measured for %n region(s)", "", regions)
        self.status.setText(
            self.tr(
                "{total} candidates (offering × region), {passing} pass every gate · ranked in {ms:.0f} ms · "
                "sensitivity: {sensitivity}"
            ).format(
                total=len(ranking.entries),
                passing=passing,
                ms=self.ranking_time_s * 1000,
                sensitivity=ranking.sensitivity.describe(),
            )
            + f"\n{measured}. {notes}".rstrip()
        )
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

    def top_labels(self, n: int = 5) -> list[str]:
        return [e.label for e in (self.ranking.entries[:n] if self.ranking else [])]

    # -- language ----------------------------------------------------------------------------------------

    def retranslate(self) -> None:
        self.title.setText(self.tr("Needs & score"))
        self.left_tabs.setTabText(0, self.tr("Training needs"))
        self.left_tabs.setTabText(1, self.tr("Weights"))
        self.load_button.setText(self.tr("Load a needs file…"))
        self.reset_needs.setText(self.tr("Example: 70B full fine-tune"))
        self.method_label.setText(self.tr("Ranking method"))
        self.method.setItemText(0, self.tr("weighted sum"))
        self.method.setItemText(1, self.tr("TOPSIS"))
        self.reset_weights.setText(self.tr("Back to the checklist's weights"))
        for key, label in self.slider_labels.items():
            label.setText(criterion_title(key))
        self.sizing_box.setTitle(self.tr("Sizing (live)"))
        self.gpu_label.setText(self.tr("On"))
        self.per_node_label.setText(self.tr("GPUs per node"))
        self.passing_only.setText(self.tr("Only those passing every gate"))
        self.detail_tabs.setTabText(0, self.tr("Breakdown"))
        self.detail_tabs.setTabText(1, self.tr("In words"))
        self.model.set_headers(
            [
                self.tr("#"),
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
        )
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
        self._update_sizing()
        self._show_ranking()

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)


def _tagged(generation: int, fn: Any, *args: Any) -> tuple[int, Any]:
    return generation, fn(*args)
