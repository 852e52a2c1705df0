"""New evaluation…: the guide from "we have three candidates" to measuring them. Four pages:
    The job          a name, and the training job: the example, a needs file, or the needs form
    Your offices     where the team measures from (name and carrier); none: this computer
    The candidates   picked from the catalogs, or a vendor and region created in place with their test
                     addresses (nothing else claimed: `desktop.app.candidates_page`)
    Peak hours       the evening windows that decide, and whether to start measuring now
Finish writes it all at once (`desktop.usecases.evaluation.create_evaluation`, in a worker) and says
`created(name, start)`; a refusal is shown on the last page and nothing is kept.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent, Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QRadioButton,
    QTableWidget,
    QVBoxLayout,
    QWidget,
    QWizard,
    QWizardPage,
)

from desktop.app.candidates_page import CandidatesPage
from desktop.app.context import AppContext
from desktop.app.errors import error_text
from desktop.app.offering_fields_panel import ERROR_STYLE
from desktop.app.widgets.form_scroll_area import FormScrollArea
from desktop.app.widgets.screen_fit import fit_to_screen

if TYPE_CHECKING:
    from catalogs.evaluation.model import Evaluation, Office
    from catalogs.loader import CatalogSet
    from catalogs.needs import NeedsProfile
    from desktop.app.needs_form import NeedsForm
    from desktop.usecases.evaluation import NewCandidate
    from probes.peak import PeakWindow
    from probes.store_location import StoreLocation

EXAMPLE, FILE, FORM = range(3)
CARRIERS = ("", "ct", "cu", "cm")


def create_in_worker(
    db: StoreLocation,
    name: str,
    needs: NeedsProfile,
    catalogs: CatalogSet,
    candidates: list[NewCandidate],
    offices: list[Office],
    windows: list[PeakWindow],
) -> tuple[Evaluation, tuple[str, ...]]:
    from desktop.usecases.evaluation import create_evaluation

    return create_evaluation(
        db, name, needs, catalogs, candidates=candidates, offices=offices, peak_windows=windows
    )


def error_label() -> QLabel:
    label = QLabel()
    label.setWordWrap(True)
    label.setStyleSheet(ERROR_STYLE)
    return label


class JobPage(QWizardPage):
    def __init__(self, existing: list[str]) -> None:
        super().__init__()
        self.existing = existing
        self.profile: NeedsProfile | None = None
        self.name = QLineEdit()
        self.name.setMaxLength(63)
        self.name_label = QLabel()
        self.choices = QButtonGroup(self)
        self.example = QRadioButton()
        self.from_file = QRadioButton()
        self.from_form = QRadioButton()
        for number, button in enumerate((self.example, self.from_file, self.from_form)):
            self.choices.addButton(button, number)
        self.example.setChecked(True)
        self.file = QLineEdit()
        self.browse = QPushButton()
        self.form: NeedsForm | None = None
        self.form_area = FormScrollArea()
        self.form_area.setWidgetResizable(True)
        self.form_area.setVisible(False)
        self.error = error_label()
        file_row = QHBoxLayout()
        file_row.addWidget(self.from_file)
        file_row.addWidget(self.file, 1)
        file_row.addWidget(self.browse)
        name_row = QHBoxLayout()
        name_row.addWidget(self.name_label)
        name_row.addWidget(self.name, 1)
        layout = QVBoxLayout(self)
        layout.addLayout(name_row)
        layout.addWidget(self.example)
        layout.addLayout(file_row)
        layout.addWidget(self.from_form)
        layout.addWidget(self.form_area, 1)
        layout.addWidget(self.error)
        layout.addStretch(0)
        self.choices.idToggled.connect(self._chosen)
        self.browse.clicked.connect(self._browse)
        self.name.textChanged.connect(lambda _t: self.completeChanged.emit())

    def _chosen(self, number: int, on: bool) -> None:
        if not on:
            return
        if number == FORM and self.form is None:
            from desktop.app.needs_form import NeedsForm

            self.form = NeedsForm()
            self.form_area.setWidget(self.form)
        self.form_area.setVisible(number == FORM)
        self.file.setEnabled(number == FILE)
        self.browse.setEnabled(number == FILE)

    def _browse(self) -> None:
        chosen, _filter = QFileDialog.getOpenFileName(
            self, self.tr("A needs profile"), str(Path.home()), self.tr("Needs profiles (*.toml)")
        )
        if chosen:
            self.file.setText(chosen)
            self.from_file.setChecked(True)

    def isComplete(self) -> bool:
        return bool(self.name.text().strip())

    def validatePage(self) -> bool:
        from catalogs.errors import CatalogError
        from catalogs.evaluation.model import check_name
        from catalogs.needs import EXAMPLE_NEEDS, load_needs

        name = self.name.text().strip()
        try:
            check_name(name)
            if name in self.existing:
                raise ValueError(self.tr("The store has an evaluation {name} already.").format(name=name))
            choice = self.choices.checkedId()
            if choice == EXAMPLE:
                self.profile = load_needs(EXAMPLE_NEEDS)
            elif choice == FILE:
                self.profile = load_needs(Path(self.file.text().strip()).expanduser())
            else:
                assert self.form is not None
                self.profile = self.form.profile()
        except (CatalogError, ValueError, OSError) as exc:
            self.error.setText(error_text(exc))
            return False
        self.error.setText("")
        return True

    def retranslate(self) -> None:
        self.setTitle(self.tr("The job"))
        self.setSubTitle(
            self.tr("Name the evaluation, and say what it is for: the training job decides what fits.")
        )
        self.name_label.setText(self.tr("Name"))
        self.name.setPlaceholderText(self.tr("a short name: lower case, digits, - and _ (e.g. q1-gpu)"))
        self.example.setText(self.tr("The example job: a 70B model, full fine-tune, 32 GPUs"))
        self.from_file.setText(self.tr("A needs file:"))
        self.browse.setText(self.tr("Browse…"))
        self.from_form.setText(self.tr("Describe the job here:"))


class OfficesPage(QWizardPage):
    def __init__(self) -> None:
        super().__init__()
        self.table = QTableWidget(0, 2)
        self.table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.table.verticalHeader().setVisible(False)
        self.add_button = QPushButton()
        self.remove_button = QPushButton()
        self.hint = QLabel()
        self.hint.setWordWrap(True)
        self.hint.setObjectName("screenHint")
        self.error = error_label()
        buttons = QHBoxLayout()
        buttons.addWidget(self.add_button)
        buttons.addWidget(self.remove_button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addWidget(self.hint)
        layout.addWidget(self.table, 1)
        layout.addLayout(buttons)
        layout.addWidget(self.error)
        self.add_button.clicked.connect(lambda: self.add_office("", ""))
        self.remove_button.clicked.connect(self._remove)

    def add_office(self, name: str, carrier: str) -> None:
        row = self.table.rowCount()
        self.table.insertRow(row)
        editor = QLineEdit(name)
        editor.setPlaceholderText("shanghai")
        self.table.setCellWidget(row, 0, editor)
        combo = QComboBox()
        for code in CARRIERS:
            combo.addItem(code or "–", code)
        combo.setCurrentIndex(max(0, combo.findData(carrier)))
        self.table.setCellWidget(row, 1, combo)
        editor.setFocus()

    def _remove(self) -> None:
        row = self.table.currentRow()
        self.table.removeRow(row if row >= 0 else self.table.rowCount() - 1)

    def offices(self) -> list[Office]:
        """The offices as typed (rows left empty skipped); raises EvaluationError for a bad one."""
        from catalogs.evaluation.model import check_office, check_offices

        found = []
        for row in range(self.table.rowCount()):
            editor, combo = self.table.cellWidget(row, 0), self.table.cellWidget(row, 1)
            assert isinstance(editor, QLineEdit) and isinstance(combo, QComboBox)
            name = editor.text().strip()
            if name:
                found.append(check_office(name, combo.currentData() or None))
        return list(check_offices(found))

    def validatePage(self) -> bool:
        from catalogs.errors import CatalogError

        try:
            self.offices()
        except CatalogError as exc:
            self.error.setText(error_text(exc))
            return False
        self.error.setText("")
        return True

    def retranslate(self) -> None:
        self.setTitle(self.tr("Your offices"))
        self.setSubTitle(self.tr("Where the team works from: each office measures its own line."))
        self.hint.setText(
            self.tr(
                "One row per office, with the carrier of its line (ct China Telecom, cu China Unicom, cm China "
                "Mobile). The worse office decides. Leave the table empty to measure from this computer only."
            )
        )
        self.table.setHorizontalHeaderLabels([self.tr("Office"), self.tr("Carrier")])
        self.add_button.setText(self.tr("Add an office"))
        self.remove_button.setText(self.tr("Remove"))


class PeakPage(QWizardPage):
    def __init__(self) -> None:
        super().__init__()
        from probes.peak import DEFAULT_PEAK_WINDOWS

        self.windows = QPlainTextEdit("\n".join(str(w) for w in DEFAULT_PEAK_WINDOWS))
        self.windows.setMaximumHeight(110)
        self.hint = QLabel()
        self.hint.setWordWrap(True)
        self.hint.setObjectName("screenHint")
        self.start = QCheckBox()
        self.start.setChecked(True)
        self.error = error_label()
        form = QFormLayout()
        self.windows_label = QLabel()
        form.addRow(self.windows_label, self.windows)
        form.addRow("", self.hint)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.start)
        layout.addWidget(self.error)
        layout.addStretch(1)

    def peak_windows(self) -> list[PeakWindow]:
        from desktop.app.settings import parse_peak_windows

        return parse_peak_windows(self.windows.toPlainText().splitlines())

    def validatePage(self) -> bool:
        from probes.errors import PeakWindowError

        try:
            if not self.peak_windows():
                raise PeakWindowError(self.tr("name at least one peak window"))
        except PeakWindowError as exc:
            self.error.setText(error_text(exc))
            return False
        self.error.setText("")
        return True

    def retranslate(self) -> None:
        self.setTitle(self.tr("Peak hours"))
        self.setSubTitle(self.tr("When the line is busiest for your offices: the hours that decide."))
        self.windows_label.setText(self.tr("Peak windows"))
        self.hint.setText(
            self.tr(
                "One per line: HH:MM-HH:MM Zone/Name [days], e.g. 20:00-23:00 Asia/Shanghai. Inside them "
                "linkvet measures every minute, else every five."
            )
        )
        self.start.setText(
            self.tr("Start measuring from this computer now (it goes on after the window closes)")
        )


class EvaluationWizard(QWizard):
    """`created(name, start measuring)` once the evaluation is in the store."""

    created = Signal(str, bool)

    def __init__(
        self, context: AppContext, catalogs: CatalogSet, existing: list[str], parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.context = context
        self.catalogs = catalogs
        self.running = False
        self.job = JobPage(existing)
        self.offices = OfficesPage()
        self.candidates = CandidatesPage(catalogs)
        self.peak = PeakPage()
        for page in (self.job, self.offices, self.candidates, self.peak):
            self.addPage(page)
        self.setWizardStyle(QWizard.WizardStyle.ClassicStyle)
        self.setOption(QWizard.WizardOption.NoBackButtonOnStartPage, True)
        fit_to_screen(self, 880, 620)
        self.retranslate()

    def accept(self) -> None:
        """Finish: write the evaluation in a worker; close once it is stored."""
        if self.running or not self.peak.validatePage():
            return
        assert self.job.profile is not None
        self.running = True
        self.button(QWizard.WizardButton.FinishButton).setEnabled(False)
        self.peak.error.setText(self.tr("Writing the evaluation…"))
        self.context.workers.submit(
            create_in_worker,
            self.context.settings.store_location,
            self.job.name.text().strip(),
            self.job.profile,
            self.catalogs,
            self.candidates.drafts(),
            self.offices.offices(),
            self.peak.peak_windows(),
            on_done=self._created,
            on_error=self._failed,
        )

    def _created(self, done: tuple[Any, tuple[str, ...]]) -> None:
        self.running = False
        evaluation, made = done
        if made:
            self.context.reporter.info(
                self.tr("Created in your catalogs: {what}").format(what=", ".join(made))
            )
        office = self.offices.offices()
        if office:
            self.context.settings.set_office(evaluation.name, office[0].name)
        self.created.emit(evaluation.name, self.peak.start.isChecked())
        super().accept()

    def _failed(self, message: str) -> None:
        self.running = False
        self.button(QWizard.WizardButton.FinishButton).setEnabled(True)
        self.peak.error.setText(message)

    def retranslate(self) -> None:
        self.setWindowTitle(self.tr("New evaluation"))
        for page in (self.job, self.offices, self.candidates, self.peak):
            page.retranslate()

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)
