"""Pick probe targets from the bundled catalogs: providers → regions (with the line types the vendor claims)
→ their probe endpoints, ticked at any level. The endpoints become probe-list entries through
`desktop.usecases.probe_list.entries_from_region` (`catalogs.targets.region_targets`, the same step
`linkvet catalog targets` prints)."""

from __future__ import annotations

from collections.abc import Iterator

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from catalogs.loader import CatalogSet
from desktop.app.widgets.line_type_badge import BADGE_COLOURS, badge_label
from desktop.app.widgets.screen_fit import fit_to_screen
from desktop.usecases.probe_list import TargetEntry, entries_from_region

ROLE = Qt.ItemDataRole.UserRole + 1


class CatalogTargetsDialog(QDialog):
    def __init__(self, catalogs: CatalogSet, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.catalogs = catalogs
        self.hint = QLabel()
        self.hint.setWordWrap(True)
        self.tree = QTreeWidget()
        self.tree.setColumnCount(3)
        self.tree.setColumnWidth(0, 300)
        self.tree.setColumnWidth(1, 170)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.hint)
        layout.addWidget(self.tree, 1)
        layout.addWidget(self.buttons)
        fit_to_screen(self, 900, 620)
        self._fill()
        self.retranslate()

    def _fill(self) -> None:
        flags = Qt.ItemFlag.ItemIsUserCheckable | Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsAutoTristate
        for catalog in self.catalogs.providers:
            regions = [r for r in catalog.regions if r.endpoints]
            if not regions:
                continue
            top = QTreeWidgetItem([catalog.provider.name, "", f"{len(regions)}"])
            top.setFlags(flags)
            top.setCheckState(0, Qt.CheckState.Unchecked)
            self.tree.addTopLevelItem(top)
            for region in regions:
                where = ", ".join(x for x in (region.city, region.country) if x)
                item = QTreeWidgetItem(
                    [
                        f"{region.id}" + (f" ({where})" if where else ""),
                        " · ".join(badge_label(t) for t in region.line_types) or "?",
                        f"{len(region.endpoints)}",
                    ]
                )
                item.setFlags(
                    Qt.ItemFlag.ItemIsUserCheckable | Qt.ItemFlag.ItemIsEnabled
                )  # its endpoints go along
                item.setCheckState(0, Qt.CheckState.Unchecked)
                item.setData(0, ROLE, (catalog.provider.id, region.id))
                if region.line_types:
                    item.setForeground(1, QBrush(QColor(BADGE_COLOURS.get(region.line_types[0], "#616161"))))
                top.addChild(item)
                for endpoint in region.endpoints:
                    address = endpoint.url or endpoint.host or "?"
                    port = f":{endpoint.port}" if endpoint.port and not endpoint.url else ""
                    line = badge_label(endpoint.line_type) if endpoint.line_type else ""
                    leaf = QTreeWidgetItem([f"{endpoint.kind}: {address}{port}", line, ""])
                    leaf.setFlags(Qt.ItemFlag.ItemIsEnabled)
                    item.addChild(leaf)

    def chosen_regions(self) -> list[tuple[str, str]]:
        """(provider id, region id) of every ticked region."""
        return [
            item.data(0, ROLE) for item in self._region_items() if item.checkState(0) == Qt.CheckState.Checked
        ]

    def check_region(self, provider_id: str, region_id: str) -> None:
        for item in self._region_items():
            if item.data(0, ROLE) == (provider_id, region_id):
                item.setCheckState(0, Qt.CheckState.Checked)

    def _region_items(self) -> Iterator[QTreeWidgetItem]:
        """The region rows: the children of every provider row (Qt types the lookups as optional; an index
        below the count always has an item, so a None is skipped, not expected)."""
        for i in range(self.tree.topLevelItemCount()):
            top = self.tree.topLevelItem(i)
            if top is None:
                continue
            for j in range(top.childCount()):
                item = top.child(j)
                if item is not None:
                    yield item

    def entries(self) -> tuple[list[TargetEntry], list[str]]:
        """The probe-list entries of the ticked regions, and the endpoints that could not be used."""
        entries: list[TargetEntry] = []
        problems: list[str] = []
        for provider_id, region_id in self.chosen_regions():
            found, bad = entries_from_region(self.catalogs, provider_id, region_id)
            entries += found
            problems += bad
        return entries, problems

    def retranslate(self) -> None:
        self.setWindowTitle(self.tr("Targets from the catalogs"))
        self.hint.setText(
            self.tr(
                "Tick regions (or whole providers) to probe their public test endpoints. Each target "
                "keeps the region's provider, id and claimed line type, so its measurements join the catalog."
            )
        )
        self.tree.setHeaderLabels(
            [self.tr("Provider / region / endpoint"), self.tr("Claimed line"), self.tr("Endpoints")]
        )

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)
