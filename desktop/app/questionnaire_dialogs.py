"""Catalog screen → Questionnaire → Export…: `linkvet questionnaire export` in the window
(`desktop.usecases.questionnaire`, run in a worker); Import… is `desktop.app.questionnaire_import`.

Export: the provider, which of its offerings (and new ones to ask about), the training needs to order the
questions by (none, the Needs & score screen's, or a needs file), the language, and where to write it.
Answer text is untrusted: shown as plain text, neutralised.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from catalogs.loader import CatalogSet
from desktop.app.context import AppContext
from desktop.app.i18n import LANGUAGE_NAMES
from desktop.app.offering_fields_panel import ERROR_STYLE, plain_label
from desktop.app.widgets.screen_fit import fit_to_screen
from desktop.export.safety import neutralise
from desktop.usecases.questionnaire import QuestionnaireRequest, QuestionnaireWritten, export_questionnaire

NEEDS_NONE, NEEDS_SCREEN, NEEDS_FILE = "none", "screen", "file"


def export_in_worker(
    catalogs: CatalogSet,
    provider: str,
    offerings: tuple[str, ...],
    needs: dict[str, Any] | None,
    needs_file: Path | None,
    language: str,
    out: Path,
) -> QuestionnaireWritten:
    from catalogs.needs import load_needs, validate_needs

    profile = load_needs(needs_file) if needs_file is not None else None
    if profile is None and needs is not None:
        profile = validate_needs(dict(needs))
    return export_questionnaire(QuestionnaireRequest(catalogs, provider, out, offerings, profile, language))


def provider_choices(combo: QComboBox, catalogs: CatalogSet, chosen: str | None) -> None:
    for catalog in catalogs.providers:
        combo.addItem(catalog.provider.name, catalog.provider.id)
    combo.setCurrentIndex(max(0, combo.findData(chosen)))


def free_name(folder: Path, stem: str, suffix: str = ".xlsx") -> Path:
    """`folder/stem.xlsx`, or the first of `stem-2.xlsx`, `stem-3.xlsx`, … that does not exist yet: the name
    the dialog proposes is one it can write without replacing anything."""
    candidate = folder / f"{stem}{suffix}"
    number = 2
    while candidate.exists() and number < 1000:
        candidate = folder / f"{stem}-{number}{suffix}"
        number += 1
    return candidate


def file_row(line: QLineEdit, browse: QPushButton) -> QWidget:
    box = QWidget()
    row = QHBoxLayout(box)
    row.setContentsMargins(0, 0, 0, 0)
    row.addWidget(line, 1)
    row.addWidget(browse)
    return box


class QuestionnaireExportDialog(QDialog):
    """Write a questionnaire workbook for one provider; `written(result)` once it is on disk."""

    written = Signal(object)

    def __init__(
        self, context: AppContext, catalogs: CatalogSet, provider: str | None, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.context = context
        self.catalogs = catalogs
        self.written_result: QuestionnaireWritten | None = None
        self.running = False
        self._confirmed: Path | None = None  # a path the user agreed to replace (the save dialog, or asked)
        self.replace_box: QMessageBox | None = None
        self.provider = QComboBox()
        provider_choices(self.provider, catalogs, provider)
        self.offerings = QListWidget()
        self.offerings.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.new_offerings = QLineEdit()
        self.needs = QComboBox()
        for key in (NEEDS_NONE, NEEDS_SCREEN, NEEDS_FILE):
            self.needs.addItem("", key)
        self.needs_file = QLineEdit()
        self.needs_browse = QPushButton()
        self.language = QComboBox()
        for code, name in LANGUAGE_NAMES.items():
            self.language.addItem(name, code)
        self.language.setCurrentIndex(max(0, self.language.findData(context.settings.language)))
        self.out = QLineEdit()
        self.out_browse = QPushButton()
        self.status = plain_label()
        self.form = QFormLayout()
        self.labels = [plain_label() for _ in range(6)]
        self.form.addRow(self.labels[0], self.provider)
        self.form.addRow(self.labels[1], self.offerings)
        self.form.addRow(self.labels[2], self.new_offerings)
        self.form.addRow(self.labels[3], self.needs)
        self.form.addRow("", file_row(self.needs_file, self.needs_browse))
        self.form.addRow(self.labels[4], self.language)
        self.form.addRow(self.labels[5], file_row(self.out, self.out_browse))
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.export_button = self.buttons.addButton("", QDialogButtonBox.ButtonRole.ActionRole)
        layout = QVBoxLayout(self)
        layout.addLayout(self.form)
        layout.addWidget(self.status)
        layout.addWidget(self.buttons)
        self.provider.currentIndexChanged.connect(self._provider_changed)
        self.needs.currentIndexChanged.connect(self._needs_changed)
        self.needs_browse.clicked.connect(self._ask_needs_file)
        self.out_browse.clicked.connect(self._ask_out)
        self.export_button.clicked.connect(self.start_export)
        self.buttons.rejected.connect(self.reject)
        fit_to_screen(self, 720, 560)
        self._provider_changed()
        self._needs_changed()
        self.retranslate()

    def provider_id(self) -> str:
        return str(self.provider.currentData() or "")

    def _provider_changed(self, *_: object) -> None:
        self.offerings.clear()
        catalog = self.catalogs.provider(self.provider_id())
        for offering in catalog.offerings if catalog is not None else ():
            item = QListWidgetItem(f"{offering.id} · {offering.gpu or '?'}", self.offerings)
            item.setData(Qt.ItemDataRole.UserRole, offering.id)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked)
        self.out.setText(
            str(free_name(self.context.settings.export_dir, f"{self.provider_id()}-questionnaire"))
        )

    def _needs_changed(self, *_: object) -> None:
        on_file = self.needs.currentData() == NEEDS_FILE
        self.needs_file.setEnabled(on_file)
        self.needs_browse.setEnabled(on_file)

    def chosen_offerings(self) -> tuple[str, ...]:
        """The ticked offerings and the new ids typed (all ticked and none typed: every offering)."""
        ticked = [
            str(self.offerings.item(i).data(Qt.ItemDataRole.UserRole))
            for i in range(self.offerings.count())
            if self.offerings.item(i).checkState() == Qt.CheckState.Checked
        ]
        typed = [t.strip() for t in self.new_offerings.text().split(",") if t.strip()]
        if len(ticked) == self.offerings.count() and not typed:
            return ()
        return (*ticked, *typed)

    def _ask_needs_file(self) -> None:
        chosen, _filter = QFileDialog.getOpenFileName(
            self, self.tr("A needs profile"), str(Path.home()), self.tr("Needs profiles (*.toml)")
        )
        if chosen:
            self.needs_file.setText(chosen)

    def _ask_out(self) -> None:
        chosen, _filter = QFileDialog.getSaveFileName(
            self, self.tr("Save the questionnaire as"), self.out.text(), self.tr("Excel workbooks (*.xlsx)")
        )
        if chosen:
            self.out.setText(chosen)
            self._confirmed = Path(chosen)  # the dialog asked before replacing a file

    def start_export(self) -> None:
        if self.running:
            return
        out = Path(self.out.text().strip()).expanduser()
        problem = None
        if out.suffix.lower() != ".xlsx":
            problem = self.tr("{file}: the questionnaire is an xlsx workbook: name it .xlsx").format(file=out)
        elif not out.parent.is_dir():
            problem = self.tr("{file}: the folder {folder} does not exist").format(
                file=out, folder=out.parent
            )
        elif out.exists() and out != self._confirmed:
            self._ask_replace(out)
            return
        needs_file = Path(self.needs_file.text().strip()) if self.needs.currentData() == NEEDS_FILE else None
        if problem is None and needs_file is not None and not needs_file.is_file():
            problem = self.tr("no needs profile at {file}").format(file=needs_file)
        if problem is not None:
            self._show(problem, error=True)
            return
        self.running = True
        self.export_button.setEnabled(False)
        self._show(self.tr("Writing the questionnaire…"))
        self.context.workers.submit(
            export_in_worker,
            self.catalogs,
            self.provider_id(),
            self.chosen_offerings(),
            self.context.settings.needs if self.needs.currentData() == NEEDS_SCREEN else None,
            needs_file,
            str(self.language.currentData()),
            out,
            on_done=self._exported,
            on_error=self._failed,
        )

    def _ask_replace(self, out: Path) -> None:
        """A file of that name exists: replace it only when the user says so."""
        box = QMessageBox(
            QMessageBox.Icon.Question,
            self.tr("Replace the file?"),
            self.tr("{file} exists. Replace it with the new questionnaire?").format(file=out),
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            self,
        )
        box.setWindowModality(Qt.WindowModality.WindowModal)

        def answered(result: int) -> None:
            if result == QMessageBox.StandardButton.Yes:
                self._confirmed = out
                self.start_export()

        box.finished.connect(answered)
        self.replace_box = box
        box.open()

    def _exported(self, result: QuestionnaireWritten) -> None:
        self.running = False
        self.export_button.setEnabled(True)
        self.written_result = result
        self._show(
            self.tr(
                "Wrote {file}: {count} questions about {offerings}. Send it to the vendor; import the answers "
                "with Questionnaire → Import…"
            ).format(file=result.path, count=result.questions, offerings=", ".join(result.offerings) or "—")
        )
        self.written.emit(result)

    def _failed(self, message: str) -> None:
        self.running = False
        self.export_button.setEnabled(True)
        self._show(message, error=True)

    def _show(self, text: str, *, error: bool = False) -> None:
        self.status.setStyleSheet(ERROR_STYLE if error else "")
        self.status.setText(neutralise(text))

    def retranslate(self) -> None:
        self.setWindowTitle(self.tr("Export a questionnaire"))
        for label, text in zip(
            self.labels,
            (
                self.tr("Provider"),
                self.tr("Offerings to ask about"),
                self.tr("New offerings to ask about"),
                self.tr("Order the questions by"),
                self.tr("Language"),
                self.tr("Save as"),
            ),
            strict=True,
        ):
            label.setText(text)
        self.new_offerings.setPlaceholderText(
            self.tr("ids the catalog does not have yet, separated by commas")
        )
        self.needs.setItemText(0, self.tr("no training needs (the questions in their own order)"))
        self.needs.setItemText(1, self.tr("the training needs of the Needs & score screen"))
        self.needs.setItemText(2, self.tr("a needs profile file"))
        self.needs_browse.setText(self.tr("Browse…"))
        self.out_browse.setText(self.tr("Browse…"))
        self.export_button.setText(self.tr("Export"))
        self.buttons.button(QDialogButtonBox.StandardButton.Close).setText(self.tr("Close"))

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)
