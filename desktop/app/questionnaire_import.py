"""Catalog screen → Questionnaire → Import…: an answered questionnaire read back into the provider's overlay
in the user's catalog folder, in two steps.

1. Preview (`desktop.usecases.questionnaire_preview.preview_questionnaire`, in a worker; nothing written):
   every valid answer beside what the catalog says now and where that comes from. An answer that
   contradicts a stated fact is a conflict: its row is ticked to take the answer, unticked to keep what the
   catalog says. A refused workbook lists every problem (sheet, row, key, what was given, what was
   expected) and nothing can be imported (unless invalid answers are skipped).
2. Import (`import_questionnaire(…, keep=…)`): the answers taken, each with the vendor's provenance; then
   every screen that reads catalogs is told (`AppContext.catalog_events`), so the scorecard re-ranks.

Changing the workbook, the provider, the source, the date or the skip option asks for a new preview.
Answer text is untrusted: shown as plain text, neutralised.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHeaderView,
    QLineEdit,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from catalogs.facts import Provenance
from catalogs.loader import CatalogSet
from catalogs.questionnaire import all_questions, question_for, shown
from desktop.app.context import AppContext
from desktop.app.offering_fields_panel import ERROR_STYLE, plain_label
from desktop.app.questionnaire_dialogs import file_row, provider_choices
from desktop.app.widgets.screen_fit import fit_to_screen
from desktop.export.safety import neutralise
from desktop.i18n import language
from desktop.usecases.files import not_a_file
from desktop.usecases.overlay_home import OverlayHome
from desktop.usecases.questionnaire import (
    AnswerProblem,
    AnswersInvalid,
    QuestionnaireImported,
    import_questionnaire,
)
from desktop.usecases.questionnaire_preview import (
    AnswerPreview,
    QuestionnairePreview,
    preview_questionnaire,
)

CONFLICT_COLOUR = QColor("#fff3cd")  # a conflict's row: the user decides it


@dataclass(frozen=True)
class Request:
    """What the dialog's fields say: the workbook, the provider, who answered, when, skip invalid."""

    path: Path
    provider: str
    source: str
    as_of: str
    skip_invalid: bool
    # where the answers go: the team's store in team mode, else the user's folder (not a field the user sees)
    home: OverlayHome | None = field(default=None, compare=False)


@dataclass(frozen=True)
class PreviewOutcome:
    """A preview (None when refused) and the answers refused (or skipped)."""

    preview: QuestionnairePreview | None
    problems: list[AnswerProblem] = field(default_factory=list)


def preview_in_worker(request: Request, catalogs: CatalogSet) -> PreviewOutcome:
    try:
        preview = preview_questionnaire(
            request.path,
            catalogs,
            request.provider,
            source=request.source or None,
            as_of=request.as_of or None,
            skip_invalid=request.skip_invalid,
            folder=request.home,
        )
    except AnswersInvalid as exc:
        return PreviewOutcome(None, exc.problems)
    return PreviewOutcome(preview, preview.problems)


def import_in_worker(request: Request, catalogs: CatalogSet, keep: frozenset[str]) -> QuestionnaireImported:
    return import_questionnaire(
        request.path,
        catalogs,
        request.provider,
        source=request.source or None,
        as_of=request.as_of or None,
        skip_invalid=request.skip_invalid,
        keep=keep,
        folder=request.home,
    )


class QuestionnaireImportDialog(QDialog):
    """Preview an answered questionnaire, choose between conflicting facts, import what was taken."""

    # the changes table
    QUESTION, NOW, ANSWER, CHOICE, KEY = range(5)
    # the problems table
    SHEET, ROW, PROBLEM_KEY, GIVEN, EXPECTED, PROBLEM = range(6)

    def __init__(
        self, context: AppContext, catalogs: CatalogSet, provider: str | None, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.context = context
        self.catalogs = catalogs
        self.preview: QuestionnairePreview | None = None
        self.previewed: Request | None = None
        self.imported: QuestionnaireImported | None = None
        self.problems_shown: list[AnswerProblem] = []
        self.choices: dict[str, QTableWidgetItem] = {}  # a conflict's key → its tick box (take the answer)
        self.running = False
        self.file = QLineEdit()
        self.browse = QPushButton()
        self.provider = QComboBox()
        provider_choices(self.provider, catalogs, provider)
        self.source = QLineEdit()
        self.source.setMaxLength(4000)
        self.as_of = QLineEdit()
        self.as_of.setMaxLength(40)
        self.skip_invalid = QCheckBox()
        self.labels = [plain_label() for _ in range(4)]
        form = QFormLayout()
        form.addRow(self.labels[0], file_row(self.file, self.browse))
        form.addRow(self.labels[1], self.provider)
        form.addRow(self.labels[2], self.source)
        form.addRow(self.labels[3], self.as_of)
        form.addRow("", self.skip_invalid)
        self.status = plain_label()
        self.changes = QTableWidget(0, 5)
        self.changes.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.changes.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.changes.verticalHeader().setVisible(False)
        self.changes.setWordWrap(False)  # one line a row; the whole text is in each cell's tool tip
        self.changes.horizontalHeader().setStretchLastSection(True)
        for column, width in {0: 230, 1: 330, 2: 170, 3: 200}.items():
            self.changes.setColumnWidth(column, width)
        self.changes.hide()
        self.problems = QTableWidget(0, 6)
        self.problems.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.problems.verticalHeader().setVisible(False)
        self.problems.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.problems.horizontalHeader().setStretchLastSection(True)
        for column, width in {0: 90, 1: 50, 2: 260, 3: 110, 4: 200}.items():
            self.problems.setColumnWidth(column, width)
        self.problems.hide()
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.preview_button = self.buttons.addButton("", QDialogButtonBox.ButtonRole.ActionRole)
        self.import_button = self.buttons.addButton("", QDialogButtonBox.ButtonRole.ActionRole)
        self.import_button.setEnabled(False)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.status)
        layout.addWidget(self.changes, 2)
        layout.addWidget(self.problems, 1)
        layout.addWidget(self.buttons)
        self.browse.clicked.connect(self._ask_file)
        self.preview_button.clicked.connect(self.start_preview)
        self.import_button.clicked.connect(self.start_import)
        self.buttons.rejected.connect(self.reject)
        for line in (self.file, self.source, self.as_of):
            line.textChanged.connect(self._inputs_changed)
        self.provider.currentIndexChanged.connect(self._inputs_changed)
        self.skip_invalid.toggled.connect(self._inputs_changed)
        fit_to_screen(self, 1100, 640)
        self.retranslate()

    def request(self) -> Request:
        return Request(
            Path(self.file.text().strip()).expanduser(),
            str(self.provider.currentData() or ""),
            self.source.text().strip(),
            self.as_of.text().strip(),
            self.skip_invalid.isChecked(),
            self.context.facts_home(),
        )

    def _ask_file(self) -> None:
        chosen, _filter = QFileDialog.getOpenFileName(
            self,
            self.tr("An answered questionnaire"),
            str(self.context.settings.export_dir),
            self.tr("Excel workbooks (*.xlsx)"),
        )
        if chosen:
            self.file.setText(chosen)

    def _inputs_changed(self, *_: object) -> None:
        """The preview shown is not for these inputs any more: ask for a new one before importing."""
        if self.previewed is not None and self.previewed != self.request():
            self.previewed = None
            self.import_button.setEnabled(False)
            self._show(self.tr("The inputs changed: press Preview again before importing."))

    # -- step 1: the preview -----------------------------------------------------------------------------

    def start_preview(self) -> None:
        if self.running:
            return
        request = self.request()
        problem = not_a_file(request.path)
        if problem is not None:
            self._show(self.tr("{file}: {problem}").format(file=request.path, problem=problem), error=True)
            return
        self.running = True
        self.preview, self.previewed, self.imported = None, None, None
        self._buttons()
        self.changes.hide()
        self.problems.hide()
        self._show(self.tr("Reading the answers…"))
        self.context.workers.submit(
            preview_in_worker,
            request,
            self.catalogs,
            on_done=lambda outcome: self._previewed(request, outcome),
            on_error=self._failed,
        )

    def _previewed(self, request: Request, outcome: PreviewOutcome) -> None:
        self.running = False
        self.show_problems(outcome.problems)
        if outcome.preview is None:
            self._buttons()
            self._show(
                self.tr(
                    "%n answer(s) not valid: nothing can be imported. Correct them in the workbook and "
                    "preview again (or skip the invalid ones).",
                    "",
                    len(outcome.problems),
                ),
                error=True,
            )
            return
        self.preview, self.previewed, self.choices = outcome.preview, request, {}
        self.show_changes(outcome.preview.answers)
        self._buttons()
        preview = outcome.preview
        counts = {w: sum(1 for a in preview.answers if a.what == w) for w in ("new", "same", "conflict")}
        text = self.tr(
            "{answers} answers: {new} new facts, {same} the same as the catalog says, {conflicts} that "
            "contradict it (ticked: take the answer; unticked: keep what the catalog says). Nothing is "
            "written until you press Import."
        ).format(
            answers=len(preview.answers), new=counts["new"], same=counts["same"], conflicts=counts["conflict"]
        )
        if outcome.problems:
            text += "\n" + self.tr(
                "%n invalid answer(s) will be skipped (listed below).", "", len(outcome.problems)
            )
        self._show(text)

    def show_changes(self, answers: list[AnswerPreview]) -> None:
        """Each answer on a row: key, question, what the catalog says now (with its source), the answer, and
        for a conflict a tick box (take the answer). Conflicts first."""
        order = {"conflict": 0, "new": 1, "verified": 2, "same": 3}
        rows = sorted(answers, key=lambda a: (order[a.what], a.sheet, a.row))
        taken = {key: item.checkState() == Qt.CheckState.Checked for key, item in self.choices.items()}
        self.choices = {}
        words = self.question_words()
        self.changes.setRowCount(len(rows))
        for number, answer in enumerate(rows):
            question, unit = words.get(answer.key, (answer.question, answer.unit))
            now = self.tr("unknown") if answer.now is None else _with_unit(answer.now, unit)
            if answer.what == "conflict":
                now = f"{now} — {self.origin_text(answer.now_source)}"
            cells = {
                self.KEY: (answer.key, answer.key),
                self.QUESTION: (question, question),
                self.NOW: (now, self.origin_text(answer.now_source) if answer.now is not None else now),
                self.ANSWER: (
                    _with_unit(answer.answer, unit),
                    self.tr("{source} (as of {date})").format(source=answer.source, date=answer.as_of),
                ),
            }
            choice = QTableWidgetItem(self.choice_text(answer.what))
            for column, (text, tip) in cells.items():
                item = QTableWidgetItem(neutralise(text))
                item.setToolTip(neutralise(tip))
                self.changes.setItem(number, column, item)
                if answer.what == "conflict":
                    item.setBackground(CONFLICT_COLOUR)
                    item.setForeground(QColor("#000000"))  # readable on the light colour in a dark theme
            if answer.what == "conflict":
                choice.setBackground(CONFLICT_COLOUR)
                choice.setForeground(QColor("#000000"))
                choice.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsUserCheckable)
                choice.setCheckState(
                    Qt.CheckState.Checked if taken.get(answer.key, True) else Qt.CheckState.Unchecked
                )
                self.choices[answer.key] = choice
            self.changes.setItem(number, self.CHOICE, choice)
        self.changes.setVisible(bool(rows))

    def question_words(self) -> dict[str, tuple[str, str]]:
        """Each previewed key's question and unit in the window's language (the preview, made in a worker,
        has them in the core's)."""
        if self.preview is None:
            return {}
        catalog = self.catalogs.provider(self.preview.provider)
        with language(self.context.settings.language):
            questions = all_questions(catalog)
            found = {a.key: question_for(a.key, questions) for a in self.preview.answers}
            return {key: (q.text, q.unit) for key, q in found.items() if q is not None}

    def choice_text(self, what: str) -> str:
        return {
            "conflict": self.tr("take the answer"),
            "new": self.tr("new fact"),
            "same": self.tr("same (source and date refreshed)"),
            "verified": self.tr("a verified fact stands"),
        }[what]

    def origin_text(self, provenance: Provenance | None) -> str:
        if provenance is None:
            return self.tr("source not stated")
        text = provenance.source or self.tr("source not stated")
        if provenance.as_of:
            text = self.tr("{source} (as of {date})").format(source=text, date=provenance.as_of)
        if provenance.file:
            text += f" · {Path(provenance.file).name}"
        return text

    def set_taken(self, key: str, take: bool) -> None:
        """Take (tick) or leave (untick) a conflicting answer, as a click on its box does."""
        self.choices[key].setCheckState(Qt.CheckState.Checked if take else Qt.CheckState.Unchecked)

    def taken(self) -> list[str]:
        """The keys of the conflicting answers ticked (taken)."""
        return [key for key, item in self.choices.items() if item.checkState() == Qt.CheckState.Checked]

    # -- step 2: the import ------------------------------------------------------------------------------

    def start_import(self) -> None:
        if self.running or self.preview is None or self.previewed is None:
            return
        keep = self.preview.kept_back(self.taken())
        self.running = True
        self._buttons()
        self._show(self.tr("Writing the answers into your catalogs…"))
        self.context.workers.submit(
            import_in_worker,
            self.previewed,
            self.catalogs,
            keep,
            on_done=lambda result: self._imported(result, len(keep)),
            on_error=self._failed,
        )

    def _imported(self, result: QuestionnaireImported, kept: int) -> None:
        self.running = False
        self.imported = result
        self.preview, self.previewed = None, None
        self._buttons()
        counts = {w: sum(1 for c in result.changes if c.what == w) for w in ("added", "changed", "unchanged")}
        text = self.tr(
            "{answers} answers written: {added} facts added, {changed} changed (earlier values kept in their "
            "history), {unchanged} unchanged, {kept} kept as the catalog says, in {file}."
        ).format(answers=result.answers, kept=kept, file=result.overlay, **counts)
        self._show(text)
        if counts["added"] or counts["changed"]:
            self.context.catalog_events.changed.emit()

    def show_problems(self, problems: list[AnswerProblem]) -> None:
        """Each refused answer on a row: sheet, row, key, what was given, what was expected, why."""
        self.problems_shown = problems
        self.problems.setRowCount(len(problems))
        for number, problem in enumerate(problems):
            cells = (
                problem.sheet,
                str(problem.row),
                problem.key,
                "" if problem.given is None else str(problem.given),
                problem.expected or "",
                problem.message,
            )
            for column, text in enumerate(cells):
                item = QTableWidgetItem(neutralise(text))
                item.setToolTip(neutralise(text))
                self.problems.setItem(number, column, item)
        self.problems.setVisible(bool(problems))

    def problem_rows(self) -> list[tuple[str, ...]]:
        """The problems as shown, one tuple of cell texts per row."""
        rows = []
        for r in range(self.problems.rowCount()):
            items = (self.problems.item(r, c) for c in range(self.problems.columnCount()))
            rows.append(tuple(item.text() if item is not None else "" for item in items))
        return rows

    def _failed(self, message: str) -> None:
        self.running = False
        self._buttons()
        self._show(message, error=True)

    def _buttons(self) -> None:
        self.preview_button.setEnabled(not self.running)
        self.import_button.setEnabled(not self.running and self.preview is not None)

    def _show(self, text: str, *, error: bool = False) -> None:
        self.status.setStyleSheet(ERROR_STYLE if error else "")
        self.status.setText(neutralise(text))

    def retranslate(self) -> None:
        self.setWindowTitle(self.tr("Import an answered questionnaire"))
        for label, text in zip(
            self.labels,
            (self.tr("Workbook"), self.tr("Provider"), self.tr("Answered by"), self.tr("Answers as of")),
            strict=True,
        ):
            label.setText(text)
        self.source.setPlaceholderText(self.tr("empty: the workbook's “Answered by”"))
        self.as_of.setPlaceholderText(self.tr("empty: the workbook's answer date (YYYY-MM-DD)"))
        self.skip_invalid.setText(self.tr("Skip invalid answers (import the valid ones and list the rest)"))
        self.browse.setText(self.tr("Browse…"))
        self.preview_button.setText(self.tr("Preview"))
        self.import_button.setText(self.tr("Import"))
        self.buttons.button(QDialogButtonBox.StandardButton.Close).setText(self.tr("Close"))
        self.changes.setHorizontalHeaderLabels(
            [
                self.tr("Question"),
                self.tr("The catalog says now"),
                self.tr("The answer"),
                self.tr("Import"),
                self.tr("Key"),
            ]
        )
        self.problems.setHorizontalHeaderLabels(
            [
                self.tr("Sheet"),
                self.tr("Row"),
                self.tr("Key"),
                self.tr("Given"),
                self.tr("Expected"),
                self.tr("Problem"),
            ]
        )
        if self.preview is not None:
            self.show_changes(self.preview.answers)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)


def _with_unit(value: Any, unit: str) -> str:
    text = shown(value)
    return f"{text} {unit}" if unit and text else text
