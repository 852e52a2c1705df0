"""The offering form's fields (`desktop.app.offering_form`): one row per field the loader knows, generated
from `desktop.usecases.user_catalogs.offering_fields` (the questionnaire's offering questions: kind, unit,
allowed values, range) in the questionnaire's order and grouped, each with its editor
(`desktop.app.widgets.offering_fields`), its unit, where its current value comes from (source, as of,
standing, file) and a line for the loader's message about it.

The panel knows what each field started with, so it can say what was changed (`values`) and which of the
user's own facts were cleared (`forgotten`); judging them is the form's (the loader's rules, in a worker).
The questions' words are the questionnaire's own, in the window's language. Texts from catalogs and vendors
are shown as plain text and neutralised, never as markup.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtWidgets import QGridLayout, QGroupBox, QLabel, QVBoxLayout, QWidget

from catalogs.facts import Provenance
from catalogs.loader import ProviderCatalog
from catalogs.questionnaire import Question
from desktop.app.context import AppContext
from desktop.app.widgets.offering_fields import Editor, editor_for
from desktop.export.safety import neutralise
from desktop.i18n import language
from desktop.usecases.user_catalogs import offering_fields, offering_values, own_fields

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


def plain_label(text: str = "", style: str = "") -> QLabel:
    """A label that never reads its text as markup (catalog and vendor text is untrusted)."""
    label = QLabel()
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setWordWrap(True)
    label.setText(text)
    if style:
        label.setStyleSheet(style)
    return label


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


class OfferingFields(QWidget):
    """The fields of one offering (or of a new one); `edited` fires on every change the user makes."""

    edited = Signal()

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self.catalog: ProviderCatalog | None = None
        self.rows: dict[str, FieldRow] = {}
        self.own: set[str] = set()  # the fields whose value is the user's own fact (clearing one removes it)
        self.groups: dict[str, QGroupBox] = {}
        self.column = QVBoxLayout(self)

    def build(self, catalog: ProviderCatalog | None, offering_id: str | None) -> None:
        """One row per field the loader knows, with the offering's current values (none for a new one);
        values typed so far are kept (across a change of provider)."""
        typed = {path: row.editor.text_value() for path, row in self.rows.items()}
        while self.column.count():
            item = self.column.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None:
                widget.deleteLater()
        self.catalog, self.groups, self.rows = catalog, {}, {}
        current: dict[str, tuple[Any, Provenance | None]] = {}
        self.own = set()
        if catalog is not None and offering_id is not None:
            current, self.own = offering_values(catalog, offering_id), own_fields(catalog, offering_id)
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
            self.column.addWidget(group)
        for question in offering_fields(catalog):
            self._add_row(grids[group_of(question.path)], question, *current.get(question.path, (None, None)))
            if question.path in typed and typed[question.path] != self.rows[question.path].initial:
                self.rows[question.path].editor.set_value(typed[question.path])
        self.column.addStretch(1)
        self.retranslate()

    def _add_row(
        self, grid: QGridLayout, question: Question, value: Any, provenance: Provenance | None
    ) -> None:
        line = grid.rowCount()
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
        editor.signals.edited.connect(self.edited)
        self.rows[question.path] = row

    # -- what was typed ----------------------------------------------------------------------------------

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

    def note_cleared(self) -> None:
        """Under each field cleared (and not refused): what saving does with it."""
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

    # -- words -------------------------------------------------------------------------------------------

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

    def retranslate(self) -> None:
        """The groups' titles, the fields' words (the questionnaire's questions, in the window's language)
        and each value's origin."""
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
        with language(self.context.settings.language):
            questions = [(q, q.allowed_text()) for q in offering_fields(self.catalog)]
        catalog_file = self.catalog.path if self.catalog is not None else None
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
            row.origin.setText(self.origin_text(row.provenance, catalog_file))
            row.origin.setToolTip(row.origin.text())

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)
