"""The evaluation home, the window's first screen: the open evaluation's candidates × evidence
(`desktop.usecases.evidence.evidence_table`, computed in a worker), each cell coloured by its state and
carrying the buttons that would fill it (`desktop.app.evidence_actions`); above it the measuring panel (the
background agent, `desktop.app.measuring_panel`). New evaluation… opens the guide
(`desktop.app.evaluation_wizard`); several evaluations are kept, one open at a time, the last one opened opens
at the next start (its peak windows become the window's).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QModelIndex, Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMenu,
    QMessageBox,
    QPushButton,
    QStackedWidget,
    QTableView,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop.app.context import AppContext
from desktop.app.evidence_actions import EvidenceActions
from desktop.app.measuring_panel import MeasuringPanel
from desktop.app.models.evidence import EvidenceModel, cell_actions
from desktop.i18n import vantage_name
from probes.vantage import THIS_MACHINE

if TYPE_CHECKING:
    from catalogs.evaluation.model import Evaluation
    from catalogs.loader import CatalogSet
    from desktop.app.evaluation_wizard import EvaluationWizard
    from desktop.usecases.agent_process import MeasuringStatus
    from desktop.usecases.evidence import EvidenceTable
    from probes.store_location import StoreLocation

ROW_HEIGHT = 70


@dataclass(frozen=True, slots=True)
class HomeData:
    names: list[str]
    table: EvidenceTable | None
    catalogs: CatalogSet


def load_home(db: StoreLocation, wanted: str) -> HomeData:
    """The evaluations in the store and the evidence of `wanted` (else the first one)."""
    from desktop.usecases.evaluation import list_evaluations
    from desktop.usecases.evidence import evidence_table
    from desktop.usecases.offerings import load_catalog_set

    catalogs = load_catalog_set(db=db)  # the team's facts too, with a PostgreSQL store
    names = [info.name for info in list_evaluations(db)]
    name = wanted if wanted in names else (names[0] if names else None)
    table = evidence_table(db, name, catalogs) if name is not None else None
    return HomeData(names, table, catalogs)


def example_in_worker(db: StoreLocation) -> str:
    from desktop.usecases.evaluation import ensure_example

    return ensure_example(db)


def remove_in_worker(db: StoreLocation, name: str) -> str:
    from desktop.usecases.evaluation import remove_evaluation

    remove_evaluation(db, name)
    return name


class HomeScreen(QWidget):
    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self.data: HomeData | None = None
        self.loading = False
        self._again: str | None = None  # a load asked for while one runs
        self._start_after_load = False
        self._last_round: int | None = None
        self.wizard: EvaluationWizard | None = None
        self.question: QMessageBox | None = None
        self.title = QLabel()
        self.title.setObjectName("screenTitle")
        self.chooser = QComboBox()
        self.chooser.setMinimumContentsLength(18)
        self.new_button = QPushButton()
        self.new_button.setObjectName("primary")
        self.remove_button = QPushButton()
        self.report_button = QPushButton()
        top = QHBoxLayout()
        top.addWidget(self.title)
        top.addWidget(self.chooser)
        top.addStretch(1)
        top.addWidget(self.new_button)
        top.addWidget(self.remove_button)
        top.addWidget(self.report_button)
        self.summary = QLabel()
        self.summary.setObjectName("screenHint")
        self.summary.setWordWrap(True)
        self.panel = MeasuringPanel(context)
        self.model = EvidenceModel(self)
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setWordWrap(True)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(ROW_HEIGHT)
        self.table.horizontalHeader().setDefaultSectionSize(116)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.table.setStyleSheet("QTableView::item:selected { border: 2px solid #1565c0; color: #212121; }")
        self.detail = QLabel()
        self.detail.setWordWrap(True)
        self.detail.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.legend = QLabel()
        self.legend.setObjectName("screenHint")
        self.legend.setWordWrap(True)
        content = QWidget()
        body = QVBoxLayout(content)
        body.setContentsMargins(0, 0, 0, 0)
        body.addWidget(self.summary)
        body.addWidget(self.panel)
        body.addWidget(self.table, 1)
        body.addWidget(self.legend)
        body.addWidget(self.detail)
        self.empty_text = QLabel()
        self.empty_text.setWordWrap(True)
        self.empty_text.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_new = QPushButton()
        self.empty_new.setObjectName("primary")
        self.empty_example = QPushButton()
        empty = QWidget()
        empty_layout = QVBoxLayout(empty)
        empty_layout.addStretch(1)
        empty_layout.addWidget(self.empty_text)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.empty_new)
        buttons.addWidget(self.empty_example)
        buttons.addStretch(1)
        empty_layout.addLayout(buttons)
        empty_layout.addStretch(2)
        self.pages = QStackedWidget()
        self.pages.addWidget(empty)
        self.pages.addWidget(content)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.pages, 1)
        self.evidence_actions = EvidenceActions(context, self)
        self.new_button.clicked.connect(self.new_evaluation)
        self.empty_new.clicked.connect(self.new_evaluation)
        self.empty_example.clicked.connect(self.open_example)
        self.remove_button.clicked.connect(self.ask_remove)
        self.report_button.clicked.connect(self.evidence_actions.write_report)
        self.chooser.activated.connect(lambda _i: self.reload(self.chooser.currentText()))
        self.table.selectionModel().currentChanged.connect(self._selected)
        self.panel.status_changed.connect(self._status_changed)
        context.store_events.changed.connect(lambda: self.reload())
        context.catalog_events.changed.connect(lambda: self.reload())
        context.settings.changed.connect(self._setting_changed)
        self.retranslate()
        self.reload(context.settings.evaluation)

    # -- loading -----------------------------------------------------------------------------------------

    @property
    def evaluation(self) -> Evaluation | None:
        table = self.data.table if self.data is not None else None
        return table.evaluation if table is not None else None

    def reload(self, name: str | None = None, *, start: bool = False) -> None:
        """Load the evaluations and `name`'s evidence (None: the one open now, else the last opened)."""
        wanted = name or (self.evaluation.name if self.evaluation else self.context.settings.evaluation)
        self._start_after_load = self._start_after_load or start
        if self.loading:
            self._again = wanted
            return
        self.loading = True
        self.context.workers.submit(
            load_home,
            self.context.settings.store_location,
            wanted,
            on_done=self._loaded,
            on_error=self._failed,
        )

    def _loaded(self, data: HomeData) -> None:
        self.loading = False
        if self._again is not None:
            again, self._again = self._again, None
            self.reload(again)
            return
        self.data = data
        self.chooser.blockSignals(True)
        self.chooser.clear()
        self.chooser.addItems(data.names)
        evaluation = self.evaluation
        if evaluation is not None:
            self.chooser.setCurrentIndex(data.names.index(evaluation.name))
            self.context.settings.evaluation = evaluation.name
        self.chooser.blockSignals(False)
        self.context.settings.evaluation_windows = (
            list(evaluation.peak_windows) if evaluation is not None else None
        )
        self.model.set_table(data.table)
        self.pages.setCurrentIndex(1 if evaluation is not None else 0)
        self.chooser.setVisible(bool(data.names))
        self.remove_button.setEnabled(evaluation is not None)
        self.panel.set_evaluation(evaluation, data.catalogs)
        self._show_summary()
        self.place_buttons()
        if self._start_after_load and evaluation is not None:
            self._start_after_load = False
            self.panel.start()

    def _failed(self, message: str) -> None:
        self.loading = False
        self._again = None
        self.context.reporter.error(self.tr("The evaluation could not be read"), message)

    def _status_changed(self, status: MeasuringStatus) -> None:
        if status.last_round_us != self._last_round:
            known = self._last_round is not None
            self._last_round = status.last_round_us
            if known:  # a new round arrived: its evidence
                self.reload()
                return
        self.place_buttons()

    def _setting_changed(self, key: str) -> None:
        settings = self.context.settings
        if key in (settings.DATA_DIR, settings.STORE_URL):
            self.reload()

    # -- the table ---------------------------------------------------------------------------------------

    def here(self) -> str:
        return self.panel.office_name() or THIS_MACHINE

    def place_buttons(self) -> None:
        """Each cell's actions as buttons, at the cell's foot (the cell's colour and text stay visible)."""
        measuring = self.panel.measuring or self.evidence_actions.busy
        for row in range(self.model.rowCount()):
            for column in range(1, self.model.columnCount()):
                found = self.model.cell(row, column)
                if found is None:
                    continue
                spec, cell = found
                index = self.model.index(row, column)
                names = cell_actions(spec.kind, cell, spec.office, here=self.here(), measuring=measuring)
                if not names:
                    self.table.setIndexWidget(index, None)  # type: ignore[arg-type]
                    continue
                holder = QWidget()
                holder.setAttribute(Qt.WidgetAttribute.WA_TranslucentBackground)
                line = QHBoxLayout(holder)
                line.setContentsMargins(2, 0, 2, 3)
                line.addStretch(1)
                button = QToolButton()
                button.setEnabled(not self.evidence_actions.busy)
                if len(names) == 1:
                    [name] = names
                    button.setObjectName(f"action-{name}")
                    button.setText(self.evidence_actions.title(name))
                    button.setToolTip(self.evidence_actions.hint(name, spec, cell))
                    button.clicked.connect(
                        lambda _=False, n=name, r=row, c=column: self.evidence_actions.run(n, r, c)
                    )
                else:  # one button, its actions in a menu: a narrow cell keeps readable words
                    # The arrow in the text: the style's indicator would be drawn over the last letter.
                    button.setText(self.evidence_actions.group_title(spec.kind) + " ▾")
                    button.setStyleSheet("QToolButton::menu-indicator { image: none; width: 0px; }")
                    button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
                    menu = QMenu(button)
                    for name in names:
                        action = menu.addAction(self.evidence_actions.title(name))
                        action.setObjectName(f"action-{name}")
                        action.setToolTip(self.evidence_actions.hint(name, spec, cell))
                        action.triggered.connect(
                            lambda _=False, n=name, r=row, c=column: self.evidence_actions.run(n, r, c)
                        )
                    button.setMenu(menu)
                line.addWidget(button, 0, Qt.AlignmentFlag.AlignBottom)
                self.table.setIndexWidget(index, holder)
        self._size_columns()

    def buttons(self, row: int, column: int) -> list[QToolButton]:
        """The button of a cell, if any (for tests and the screenshots; several actions: its menu)."""
        holder = self.table.indexWidget(self.model.index(row, column))
        return holder.findChildren(QToolButton) if holder is not None else []

    def _size_columns(self) -> None:
        """Each column as wide as its title's longest line and its widest button, and its text unwrapped
        where there is room (at most 190 pixels); where there is not, the text columns wrap so that eight
        kinds of evidence fit 1280 pixels without a column off screen."""
        header = self.table.horizontalHeader()
        metrics = header.fontMetrics()
        cells = self.table.fontMetrics()
        lines = 1
        needs: list[int] = []  # what the title and the buttons need
        wants: list[int] = []  # and the text on one line
        for column in range(self.model.columnCount()):
            title = str(self.model.headerData(column, Qt.Orientation.Horizontal) or "")
            lines = max(lines, title.count("\n") + 1)
            need = max(metrics.horizontalAdvance(part) for part in title.split("\n")) + 16
            want = need
            for row in range(self.model.rowCount()):
                index = self.model.index(row, column)
                holder = self.table.indexWidget(index)
                if holder is not None:
                    need = max(need, holder.sizeHint().width())
                text = str(self.model.data(index) or "")
                want = max(want, max(cells.horizontalAdvance(part) for part in text.split("\n")) + 10)
            need = 180 if column == 0 else max(need, 88)
            needs.append(need)
            wants.append(need if column == 0 else max(need, min(want, 190)))
        room = self.table.viewport().width()
        extra, spare = sum(w - n for n, w in zip(needs, wants, strict=True)), room - sum(needs)
        for column, (need, want) in enumerate(zip(needs, wants, strict=True)):
            if sum(wants) > room and extra > 0:
                want = need + max(0, spare) * (want - need) // extra
            self.table.setColumnWidth(column, want)
        header.setMinimumHeight(metrics.height() * lines + 10)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if self.model.rowCount():
            self._size_columns()

    def _selected(self, current: QModelIndex, _previous: QModelIndex) -> None:
        found = self.model.cell(current.row(), current.column())
        if found is None:
            self.detail.setText("")
            return
        spec, cell = found
        title = self.model.kind_title(spec.kind)
        if spec.office is not None:
            title += f" · {vantage_name(spec.office)}"
        text = f"<b>{_html(title)}</b>: {_html(cell.text)}"
        if cell.next and cell.state != "done":
            text += "<br>" + self.tr("Next: {command}").format(command=f"<code>{_html(cell.next)}</code>")
        self.detail.setText(text)

    def _show_summary(self) -> None:
        evaluation = self.evaluation
        if evaluation is None:
            self.summary.setText("")
            return
        offices = ", ".join(
            vantage_name(o.name) + (f" ({o.carrier})" if o.carrier else "") for o in evaluation.offices
        ) or vantage_name(None)
        self.summary.setText(
            self.tr(
                "{count} candidate(s) for {needs}; offices: {offices}; peak hours: {windows}. Hover a cell for "
                "what it says; click it for the next step."
            ).format(
                count=len(evaluation.candidates),
                needs=self._needs_name(evaluation.needs.name),
                offices=offices,
                windows=", ".join(str(w) for w in evaluation.peak_windows),
            )
        )

    def _needs_name(self, name: str) -> str:
        """The job's name; the bundled example's in the window's language."""
        from catalogs.needs import EXAMPLE_NEEDS, load_needs

        example = load_needs(EXAMPLE_NEEDS).name
        return self.tr("70B dense, full fine-tune, ZeRO-3") if name == example else name

    # -- evaluations -------------------------------------------------------------------------------------

    def new_evaluation(self) -> EvaluationWizard | None:
        from desktop.app.evaluation_wizard import EvaluationWizard

        if self.data is None:
            return None
        if self.wizard is not None:
            self.wizard.deleteLater()
        self.wizard = EvaluationWizard(self.context, self.data.catalogs, self.data.names, self)
        self.wizard.created.connect(self._created)
        self.wizard.open()
        return self.wizard

    def _created(self, name: str, start: bool) -> None:
        self.context.reporter.info(self.tr("Evaluation {name} created.").format(name=name))
        self.context.catalog_events.changed.emit()  # a vendor created in place is in the catalogs now
        self.reload(name, start=start)

    def open_example(self) -> None:
        self.context.workers.submit(
            example_in_worker,
            self.context.settings.store_location,
            on_done=lambda name: self.reload(name),
            on_error=self._failed,
        )

    def ask_remove(self) -> None:
        evaluation = self.evaluation
        if evaluation is None:
            return
        box = QMessageBox(
            QMessageBox.Icon.Question,
            self.tr("Remove the evaluation"),
            self.tr(
                "Remove the evaluation {name} from the store? Its measurements stay (other evaluations and "
                "the charts still use them)."
            ).format(name=evaluation.name),
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
            self,
        )
        box.setWindowModality(Qt.WindowModality.WindowModal)
        box.finished.connect(
            lambda result: self._remove(evaluation.name) if result == QMessageBox.StandardButton.Yes else None
        )
        self.question = box
        box.open()

    def _remove(self, name: str) -> None:
        self.context.workers.submit(
            remove_in_worker,
            self.context.settings.store_location,
            name,
            on_done=lambda _name: self.reload(""),
            on_error=self._failed,
        )

    def shutdown(self) -> None:
        self.panel.shutdown()
        self.evidence_actions.shutdown()

    # -- language ----------------------------------------------------------------------------------------

    def retranslate(self) -> None:
        self.title.setText(self.tr("Evaluation"))
        self.new_button.setText(self.tr("New evaluation…"))
        self.remove_button.setText(self.tr("Remove…"))
        self.report_button.setText(self.tr("Write the report…"))
        self.empty_new.setText(self.tr("New evaluation…"))
        self.empty_example.setText(self.tr("Open the example"))
        self.empty_text.setText(
            self.tr(
                "An evaluation is the shortlist your team decides on: the job, your offices, the candidate "
                "regions with their test addresses, and the peak hours. linkvet measures each candidate from "
                "your office, shows what is known and what is missing, and ranks them.\n\nStart with New "
                "evaluation…, or open the example (three candidates at loopback addresses)."
            )
        )
        self.legend.setText(
            self.tr(
                "Grey: missing · yellow: partial · green: done · red: contradicted (the measurements or the "
                "trial server refute a claim). Each cell's buttons fill it."
            )
        )
        self.model.headerDataChanged.emit(Qt.Orientation.Horizontal, 0, max(0, self.model.columnCount() - 1))
        self.model.layoutChanged.emit()
        self._show_summary()
        self.place_buttons()

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)


def _html(text: str) -> str:
    import html

    return html.escape(text)
