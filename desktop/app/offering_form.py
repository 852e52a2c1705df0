"""The offering form (Catalog screen → New offering… / Edit…): every field the loader knows, generated from
`desktop.usecases.user_catalogs.offering_fields` (the questionnaire's offering questions: kind, unit,
allowed values, range), each with where its current value comes from (source, as of, standing, file):
the fields themselves are `desktop.app.offering_fields_panel`.

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

from PySide6.QtCore import QEvent, QTimer, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from catalogs.loader import CatalogSet
from desktop.app.context import AppContext
from desktop.app.offering_fields_panel import ERROR_STYLE, NOTE_STYLE, FieldRow, OfferingFields, plain_label
from desktop.app.widgets.screen_fit import fit_to_screen
from desktop.export.safety import neutralise
from desktop.usecases.overlay_home import OverlayHome
from desktop.usecases.user_catalogs import (
    FieldProblem,
    OfferingInvalid,
    check_new_offering,
    check_offering,
    create_offering,
    save_offering,
    user_folder,
)

DEBOUNCE_MS = 250


@dataclass(frozen=True)
class Saved:
    """What a save came to: the overlay written, or the problems that stopped it."""

    path: Path | str | None  # the overlay file, or the team store
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
    home: OverlayHome | None = None,
) -> tuple[int, list[FieldProblem]]:
    if new:
        return generation, check_new_offering(
            catalogs, provider, offering, values, source, as_of or None, home
        )
    return generation, check_offering(
        catalogs, provider, offering, values, source, as_of or None, home, forget
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
    home: OverlayHome | None = None,
) -> Saved:
    """Written where the window keeps the user's facts (`home`: the team's store in team mode; None: the
    user's catalog folder)."""
    try:
        if new:
            return Saved(create_offering(catalogs, provider, offering, values, source, as_of or None, home))
        return Saved(save_offering(catalogs, provider, offering, values, source, as_of or None, home, forget))
    except OfferingInvalid as exc:
        return Saved(None, exc.problems)


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

        self.fields = OfferingFields(context)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(self.fields)
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
        self.fields.edited.connect(self._edited)
        fit_to_screen(self, 1120, 820)
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

    @property
    def rows(self) -> dict[str, FieldRow]:
        return self.fields.rows

    @property
    def own(self) -> set[str]:
        return self.fields.own

    def _build_fields(self) -> None:
        self.fields.build(self.catalogs.provider(self.provider_id), None if self.new else self.offering_id)

    def _provider_changed(self, _index: int) -> None:
        self.provider_id = str(self.provider.currentData() or "")
        self._build_fields()
        self._edited()

    # -- checking as typed -------------------------------------------------------------------------------

    def values(self) -> dict[str, Any]:
        """The fields changed from what the catalog says (as typed), each to be written with the source."""
        return self.fields.values()

    def forgotten(self) -> tuple[str, ...]:
        """The user's own facts cleared in the form: saving takes them out of the overlay."""
        return self.fields.forgotten()

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
            self.context.facts_home(),
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
        self.fields.note_cleared()
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
            self.context.facts_home(),
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
        self.save_button.setText(self.tr("Save"))
        self.buttons.button(QDialogButtonBox.StandardButton.Cancel).setText(self.tr("Cancel"))
        if self._checked == self._generation:
            self.show_problems(self.problems)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)
