"""The Targets screen: the probe list (custom targets, catalog endpoints, plan imports) with line-type
badges; add, edit, remove, switch on and off. The list is read and saved (in the data folder, as it changes)
by `desktop.app.probe_list_book`."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from desktop.app.context import AppContext
from desktop.app.models.target_list import TargetListModel
from desktop.app.target_dialog import TargetDialog
from desktop.app.widgets.line_type_badge import LineTypeBadgeDelegate
from desktop.usecases.probe_list import TargetEntry
from probes.errors import PlanError  # light; the plan reader (pydantic) loads on first use

if TYPE_CHECKING:
    from catalogs.loader import CatalogSet
    from desktop.app.catalog_targets_dialog import CatalogTargetsDialog


class TargetsScreen(QWidget):
    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self.model: TargetListModel = context.targets
        self.catalogs: CatalogSet | None = None  # loaded on first use of "From the catalogs…"
        self.catalog_dialog: CatalogTargetsDialog | None = None

        self.title = QLabel()
        self.title.setObjectName("screenTitle")
        self.hint = QLabel()
        self.hint.setWordWrap(True)
        self.hint.setObjectName("screenHint")
        self.add_button = QPushButton()
        self.edit_button = QPushButton()
        self.remove_button = QPushButton()
        self.catalog_button = QPushButton()
        self.import_button = QPushButton()
        self.save_plan_button = QPushButton()
        self.all_button = QPushButton()
        self.none_button = QPushButton()
        buttons = QHBoxLayout()
        for button in (
            self.add_button,
            self.edit_button,
            self.remove_button,
            self.catalog_button,
            self.import_button,
            self.save_plan_button,
        ):
            buttons.addWidget(button)
        buttons.addStretch(1)
        buttons.addWidget(self.all_button)
        buttons.addWidget(self.none_button)

        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setAlternatingRowColors(True)
        self.table.verticalHeader().setVisible(False)
        self.table.setItemDelegateForColumn(TargetListModel.LINE_TYPE, LineTypeBadgeDelegate(self.table))
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(True)
        self.table.setColumnWidth(TargetListModel.NAME, 240)
        self.table.setColumnWidth(TargetListModel.ADDRESS, 260)
        self.table.setColumnWidth(TargetListModel.LINE_TYPE, 110)
        self.count_label = QLabel()

        layout = QVBoxLayout(self)
        layout.addWidget(self.title)
        layout.addWidget(self.hint)
        layout.addLayout(buttons)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.count_label)

        self.add_button.clicked.connect(self.add_target)
        self.edit_button.clicked.connect(self.edit_selected)
        self.remove_button.clicked.connect(self.remove_selected)
        self.catalog_button.clicked.connect(self.choose_from_catalogs)
        context.catalog_events.changed.connect(self._forget_catalogs)
        self.import_button.clicked.connect(self._ask_import_plan)
        self.save_plan_button.clicked.connect(self._ask_save_plan)
        self.all_button.clicked.connect(lambda: self.model.set_all_enabled(True))
        self.none_button.clicked.connect(lambda: self.model.set_all_enabled(False))
        self.table.doubleClicked.connect(lambda index: self.edit_row(index.row()))
        self.table.selectionModel().selectionChanged.connect(self._update_buttons)
        for signal in (
            self.model.rowsInserted,
            self.model.rowsRemoved,
            self.model.dataChanged,
            self.model.modelReset,
        ):
            signal.connect(self._changed)
        self.retranslate()
        self._update_buttons()

    # -- persistence -------------------------------------------------------------------------------------

    def _changed(self, *_: object) -> None:
        self._update_count()

    # -- actions -----------------------------------------------------------------------------------------

    def add_target(self) -> None:
        dialog = TargetDialog(self)
        if dialog.exec() and dialog.entry is not None and not self.model.add([dialog.entry]):
            self.context.reporter.info(self.tr("That target is already on the list."))

    def edit_selected(self) -> None:
        rows = self._selected_rows()
        if rows:
            self.edit_row(rows[0])

    def edit_row(self, row: int) -> None:
        dialog = TargetDialog(self, self.model.entry(row))
        if dialog.exec() and dialog.entry is not None:
            self.model.replace_entry(row, dialog.entry)

    def remove_selected(self) -> None:
        self.model.remove_rows(self._selected_rows())

    def add_entries(self, entries: list[TargetEntry]) -> int:
        added = self.model.add(entries)
        self.context.reporter.info(self.tr("%n target(s) added to the probe list.", "", added))
        return added

    def choose_from_catalogs(self) -> None:
        """Load the catalogs (in a worker, once), then let the user tick regions to probe."""
        if self.catalogs is not None:
            self._pick_from(self.catalogs)
            return
        from desktop.usecases.offerings import load_catalog_set

        self.catalog_button.setEnabled(False)
        self.context.workers.submit(
            functools.partial(load_catalog_set, db=self.context.settings.store_location),
            on_done=self._catalogs_loaded,
            on_error=self._catalogs_failed,
        )

    def _forget_catalogs(self) -> None:
        """The user's catalogs changed (a region's endpoints answered in a questionnaire): read them again
        on the next use."""
        self.catalogs = None

    def _catalogs_loaded(self, catalogs: CatalogSet) -> None:
        self.catalog_button.setEnabled(True)
        self.catalogs = catalogs
        self._pick_from(catalogs)

    def _catalogs_failed(self, message: str) -> None:
        self.catalog_button.setEnabled(True)
        self.context.reporter.error(self.tr("Catalogs not loaded"), message)

    def _pick_from(self, catalogs: CatalogSet) -> None:
        """Show the providers → regions tree (window-modal, without blocking the event loop)."""
        from desktop.app.catalog_targets_dialog import CatalogTargetsDialog

        if self.catalog_dialog is not None:
            self.catalog_dialog.deleteLater()  # the previous one, closed by now
        dialog = CatalogTargetsDialog(catalogs, self)
        dialog.accepted.connect(lambda: self._add_chosen(dialog))
        self.catalog_dialog = dialog
        dialog.open()

    def _add_chosen(self, dialog: CatalogTargetsDialog) -> None:
        entries, problems = dialog.entries()
        self.add_entries(entries)
        if problems:
            self.context.reporter.info("; ".join(problems))

    def import_plan(self, path: Path) -> int:
        """Add a plan file's targets to the list; how many were new. Errors go to a dialog."""
        from desktop.usecases.probe_list import entries_from_plan

        try:
            plan, entries = entries_from_plan(path)
        except PlanError as exc:
            self.context.reporter.failure(self.tr("Plan not imported"), exc)
            return 0
        added = self.model.add(entries)
        self.context.reporter.info(
            self.tr("Imported plan {plan}: %n new target(s).", "", added).format(plan=plan.name)
        )
        return added

    def save_plan(self, path: Path) -> None:
        """Write the switched-on targets as a plan file (5 min cadence, 1 min in the peak windows)."""
        from desktop.usecases.probe_list import save_as_plan

        entries = [e for e in self.model.entries() if e.enabled]
        try:
            if not entries:
                raise PlanError(str(path), self.tr("no targets switched on"))
            save_as_plan(
                entries,
                path,
                every_s=300,
                peak_every_s=60,
                peak_windows=self.context.settings.peak_windows,
                options=self.context.settings.probe_options,
            )
        except (PlanError, OSError) as exc:
            self.context.reporter.failure(self.tr("Plan not saved"), exc)
            return
        self.context.reporter.info(
            self.tr("Saved {count} targets as {path}: run it with linkvet schedule --plan {path}").format(
                count=len(entries), path=path
            )
        )

    def _ask_import_plan(self) -> None:
        chosen, _ = QFileDialog.getOpenFileName(
            self, self.tr("Import a plan file"), str(Path.home()), self.tr("Plan files (*.toml)")
        )
        if chosen:
            self.import_plan(Path(chosen))

    def _ask_save_plan(self) -> None:
        chosen, _ = QFileDialog.getSaveFileName(
            self,
            self.tr("Save the probe list as a plan"),
            str(self.context.settings.export_dir / "office-plan.toml"),
            self.tr("Plan files (*.toml)"),
        )
        if chosen:
            self.save_plan(Path(chosen))

    def _selected_rows(self) -> list[int]:
        return sorted({index.row() for index in self.table.selectionModel().selectedRows()})

    def _update_buttons(self, *_: object) -> None:
        selected = bool(self._selected_rows())
        self.edit_button.setEnabled(selected)
        self.remove_button.setEnabled(selected)

    def _update_count(self) -> None:
        entries = self.model.entries()
        on = sum(1 for e in entries if e.enabled)
        self.count_label.setText(
            self.tr("{on} of {total} targets switched on for the next run").format(on=on, total=len(entries))
        )

    # -- language ----------------------------------------------------------------------------------------

    def retranslate(self) -> None:
        self.title.setText(self.tr("Targets"))
        self.hint.setText(
            self.tr(
                "The probe list: what the Probe screen measures. Tick the targets to include; label each "
                "with its provider, region and the line type the vendor claims, "
                "so measurements join the catalog."
            )
        )
        self.add_button.setText(self.tr("Add…"))
        self.edit_button.setText(self.tr("Edit…"))
        self.remove_button.setText(self.tr("Remove"))
        self.catalog_button.setText(self.tr("From the catalogs…"))
        self.import_button.setText(self.tr("Import plan…"))
        self.save_plan_button.setText(self.tr("Save as plan…"))
        self.all_button.setText(self.tr("Switch all on"))
        self.none_button.setText(self.tr("Switch all off"))
        self.model.set_headers(
            [
                self.tr("Name"),
                self.tr("Method"),
                self.tr("Address"),
                self.tr("Provider"),
                self.tr("Region"),
                self.tr("Line type"),
                self.tr("From"),
            ]
        )
        self._update_count()

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)
