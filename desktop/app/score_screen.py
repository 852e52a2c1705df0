"""The Needs & score screen: the training-needs form (`NeedsForm`) with live sizing (`SizingPanel`), the
checklist's weights as sliders (`WeightsPanel`), and the ranked scorecard (`Scorecard`), re-ranked in a
worker whenever the needs or a weight change.

The screen only wires them: the catalogs load in a worker, then the store's measured line quality
(`desktop.usecases.links.stored_link_summaries`, route checks against the catalogs' claims), and every
change of needs, weights or method ranks again (`desktop.usecases.ranking.rank`, debounced), exactly as
`linkvet score` ranks. The measurements are read again after a probe, a scheduled round or a change of the
data folder or the peak windows; the catalogs after the user's catalogs changed (`AppContext.catalog_events`:
an offering saved on the Catalog screen, a questionnaire imported), so the scorecard re-ranks at once."""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QEvent, QTimer
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSplitter,
    QTabWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from catalogs.checklist import default_checklist
from catalogs.errors import CatalogError
from catalogs.link_quality import LinkSummary
from catalogs.loader import CatalogSet
from catalogs.needs import NeedsProfile
from catalogs.scoring import Ranking
from desktop.app.context import AppContext
from desktop.app.errors import error_text
from desktop.app.needs_form import DEFAULTS, NeedsForm
from desktop.app.scorecard import Scorecard
from desktop.app.sizing_panel import SizingPanel
from desktop.app.weights_panel import WeightsPanel
from desktop.app.widgets.form_scroll_area import FormScrollArea
from desktop.usecases.links import stored_link_summaries
from desktop.usecases.offerings import load_catalog_set
from desktop.usecases.ranking import ScoreRequest, rank

DEBOUNCE_MS = 150
NARROW_PX = 1500  # below this window width the needs start folded away


class ScoreScreen(QWidget):
    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self.catalogs: CatalogSet | None = None
        self.ranking: Ranking | None = None
        self.ranked: ScoreRequest | None = None  # what `ranking` was computed for
        self._generation = 0
        self._started = 0.0
        self._pending = False
        self._requested: ScoreRequest | None = None
        self.summaries: list[LinkSummary] | None = None  # the store's link summaries, once loaded

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
        self.weights_panel = WeightsPanel(context.settings, default_checklist())
        weights_scroll = QScrollArea()
        weights_scroll.setWidgetResizable(True)
        weights_scroll.setWidget(self.weights_panel)
        self.left_tabs = QTabWidget()
        self.left_tabs.addTab(needs_scroll, "")
        self.left_tabs.addTab(weights_scroll, "")

        # right: sizing, scorecard
        self.sizing = SizingPanel()
        self.scorecard = Scorecard()
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.addWidget(self.sizing)
        right_layout.addWidget(self.scorecard, 1)
        self.splitter = splitter = QSplitter()
        splitter.addWidget(self.left_tabs)
        splitter.addWidget(right)
        splitter.setCollapsible(0, True)
        splitter.setCollapsible(1, False)
        splitter.setSizes([400, 900])
        # The needs and weights fold away, so the scorecard and its breakdown get the width of a laptop.
        self.needs_toggle = QToolButton()
        self.needs_toggle.setCheckable(True)
        self.needs_toggle.setChecked(True)
        self.needs_toggle.toggled.connect(self.show_needs)
        splitter.splitterMoved.connect(lambda *_: self._follow_splitter())
        top = QHBoxLayout()
        top.addWidget(self.title)
        top.addStretch(1)
        top.addWidget(self.needs_toggle)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(splitter, 1)
        self._folded_for_width = False

        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(DEBOUNCE_MS)
        self._debounce.timeout.connect(self.rerank)
        self.form.changed.connect(self._needs_changed)
        self.sizing.changed.connect(self._update_sizing)
        self.weights_panel.changed.connect(self._schedule)
        self.reset_needs.clicked.connect(lambda: self.form.set_values(DEFAULTS))
        self.load_button.clicked.connect(self._ask_load)

        saved_needs = context.settings.needs
        if saved_needs:
            try:
                self.form.set_values(saved_needs)
            except (CatalogError, ValueError):
                self.form.set_values(DEFAULTS)
        self.retranslate()
        # The measurements are read once the catalogs are in: their route checks use the regions' claims.
        self._catalog_loads = 0
        self.reload_catalogs()
        context.store_events.changed.connect(self.reload_measurements)
        context.catalog_events.changed.connect(self.reload_catalogs)
        context.settings.changed.connect(self._setting_changed)

    # -- the needs' panel --------------------------------------------------------------------------------

    def show_needs(self, shown: bool) -> None:
        """Show or fold away the needs, their sizing and the weights (the scorecard takes the width and the
        height)."""
        sizes = self.splitter.sizes()
        total = sum(sizes) or self.width()
        if shown and sizes[0] == 0:
            self.splitter.setSizes([min(400, total // 3), total - min(400, total // 3)])
        elif not shown and sizes[0] > 0:
            self.splitter.setSizes([0, total])
        self._update_toggle()

    def _follow_splitter(self) -> None:
        self.needs_toggle.blockSignals(True)
        self.needs_toggle.setChecked(self.splitter.sizes()[0] > 0)
        self.needs_toggle.blockSignals(False)
        self._update_toggle()

    def _update_toggle(self) -> None:
        shown = self.splitter.sizes()[0] > 0 if self.isVisible() else self.needs_toggle.isChecked()
        # The sizing is the needs' too: folded with them, the ranking and its breakdown get the height.
        self.sizing.setVisible(shown)
        self.needs_toggle.setText(
            self.tr("◂ Fold the needs away") if shown else self.tr("▸ Training needs and weights")
        )

    def showEvent(self, event: QShowEvent) -> None:
        """The first time on a narrow window (a 1280 or 1366 pixel laptop): the scorecard gets the width,
        the needs fold away (one click brings them back)."""
        super().showEvent(event)
        if not self._folded_for_width:
            self._folded_for_width = True
            if self.window().width() < NARROW_PX:
                self.needs_toggle.setChecked(False)

    # -- inputs ------------------------------------------------------------------------------------------

    def weights(self) -> dict[str, float]:
        return self.weights_panel.weights()

    def set_weight(self, criterion: str, value: float) -> None:
        self.weights_panel.set_weight(criterion, value)

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

    def _update_sizing(self, *_: object) -> None:
        self.sizing.show_sizing(self.needs())

    # -- ranking (in a worker) ---------------------------------------------------------------------------

    def reload_measurements(self) -> None:
        """Read the store's link summaries again (after a probe, a scheduled round, a settings change)."""
        settings = self.context.settings
        self.context.workers.submit(
            stored_link_summaries,
            settings.store_location,
            settings.peak_windows,
            self.catalogs,
            on_done=self._summaries_loaded,
            on_error=self._summaries_failed,
        )

    def _setting_changed(self, key: str) -> None:
        if key in (
            self.context.settings.DATA_DIR,
            self.context.settings.STORE_URL,
            self.context.settings.PEAK_WINDOWS,
        ):
            self.reload_measurements()

    def _summaries_loaded(self, summaries: list[LinkSummary]) -> None:
        self.summaries = summaries
        self.rerank()

    def _summaries_failed(self, message: str) -> None:
        self.summaries = []
        self.context.reporter.info(self.tr("Measured line quality not read: {error}").format(error=message))
        self.rerank()

    def reload_catalogs(self) -> None:
        """Load the catalogs again (at start, and after the user's catalogs changed: an offering saved or
        deleted, a questionnaire imported), then rank."""
        self._catalog_loads += 1
        self.context.workers.submit(
            _tagged,
            self._catalog_loads,
            functools.partial(load_catalog_set, db=self.context.settings.store_location),
            on_done=self._catalogs_tagged,
            on_error=self._failed,
        )

    def _catalogs_tagged(self, tagged: tuple[int, CatalogSet]) -> None:
        load, catalogs = tagged
        if load == self._catalog_loads:  # a later load (a later change) decides
            self._catalogs_loaded(catalogs)

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
            self.scorecard.status.setText(self.tr("All weights are zero: move at least one slider up."))
            return
        method = self.weights_panel.method.currentData()
        request = ScoreRequest(needs, weights, method, tuple(self.summaries))
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
        regions = len({(s.provider, s.region) for s in self.summaries or ()})
        self.scorecard.show_ranking(ranking, regions, time.monotonic() - self._started)

    def _failed(self, message: str) -> None:
        self._pending = False
        self.scorecard.status.setText(message)
        self.context.reporter.info(message)

    def top_labels(self, n: int = 5) -> list[str]:
        return [e.label for e in (self.ranking.entries[:n] if self.ranking else [])]

    # -- language ----------------------------------------------------------------------------------------

    def retranslate(self) -> None:
        self.title.setText(self.tr("Needs & score"))
        self.left_tabs.setTabText(0, self.tr("Training needs"))
        self.left_tabs.setTabText(1, self.tr("Weights"))
        self.load_button.setText(self.tr("Load a needs file…"))
        self.reset_needs.setText(self.tr("Example: 70B full fine-tune"))
        self.needs_toggle.setToolTip(self.tr("Show or fold away the training needs and the weights"))
        self._update_toggle()
        self._update_sizing()

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
            self._schedule()  # rank again: the reasons (prices, sizing, lines) are words of the language
        super().changeEvent(event)


def _tagged(generation: int, fn: Callable[..., Any], *args: Any) -> tuple[int, Any]:
    return generation, fn(*args)
