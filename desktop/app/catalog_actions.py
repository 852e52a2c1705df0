"""The Catalog screen's editing row: New offering…, Edit…, Delete (an offering of the user's own catalogs) or
Copy to my catalogs (a bundled one), and Questionnaire → Export… / Import….

Every write runs in a worker through `desktop.usecases.user_catalogs` (the provider's overlay in the user's
catalog folder; never the bundled files); when it is done the screens that read catalogs are told
(`AppContext.catalog_events`) and the screen selects what was written. Dialogs open window-modal without
blocking the event loop.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent
from PySide6.QtWidgets import (
    QHBoxLayout,
    QInputDialog,
    QMenu,
    QMessageBox,
    QPushButton,
    QWidget,
)

from catalogs.loader import CatalogSet
from desktop.app.context import AppContext
from desktop.usecases.overlay_home import OverlayHome
from desktop.usecases.user_catalogs import copy_offering, delete_offering

if TYPE_CHECKING:
    from desktop.app.catalog_screen import CatalogScreen
    from desktop.app.offering_form import OfferingForm
    from desktop.app.questionnaire_dialogs import QuestionnaireExportDialog
    from desktop.app.questionnaire_import import QuestionnaireImportDialog


def delete_in_worker(
    catalogs: CatalogSet, provider: str, offering: str, home: OverlayHome | None = None
) -> tuple[str, str]:
    delete_offering(catalogs, provider, offering, home)
    return provider, offering


def copy_in_worker(
    catalogs: CatalogSet, provider: str, offering: str, new_id: str, home: OverlayHome | None = None
) -> tuple[str, str, str]:
    copy_offering(catalogs, provider, offering, new_id, folder=home)
    return provider, offering, new_id


class CatalogActions(QWidget):
    def __init__(self, context: AppContext, screen: CatalogScreen) -> None:
        super().__init__(screen)
        self.context = context
        self.catalog_screen = screen
        self.form: OfferingForm | None = None
        self.confirm_box: QMessageBox | None = None
        self.copy_dialog: QInputDialog | None = None
        self.export_dialog: QuestionnaireExportDialog | None = None
        self.import_dialog: QuestionnaireImportDialog | None = None
        self.new_button = QPushButton()
        self.edit_button = QPushButton()
        self.delete_button = QPushButton()
        self.copy_button = QPushButton()
        self.questionnaire_button = QPushButton()  # a push button's menu arrow has room of its own
        self.questionnaire_menu = QMenu(self)
        self.export_action = self.questionnaire_menu.addAction("")
        self.import_action = self.questionnaire_menu.addAction("")
        self.questionnaire_button.setMenu(self.questionnaire_menu)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        for widget in (self.new_button, self.edit_button, self.delete_button, self.copy_button):
            row.addWidget(widget)
        row.addStretch(1)
        row.addWidget(self.questionnaire_button)
        self.new_button.clicked.connect(self.new_offering)
        self.edit_button.clicked.connect(self.edit_selected)
        self.delete_button.clicked.connect(self.delete_selected)
        self.copy_button.clicked.connect(self.copy_selected)
        self.export_action.triggered.connect(self.export_questionnaire)
        self.import_action.triggered.connect(self.import_questionnaire)
        self.update_for(None, False)
        self.retranslate()

    def update_for(self, row: dict[str, Any] | None, own: bool) -> None:
        """The buttons for the selected offering: Delete for one of the user's own, Copy for a bundled one."""
        loaded = self.catalog_screen.view is not None
        for widget in (self.new_button, self.questionnaire_button):
            widget.setEnabled(loaded)
        self.edit_button.setEnabled(row is not None)
        self.delete_button.setVisible(own)
        self.delete_button.setEnabled(row is not None and own)
        self.copy_button.setVisible(not own)
        self.copy_button.setEnabled(row is not None and not own)

    def _selected(self) -> tuple[str, str] | None:
        row = self.catalog_screen.selected_row()
        return None if row is None else (str(row["provider"]), str(row["id"]))

    def _provider(self) -> str | None:
        chosen = self._selected()
        return chosen[0] if chosen else (str(self.catalog_screen.provider.currentData() or "") or None)

    # -- the offering form -------------------------------------------------------------------------------

    def new_offering(self) -> OfferingForm | None:
        if self.catalog_screen.view is None:
            return None
        catalogs = self.catalog_screen.view.catalogs
        provider = self._provider() or (catalogs.providers[0].provider.id if catalogs.providers else "")
        return self._open_form(provider, None)

    def edit_selected(self) -> OfferingForm | None:
        chosen = self._selected()
        if chosen is None or self.catalog_screen.view is None:
            return None
        return self._open_form(*chosen)

    def _open_form(self, provider: str, offering: str | None) -> OfferingForm:
        from desktop.app.offering_form import OfferingForm

        if self.form is not None:
            self.form.deleteLater()
        assert self.catalog_screen.view is not None
        form = OfferingForm(
            self.context, self.catalog_screen.view.catalogs, provider, offering, self.catalog_screen
        )
        form.saved.connect(self.catalog_screen.select_after_reload)
        self.form = form
        form.open()
        return form

    # -- delete, or copy a bundled one -------------------------------------------------------------------

    def delete_selected(self) -> QMessageBox | None:
        chosen = self._selected()
        if chosen is None or chosen not in self.catalog_screen.own:
            return None
        box = QMessageBox(
            QMessageBox.Icon.Question,
            self.tr("Delete an offering"),
            self.tr(
                "Delete {provider}/{offering} from your catalogs? Every fact you gave it goes; the bundled "
                "catalogs are not touched."
            ).format(provider=chosen[0], offering=chosen[1]),
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            self.catalog_screen,
        )
        box.button(QMessageBox.StandardButton.Yes).setText(self.tr("Delete"))
        box.button(QMessageBox.StandardButton.No).setText(self.tr("Keep it"))
        box.button(QMessageBox.StandardButton.Yes).clicked.connect(lambda: self._delete(*chosen))
        self.confirm_box = box
        box.open()
        return box

    def _delete(self, provider: str, offering: str) -> None:
        assert self.catalog_screen.view is not None
        self.context.workers.submit(
            delete_in_worker,
            self.catalog_screen.view.catalogs,
            provider,
            offering,
            self.context.facts_home(),
            on_done=self._deleted,
            on_error=self._failed,
        )

    def _deleted(self, deleted: tuple[str, str]) -> None:
        provider, offering = deleted
        self.context.reporter.info(
            self.tr("{provider}/{offering} deleted from your catalogs.").format(
                provider=provider, offering=offering
            )
        )
        self.context.catalog_events.changed.emit()

    def copy_selected(self) -> QInputDialog | None:
        chosen = self._selected()
        if chosen is None or chosen in self.catalog_screen.own:
            return None
        dialog = QInputDialog(self.catalog_screen)
        dialog.setWindowTitle(self.tr("Copy to my catalogs"))
        dialog.setLabelText(
            self.tr(
                "The copy of {provider}/{offering} in your catalogs (each fact keeps its source), under the id:"
            ).format(provider=chosen[0], offering=chosen[1])
        )
        dialog.setTextValue(f"{chosen[1]}-mine")
        dialog.textValueSelected.connect(lambda new_id: self._copy(chosen[0], chosen[1], new_id.strip()))
        self.copy_dialog = dialog
        dialog.open()
        return dialog

    def _copy(self, provider: str, offering: str, new_id: str) -> None:
        assert self.catalog_screen.view is not None
        self.context.workers.submit(
            copy_in_worker,
            self.catalog_screen.view.catalogs,
            provider,
            offering,
            new_id,
            self.context.facts_home(),
            on_done=self._copied,
            on_error=self._failed,
        )

    def _copied(self, copied: tuple[str, str, str]) -> None:
        provider, offering, new_id = copied
        self.context.reporter.info(
            self.tr("{provider}/{offering} copied to your catalogs as {copy}.").format(
                provider=provider, offering=offering, copy=new_id
            )
        )
        self.catalog_screen.select_after_reload(provider, new_id)
        self.context.catalog_events.changed.emit()

    def _failed(self, message: str) -> None:
        self.context.reporter.error(self.tr("Your catalogs were not changed"), message)

    # -- the questionnaire -------------------------------------------------------------------------------

    def export_questionnaire(self) -> QuestionnaireExportDialog | None:
        from desktop.app.questionnaire_dialogs import QuestionnaireExportDialog

        if self.catalog_screen.view is None:
            return None
        if self.export_dialog is not None:
            self.export_dialog.deleteLater()
        dialog = QuestionnaireExportDialog(
            self.context, self.catalog_screen.view.catalogs, self._provider(), self.catalog_screen
        )
        self.export_dialog = dialog
        dialog.open()
        return dialog

    def import_questionnaire(self) -> QuestionnaireImportDialog | None:
        from desktop.app.questionnaire_import import QuestionnaireImportDialog

        if self.catalog_screen.view is None:
            return None
        if self.import_dialog is not None:
            self.import_dialog.deleteLater()
        dialog = QuestionnaireImportDialog(
            self.context, self.catalog_screen.view.catalogs, self._provider(), self.catalog_screen
        )
        self.import_dialog = dialog
        dialog.open()
        return dialog

    # -- language ----------------------------------------------------------------------------------------

    def retranslate(self) -> None:
        self.new_button.setText(self.tr("New offering…"))
        self.edit_button.setText(self.tr("Edit…"))
        self.delete_button.setText(self.tr("Delete"))
        self.copy_button.setText(self.tr("Copy to my catalogs"))
        self.copy_button.setToolTip(
            self.tr(
                "A bundled offering is not deleted or changed in place: copy it into your catalogs to make it yours."
            )
        )
        self.questionnaire_button.setText(self.tr("Questionnaire"))
        self.export_action.setText(self.tr("Export…"))
        self.import_action.setText(self.tr("Import…"))

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)
