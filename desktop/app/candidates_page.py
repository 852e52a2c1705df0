"""The guide's candidates page: a provider and region picked from the catalogs (an offering too, where the team
has one in mind), or typed in when the catalogs do not know them: a vendor and a region created in place in
the user's catalogs with their names and nothing else claimed; each with its test addresses (the vendor's
test IP or looking-glass file). Each candidate is checked as it is added (ids, addresses, twice)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWizardPage,
)

from desktop.app.errors import error_text
from desktop.app.offering_fields_panel import ERROR_STYLE

if TYPE_CHECKING:
    from catalogs.loader import CatalogSet, ProviderCatalog
    from desktop.usecases.evaluation import NewCandidate


def _chosen_id(combo: QComboBox) -> str:
    """The id picked (an item's data) or typed (a new one)."""
    text = combo.currentText().strip()
    index = combo.currentIndex()
    if index >= 0 and combo.itemText(index) == text and combo.itemData(index):
        return str(combo.itemData(index))
    return text


class CandidatesPage(QWizardPage):
    def __init__(self, catalogs: CatalogSet) -> None:
        super().__init__()
        self.catalogs = catalogs
        self._drafts: list[NewCandidate] = []
        self.provider = QComboBox()
        self.provider.setEditable(True)
        self.provider.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        for catalog in sorted(catalogs.providers, key=lambda c: c.provider.id):
            self.provider.addItem(f"{catalog.provider.name} ({catalog.provider.id})", catalog.provider.id)
        self.provider.setCurrentIndex(-1)
        self.provider_name = QLineEdit()
        self.region = QComboBox()
        self.region.setEditable(True)
        self.region.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.region_name = QLineEdit()
        self.offering = QComboBox()
        self.addresses = QLineEdit()
        self.add_button = QPushButton()
        self.remove_button = QPushButton()
        self.new_note = QLabel()
        self.new_note.setWordWrap(True)
        self.new_note.setObjectName("screenHint")
        self.error = QLabel()
        self.error.setWordWrap(True)
        self.error.setStyleSheet(ERROR_STYLE)
        self.labels = [QLabel() for _ in range(6)]
        form = QFormLayout()
        form.addRow(self.labels[0], self.provider)
        form.addRow(self.labels[1], self.provider_name)
        form.addRow(self.labels[2], self.region)
        form.addRow(self.labels[3], self.region_name)
        form.addRow(self.labels[4], self.offering)
        form.addRow(self.labels[5], self.addresses)
        buttons = QHBoxLayout()
        buttons.addWidget(self.add_button)
        buttons.addStretch(1)
        buttons.addWidget(self.remove_button)
        self.table = QTableWidget(0, 3)
        self.table.verticalHeader().setVisible(False)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.new_note)
        layout.addLayout(buttons)
        layout.addWidget(self.error)
        layout.addWidget(self.table, 1)
        self.provider.currentTextChanged.connect(self._provider_changed)
        self.region.currentTextChanged.connect(self._region_changed)
        self.add_button.clicked.connect(self.add_candidate)
        self.remove_button.clicked.connect(self._remove)
        self._provider_changed()

    # -- the form ----------------------------------------------------------------------------------------

    def _catalog(self) -> ProviderCatalog | None:
        return self.catalogs.provider(_chosen_id(self.provider))

    def _provider_changed(self, *_: object) -> None:
        catalog = self._catalog()
        self.provider_name.setEnabled(catalog is None and bool(self.provider.currentText().strip()))
        typed = self.region.currentText()
        self.region.blockSignals(True)
        self.region.clear()
        for region in catalog.regions if catalog is not None else ():
            self.region.addItem(f"{region.id}" + (f" — {region.name}" if region.name else ""), region.id)
        self.region.setCurrentIndex(-1)
        self.region.setEditText(typed if catalog is None else "")
        self.region.blockSignals(False)
        self._region_changed()

    def _region_changed(self, *_: object) -> None:
        catalog = self._catalog()
        region = _chosen_id(self.region)
        known = catalog is not None and catalog.region(region) is not None
        self.region_name.setEnabled(bool(region) and not known)
        self.offering.clear()
        self.offering.addItem(self.tr("any of its offerings in the region"), None)
        if catalog is not None:
            for offering in catalog.offerings:
                if not offering.regions or region in offering.regions:
                    self.offering.addItem(f"{offering.id} · {offering.gpu or '?'}", offering.id)
        new = []
        if self.provider.currentText().strip() and catalog is None:
            new.append(self.tr("the vendor {id}").format(id=_chosen_id(self.provider)))
        if region and not known:
            new.append(self.tr("the region {id}").format(id=region))
        self.new_note.setText(
            self.tr(
                "Not in the catalogs: {what} will be created in your catalogs with its name only; nothing "
                "else is claimed until the vendor answers the questionnaire."
            ).format(what=self.tr(" and ").join(new))
            if new
            else ""
        )

    def add_candidate(self) -> bool:
        """Check the form's candidate and add it to the list; whether it was added."""
        from catalogs.errors import CatalogError
        from catalogs.evaluation.model import check_endpoints, check_name
        from desktop.usecases.evaluation import NewCandidate

        provider, region = _chosen_id(self.provider), _chosen_id(self.region)
        offering = self.offering.currentData()
        words = self.addresses.text().replace(",", " ").split()
        try:
            check_name(provider, self.tr("provider"))
            check_name(region, self.tr("region"))
            endpoints = check_endpoints(words, f"{provider}/{region}")
            known = self.catalogs.provider(provider)
            if (known is None or known.region(region) is None) and not endpoints:
                raise ValueError(
                    self.tr("{provider}/{region}: a new region needs a test address to measure").format(
                        provider=provider, region=region
                    )
                )
            draft = NewCandidate(
                provider,
                region,
                str(offering) if offering else None,
                endpoints,
                self.provider_name.text().strip() or None if known is None else None,
                self.region_name.text().strip() or None,
            )
            if any(
                (d.provider, d.region, d.offering) == (provider, region, draft.offering) for d in self._drafts
            ):
                raise ValueError(
                    self.tr("{provider}/{region} is in the list already").format(
                        provider=provider, region=region
                    )
                )
        except (CatalogError, ValueError) as exc:
            self.error.setText(error_text(exc))
            return False
        self.error.setText("")
        self._drafts.append(draft)
        self._show(draft)
        self.addresses.clear()
        self.completeChanged.emit()
        return True

    def _show(self, draft: NewCandidate) -> None:
        row = self.table.rowCount()
        self.table.insertRow(row)
        label = "/".join(p for p in (draft.provider, draft.region, draft.offering) if p)
        known = self.catalogs.provider(draft.provider)
        if known is None:
            note = self.tr("new vendor and region")
        elif known.region(draft.region) is None:
            note = self.tr("new region")
        else:
            note = self.tr("from the catalogs")
        addresses = ", ".join(draft.endpoints) or self.tr("the region's endpoints in the catalogs")
        for column, text in enumerate((label, addresses, note)):
            self.table.setItem(row, column, QTableWidgetItem(text))

    def _remove(self) -> None:
        row = self.table.currentRow()
        if row < 0 and self._drafts:
            row = len(self._drafts) - 1
        if row >= 0:
            del self._drafts[row]
            self.table.removeRow(row)
            self.completeChanged.emit()

    def drafts(self) -> list[NewCandidate]:
        return list(self._drafts)

    def isComplete(self) -> bool:
        return bool(self._drafts)

    # -- language ----------------------------------------------------------------------------------------

    def retranslate(self) -> None:
        self.setTitle(self.tr("The candidates"))
        self.setSubTitle(
            self.tr("The regions you are choosing between, each with the addresses its line is measured to.")
        )
        for label, text in zip(
            self.labels,
            (
                self.tr("Provider"),
                self.tr("Vendor name"),
                self.tr("Region"),
                self.tr("Region name"),
                self.tr("Offering"),
                self.tr("Test addresses"),
            ),
            strict=True,
        ):
            label.setText(text)
        editor = self.provider.lineEdit()
        if editor is not None:
            editor.setPlaceholderText(self.tr("pick one, or type a new vendor's id (e.g. vendorb)"))
        self.provider_name.setPlaceholderText(self.tr("a new vendor's name (e.g. Vendor B)"))
        self.region_name.setPlaceholderText(self.tr("a new region's name (e.g. Tokyo 2)"))
        self.addresses.setPlaceholderText(
            self.tr("the vendor's test IP, host:port or a test file's URL, separated by spaces")
        )
        self.add_button.setText(self.tr("Add the candidate"))
        self.remove_button.setText(self.tr("Remove"))
        self.table.setHorizontalHeaderLabels(
            [self.tr("Candidate"), self.tr("Test addresses"), self.tr("In the catalogs")]
        )
        self._region_changed()
