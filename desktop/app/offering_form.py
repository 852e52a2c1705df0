"""The offering form (Catalog screen → New offering… / Edit…): every field the loader knows, generated from
`desktop.usecases.user_catalogs.offering_fields` (the questionnaire's offering questions: kind, unit,
allowed values, range), each with where its current value comes from (source, as of, standing, file).

What is typed is checked with the loader's own rules as it is typed (`check_offering`, or
`check_new_offering` for a new one; debounced, in a worker, since it reads the user's overlay), and each
problem is shown next to its field. Only the fields that were changed are saved, with the source and date
given at the top, into the provider's overlay in the user's catalog folder (never the bundled files); a
saved change tells every screen that reads catalogs (`AppContext.catalog_events`), so the scorecard
re-ranks at once.

Texts from catalogs and vendors (sources, the loader's messages quoting what was typed) are shown as plain
text and neutralised (`desktop.export.safety.neutralise`), never as markup.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PySide6.QtCore import QEvent, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QLabel,
    QLineEdit,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from catalogs.facts import Provenance
from catalogs.loader import CatalogSet
from catalogs.questionnaire import Question
from desktop.app.context import AppContext
from desktop.app.widgets.offering_fields import Editor, editor_for
from desktop.export.safety import neutralise
from desktop.i18n import language
from desktop.usecases.user_catalogs import (
    FieldProblem,
    OfferingInvalid,
    check_new_offering,
    check_offering,
    create_offering,
    offering_fields,
    offering_values,
    own_fields,
    save_offering,
    user_folder,
)

DEBOUNCE_MS = 250
LABEL_WIDTH, EDITOR_WIDTH, UNIT_WIDTH = 250, 240, 120
ERROR_STYLE = "color: #c62828"
NOTE_STYLE = "color: #607d8b"
# The form's sections, by the first part of a field's path (the rest go under "Operations").
GROUPS = ("hardware", "network", "storage", "operations", "price", "capacity")
_GROUP_OF = {
    "gpu": "hardware",
    "gpus_per_node": "hardware",
    "gpu_memory_gb": "hardware",
    "intra_node": "hardware",
    "inter_node": "network",
    "storage": "storage",
    "price": "price",
    "currency": "price",
    "min_term_days": "price",
    "max_gpus": "capacity",
    "regions": "capacity",
}


def group_of(path: str) -> str:
    return _GROUP_OF.get(path.split(".", 1)[0], "operations")


@dataclass
class FieldRow:
    """One field of the form: its question, editor, the labels beside it and the value it started with."""

    question: Question
    editor: Editor
    label: QLabel
    unit: QLabel
    origin: QLabel
    message: QLabel
    initial: str | None = None
    provenance: Provenance | None = None


@dataclass(frozen=True)
class Saved:
    """What a save came to: the overlay written, or the problems that stopped it."""

    path: Path | None
    problems: list[FieldProblem] = field(default_factory=list)


def check_in_worker(
    generation: int,
    new: bool,
    catalogs: CatalogSet,
    provider: str,
    offering: str,
    values: dict[str, Any],
    source: str,
    as_of: str,
    forget: tuple[str, ...] = (),
) -> tuple[int, list[FieldProblem]]:
    if new:
        return generation, check_new_offering(catalogs, provider, offering, values, source, as_of or None)
    return generation, check_offering(
        catalogs, provider, offering, values, source, as_of or None, None, forget
    )


def save_in_worker(
    new: bool,
    catalogs: CatalogSet,
    provider: str,
    offering: str,
    values: dict[str, Any],
    source: str,
    as_of: str,
    forget: tuple[str, ...] = (),
) -> Saved:
    try:
        if new:
            return Saved(create_offering(catalogs, provider, offering, values, source, as_of or None))
        return Saved(save_offering(catalogs, provider, offering, values, source, as_of or None, None, forget))
    except OfferingInvalid as exc:
        return Saved(None, exc.problems)


def plain_label(text: str = "", style: str = "") -> QLabel:
    """A label that never reads its text as markup (catalog and vendor text is untrusted)."""
    label = QLabel()
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setWordWrap(True)
    label.setText(text)
    if style:
        label.setStyleSheet(style)
    return label


class OfferingForm(QDialog):
    """New offering (`offering_id` None) or edit an existing one. `saved(provider, offering)` fires after
    the overlay was written."""

    saved = Signal(str, str)

    def __init__(
        self,
        context: AppContext,
        catalogs: CatalogSet,
        provider_id: str,
        offering_id: str | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.context = context
        self.catalogs = catalogs
        self.new = offering_id is None
        self.provider_id = provider_id
        self.offering_id = offering_id or ""
        self.rows: dict[str, FieldRow] = {}
        self.own: set[str] = set()  # the fields whose value is the user's own fact (clearing one removes it)
        self.problems: list[FieldProblem] = []
        self._generation = 0
        self._checked = -1  # the generation the problems shown are for
        self._saving = False

        self.intro = plain_label(style=NOTE_STYLE)
        self.provider = QComboBox()
        for catalog in catalogs.providers:
            self.provider.addItem(catalog.provider.name, catalog.provider.id)
        self.provider.setCurrentIndex(max(0, self.provider.findData(provider_id)))
        self.provider.setEnabled(self.new)
        self.offering = QLineEdit(self.offering_id)
        self.offering.setReadOnly(not self.new)
        self.offering.setMaxLength(200)
        self.offering_message = plain_label(style=ERROR_STYLE)
        self.source = QLineEdit()
        self.source.setMaxLength(4000)
        self.source_message = plain_label(style=ERROR_STYLE)
        self.as_of = QLineEdit(dt.date.today().isoformat())
        self.as_of.setMaxLength(40)
        self.as_of_message = plain_label(style=ERROR_STYLE)
        self.top = QFormLayout()
        self.provider_label, self.offering_label = QLabel(), QLabel()
        self.source_label, self.as_of_label = QLabel(), QLabel()
        self.top.addRow(self.provider_label, self.provider)
        self.top.addRow(self.offering_label, self._stacked(self.offering, self.offering_message))
        self.top.addRow(self.source_label, self._stacked(self.source, self.source_message))
        self.top.addRow(self.as_of_label, self._stacked(self.as_of, self.as_of_message))

        self.fields_page = QWidget()
        self.fields_layout = QVBoxLayout(self.fields_page)
        self.groups: dict[str, QGroupBox] = {}
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(self.fields_page)
        self.status = plain_label()
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
        )
        self.save_button = self.buttons.button(QDialogButtonBox.StandardButton.Save)
        self.save_button.setEnabled(False)
        layout = QVBoxLayout(self)
        layout.addWidget(self.intro)
        layout.addLayout(self.top)
        layout.addWidget(scroll, 1)
        layout.addWidget(self.status)
        layout.addWidget(self.buttons)

        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(DEBOUNCE_MS)
        self._debounce.timeout.connect(self.check)
        self.buttons.accepted.connect(self.save)
        self.buttons.rejected.connect(self.reject)
        self.provider.currentIndexChanged.connect(self._provider_changed)
        for line in (self.offering, self.source, self.as_of):
            line.textEdited.connect(self._edited)
        self.resize(1120, 820)
        self._build_fields()
        self.retranslate()
        self.check()

    @staticmethod
    def _stacked(widget: QWidget, message: QLabel) -> QWidget:
        box = QWidget()
        column = QVBoxLayout(box)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(1)
        column.addWidget(widget)
        column.addWidget(message)
        message.hide()
        return box

    # -- the fields --------------------------------------------------------------------------------------

    def _build_fields(self) -> None:
        """One row per field the loader knows, in the questionnaire's order, grouped; values typed so far
        are kept across a change of provider."""
        typed = {path: row.editor.text_value() for path, row in self.rows.items()}
        while self.fields_layout.count():
            item = self.fields_layout.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None:
                widget.deleteLater()
        self.groups, self.rows = {}, {}
        catalog = self.catalogs.provider(self.provider_id)
        current = {} if catalog is None or self.new else offering_values(catalog, self.offering_id)
        self.own = set() if catalog is None or self.new else own_fields(catalog, self.offering_id)
        grids: dict[str, QGridLayout] = {}
        for name in GROUPS:
            group = QGroupBox()
            grid = QGridLayout(group)
            grid.setColumnStretch(3, 1)
            # the same widths in every group, so the fields line up from one group to the next
            grid.setColumnMinimumWidth(0, LABEL_WIDTH)
            grid.setColumnMinimumWidth(1, EDITOR_WIDTH)
            grid.setColumnMinimumWidth(2, UNIT_WIDTH)
            self.groups[name], grids[name] = group, grid
            self.fields_layout.addWidget(group)
        for question in offering_fields(catalog):
            grid = grids[group_of(question.path)]
            line = grid.rowCount()
            value, provenance = current.get(question.path, (None, None))
            editor = editor_for(question)
            editor.setFixedWidth(EDITOR_WIDTH)
            editor.set_value(value)
            row = FieldRow(
                question,
                editor,
                plain_label(),
                plain_label(style=NOTE_STYLE),
                plain_label(style=NOTE_STYLE),
                plain_label(style=ERROR_STYLE),
                editor.text_value(),
                provenance,
            )
            if question.path in typed and typed[question.path] != row.initial:
                editor.set_value(typed[question.path])
            row.label.setBuddy(editor)
            row.label.setFixedWidth(LABEL_WIDTH)
            row.unit.setFixedWidth(UNIT_WIDTH)
            for label in (row.label, row.unit, row.origin):
                label.setContentsMargins(0, 4, 0, 0)  # level with the editor's text
            row.message.hide()
            grid.addWidget(row.label, line, 0, Qt.AlignmentFlag.AlignTop)
            grid.addWidget(editor, line, 1, Qt.AlignmentFlag.AlignTop)
            grid.addWidget(row.unit, line, 2, Qt.AlignmentFlag.AlignTop)
            grid.addWidget(row.origin, line, 3, Qt.AlignmentFlag.AlignTop)
            grid.addWidget(row.message, line + 1, 1, 1, 3)
            editor.signals.edited.connect(self._edited)
            self.rows[question.path] = row
        self.fields_layout.addStretch(1)
        self._describe_fields()

    def _describe_fields(self) -> None:
        """The fields' words (the questionnaire's questions, in the window's language) and each value's
        origin."""
        catalog = self.catalogs.provider(self.provider_id)
        with language(self.context.settings.language):
            questions = [(q, q.allowed_text()) for q in offering_fields(catalog)]
        for question, allowed in questions:
            row = self.rows.get(question.path)
            if row is None:
                continue
            row.question = question
            row.label.setText(question.text)
            row.label.setToolTip(question.why)
            row.editor.setToolTip(f"{question.why}\n{allowed}")
            row.editor.set_placeholder(
                self.tr("not stated") if question.kind in ("choice", "yes-no") else allowed
            )
            row.unit.setText(question.unit)
            row.origin.setText(self.origin_text(row.provenance, catalog.path if catalog else None))
            row.origin.setToolTip(row.origin.text())

    def origin_text(self, provenance: Provenance | None, catalog_file: Path | None) -> str:
        """Where a value comes from: source, as of, standing, file (the fact's own file, else its catalog's)."""
        if provenance is None:
            return self.tr("not stated by any source")
        standings = {
            "claimed": self.tr("claimed"),
            "verified": self.tr("verified"),
            "contradicted": self.tr("contradicted"),
        }
        source = provenance.source or self.tr("source not stated")
        if provenance.derived:
            source = self.tr("derived: {source}").format(source=source)
        parts = [neutralise(source)]
        if provenance.as_of:
            parts.append(self.tr("as of {date}").format(date=provenance.as_of))
        parts.append(standings.get(provenance.standing, provenance.standing))
        file = provenance.file or (str(catalog_file) if catalog_file is not None else None)
        if file:
            parts.append(Path(file).name)
        return " · ".join(parts)

    def _provider_changed(self, _index: int) -> None:
        self.provider_id = str(self.provider.currentData() or "")
        self._build_fields()
        self._edited()

    # -- checking as typed -------------------------------------------------------------------------------

    def values(self) -> dict[str, Any]:
        """The fields changed from what the catalog says (as typed), each to be written with the source."""
        return {
            path: row.editor.text_value()
            for path, row in self.rows.items()
            if row.editor.text_value() != row.initial
        }

    def forgotten(self) -> tuple[str, ...]:
        """The user's own facts cleared in the form: saving takes them out of the overlay."""
        return tuple(
            path
            for path, row in self.rows.items()
            if path in self.own and row.initial is not None and row.editor.text_value() is None
        )

    def _edited(self) -> None:
        self._generation += 1
        self.save_button.setEnabled(False)
        self._debounce.start()

    @property
    def busy(self) -> bool:
        """A check is scheduled or running (the problems shown may be out of date)."""
        return self._debounce.isActive() or self._checked != self._generation

    def check(self) -> None:
        self._debounce.stop()
        self.status.setStyleSheet("")
        self.status.setText(self.tr("Checking…"))
        self.context.workers.submit(
            check_in_worker,
            self._generation,
            self.new,
            self.catalogs,
            self.provider_id,
            self.offering.text().strip(),
            self.values(),
            self.source.text().strip(),
            self.as_of.text().strip(),
            self.forgotten(),
            on_done=self._checked_values,
            on_error=self._failed,
        )

    def _checked_values(self, tagged: tuple[int, list[FieldProblem]]) -> None:
        generation, problems = tagged
        if generation != self._generation:
            return  # typed again since: the newer check decides
        self._checked = generation
        self.show_problems(problems)

    def show_problems(self, problems: list[FieldProblem]) -> None:
        """Each problem next to its field; those of no field in the status line."""
        self.problems = problems
        by_field: dict[str, list[FieldProblem]] = {}
        for problem in problems:
            by_field.setdefault(problem.field, []).append(problem)
        labels = {path: row.message for path, row in self.rows.items()}
        labels |= {"id": self.offering_message, "source": self.source_message, "as_of": self.as_of_message}
        for name, label in labels.items():
            found = by_field.pop(name, [])
            label.setStyleSheet(ERROR_STYLE)
            label.setText("\n".join(self.problem_text(p) for p in found))
            label.setVisible(bool(found))
        forgotten = self.forgotten()
        for path, row in self.rows.items():
            cleared = row.initial is not None and row.editor.text_value() is None
            if cleared and row.message.isHidden():
                row.message.setStyleSheet(NOTE_STYLE)
                row.message.setText(
                    self.tr("Left empty: your fact is taken out of your catalogs on Save.")
                    if path in forgotten
                    else self.tr("Left empty: what the catalog says stays (nothing is deleted).")
                )
                row.message.show()
        rest = [self.problem_text(p) for found in by_field.values() for p in found]
        changed = len([v for v in self.values().values() if v is not None]) + len(forgotten)
        if problems:
            self.status.setStyleSheet(ERROR_STYLE)
            lines = rest
            if len(problems) > len(rest):
                lines = [
                    self.tr(
                        "%n value(s) not valid: nothing is saved until they are.",
                        "",
                        len(problems) - len(rest),
                    ),
                    *rest,
                ]
            self.status.setText("\n".join(lines))
        elif not changed:
            self.status.setStyleSheet("")
            self.status.setText(self.tr("Nothing changed yet."))
        else:
            self.status.setStyleSheet("")
            self.status.setText(
                self.tr(
                    "%n changed value(s), valid by the catalog's rules: Save writes them into {file}.",
                    "",
                    changed,
                ).format(file=str(user_folder() / f"{self.provider_id}.toml"))
            )
        self.save_button.setEnabled(not problems and changed > 0 and not self._saving)

    def problem_text(self, problem: FieldProblem) -> str:
        text = problem.message
        if problem.expected:
            text = self.tr("{message} (expected: {expected})").format(message=text, expected=problem.expected)
        return neutralise(text)

    def _failed(self, message: str) -> None:
        self._saving = False
        self._checked = self._generation
        self.status.setStyleSheet(ERROR_STYLE)
        self.status.setText(neutralise(message))

    # -- saving ------------------------------------------------------------------------------------------

    def save(self) -> None:
        if self.busy or self.problems or self._saving:
            return
        self._saving = True
        self.save_button.setEnabled(False)
        self.status.setText(self.tr("Saving…"))
        self.context.workers.submit(
            save_in_worker,
            self.new,
            self.catalogs,
            self.provider_id,
            self.offering.text().strip(),
            self.values(),
            self.source.text().strip(),
            self.as_of.text().strip(),
            self.forgotten(),
            on_done=self._saved,
            on_error=self._failed,
        )

    def _saved(self, result: Saved) -> None:
        self._saving = False
        if result.path is None:
            self.show_problems(result.problems)
            return
        offering = self.offering.text().strip()
        self.context.reporter.info(
            self.tr("{provider}/{offering} saved into {file}.").format(
                provider=self.provider_id, offering=offering, file=str(result.path)
            )
        )
        self.saved.emit(self.provider_id, offering)
        self.context.catalog_events.changed.emit()
        self.accept()

    # -- language ----------------------------------------------------------------------------------------

    def retranslate(self) -> None:
        if self.new:
            self.setWindowTitle(self.tr("New offering"))
        else:
            self.setWindowTitle(
                self.tr("Edit {provider}/{offering}").format(
                    provider=self.provider_id, offering=self.offering_id
                )
            )
        self.intro.setText(
            self.tr(
                "Only the values you change are saved, each with the source and date below, into your own "
                "catalog folder ({folder}); the bundled catalogs are never changed. An empty field means "
                "not stated (unknown)."
            ).format(folder=str(user_folder()))
        )
        self.provider_label.setText(self.tr("Provider"))
        self.offering_label.setText(self.tr("Offering id"))
        self.offering.setPlaceholderText(self.tr("e.g. gpu-h100-8x (lowercase letters, digits, . _ -)"))
        self.source_label.setText(self.tr("Source of what you change"))
        self.source.setPlaceholderText(
            self.tr("Who said it, in what document: e.g. quote from Li Wei, sales, 2026-12-03")
        )
        self.as_of_label.setText(self.tr("As of"))
        self.as_of.setPlaceholderText(self.tr("YYYY-MM-DD (or YYYY-MM, YYYY)"))
        titles = {
            "hardware": self.tr("GPUs and the server"),
            "network": self.tr("Network between servers"),
            "storage": self.tr("Storage"),
            "operations": self.tr("Operations"),
            "price": self.tr("Price and term"),
            "capacity": self.tr("Capacity and regions"),
        }
        for name, group in self.groups.items():
            group.setTitle(titles[name])
        self.save_button.setText(self.tr("Save"))
        self.buttons.button(QDialogButtonBox.StandardButton.Cancel).setText(self.tr("Cancel"))
        self._describe_fields()
        if self._checked == self._generation:
            self.show_problems(self.problems)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)
