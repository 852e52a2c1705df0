"""The Catalog screen: every offering (bundled and the user's own catalogs) in a filterable, sortable table,
with the GPU reference beside each, the selected offering's facts and their sources, its provider's regions
(with the line types the vendor claims), a button that puts a region's probe endpoints on the probe list,
and one that opens the provider's catalog file. Above the table, the editing row (`catalog_actions`: New
offering…, Edit…, Delete or Copy to my catalogs, Questionnaire → Export…/Import…). Loading runs in a
worker, again whenever the user's catalogs changed (`AppContext.catalog_events`); a broken catalog file is
reported and the rest shows."""

from __future__ import annotations

import html
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent, Qt, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QSplitter,
    QTableView,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from catalogs.interconnects import fabric_name, intra_node_name
from desktop.app.catalog_actions import CatalogActions
from desktop.app.context import AppContext
from desktop.app.models.offerings import OfferingsFilter, OfferingsModel
from desktop.app.widgets.line_type_badge import BADGE_COLOURS, badge_label
from desktop.export.safety import neutralise
from desktop.usecases.offerings import CatalogView, load_view
from desktop.usecases.probe_list import entries_from_region
from desktop.usecases.user_catalogs import user_offerings

if TYPE_CHECKING:
    from probes.store_location import StoreLocation

GPU_FAMILIES = (
    "",
    "H100",
    "H200",
    "H800",
    "B200",
    "A100",
    "A800",
    "L40S",
    "L4",
    "A10G",
    "RTX 4090",
    "MI300X",
)


def load_screen(db: StoreLocation | None = None) -> tuple[CatalogView, set[tuple[str, str]]]:
    """The worker's part: the catalogs as the screen shows them (with the team's facts when the window's
    store `db` is PostgreSQL), and the offerings of the user's own."""
    view = load_view(db=db)
    return view, user_offerings(view.catalogs)


class CatalogScreen(QWidget):
    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self.view: CatalogView | None = None
        self.own: set[tuple[str, str]] = set()  # (provider, offering) only the user's catalogs have
        self._select: tuple[str, str] | None = None  # what to select once loaded again
        self._loads = 0
        self.model = OfferingsModel(self)
        self.proxy = OfferingsFilter(self)
        self.proxy.setSourceModel(self.model)

        self.title = QLabel()
        self.title.setObjectName("screenTitle")
        self.search = QLineEdit()
        self.search.setClearButtonEnabled(True)
        self.gpu = QComboBox()
        self.gpu.addItems(GPU_FAMILIES)
        self.provider = QComboBox()
        self.provider.addItem("", "")
        self.nvlink = QCheckBox()
        self.count = QLabel()
        self.errors = QLabel()
        self.errors.setWordWrap(True)
        self.errors.setStyleSheet("color: #c62828")
        self.errors.hide()
        filters = QHBoxLayout()
        filters.addWidget(self.title)
        filters.addStretch(1)
        filters.addWidget(self.search, 2)
        self.gpu_label = QLabel()
        filters.addWidget(self.gpu_label)
        filters.addWidget(self.gpu)
        self.provider_label = QLabel()
        filters.addWidget(self.provider_label)
        filters.addWidget(self.provider)
        filters.addWidget(self.nvlink)

        self.table = QTableView()
        self.table.setModel(self.proxy)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(OfferingsModel.PRICE, Qt.SortOrder.AscendingOrder)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setAlternatingRowColors(True)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.table.horizontalHeader().setStretchLastSection(True)
        # The price beside the GPU (the list is sorted by it): at the model's place, last but one, it was
        # scrolled out of view at the default window size.
        header = self.table.horizontalHeader()
        header.moveSection(header.visualIndex(OfferingsModel.PRICE), OfferingsModel.GPU + 1)
        for column, width in {
            0: 90,
            1: 230,
            2: 110,
            3: 70,
            4: 60,
            5: 80,
            6: 140,
            7: 150,
            8: 70,
            9: 60,
            10: 100,
        }.items():
            self.table.setColumnWidth(column, width)

        self.detail = QTextBrowser()
        self.detail.setOpenExternalLinks(True)
        self.region = QComboBox()
        self.add_region = QPushButton()
        self.open_file = QPushButton()
        actions = QHBoxLayout()
        self.region_label = QLabel()
        actions.addWidget(self.region_label)
        actions.addWidget(self.region, 1)
        actions.addWidget(self.add_region)
        actions.addStretch(1)
        actions.addWidget(self.open_file)
        lower = QWidget()
        lower_layout = QVBoxLayout(lower)
        lower_layout.setContentsMargins(0, 0, 0, 0)
        lower_layout.addLayout(actions)
        lower_layout.addWidget(self.detail, 1)
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(self.table)
        splitter.addWidget(lower)
        splitter.setSizes([480, 300])

        self.edit_bar = CatalogActions(context, self)
        layout = QVBoxLayout(self)
        layout.addLayout(filters)
        layout.addWidget(self.edit_bar)
        layout.addWidget(self.errors)
        layout.addWidget(splitter, 1)
        layout.addWidget(self.count)

        self.search.textChanged.connect(self._filter)
        self.gpu.currentIndexChanged.connect(self._filter)
        self.provider.currentIndexChanged.connect(self._filter)
        self.nvlink.toggled.connect(self._filter)
        self.table.selectionModel().currentRowChanged.connect(lambda *_: self._show_selected())
        self.add_region.clicked.connect(self.add_selected_region)
        self.open_file.clicked.connect(self.open_provider_file)
        self.table.doubleClicked.connect(lambda _index: self.edit_bar.edit_selected())
        context.catalog_events.changed.connect(self.reload)
        self.retranslate()
        self.reload()

    # -- loading -----------------------------------------------------------------------------------------

    def reload(self) -> None:
        self.count.setText(self.tr("Loading the catalogs…"))
        self._loads += 1
        self.context.workers.submit(
            _tagged_load,
            self._loads,
            self.context.settings.store_location,
            on_done=self._loaded,
            on_error=self._failed,
        )

    @property
    def loading(self) -> bool:
        return self._loads > 0

    def select_after_reload(self, provider: str, offering: str) -> None:
        """Select this offering once the catalogs are loaded again (after it was written)."""
        self._select = (provider, offering)

    def _loaded(self, tagged: tuple[int, tuple[CatalogView, set[tuple[str, str]]]]) -> None:
        load, (view, own) = tagged
        if load != self._loads:
            return  # a later load (a later change) decides
        self._loads = 0
        self.view, self.own = view, own
        selected = self.selected_row()
        keep = self._select or ((selected["provider"], selected["id"]) if selected else None)
        self._select = None
        self.model.set_rows(view.rows)
        current = self.provider.currentData()
        self.provider.blockSignals(True)
        self.provider.clear()
        self.provider.addItem(self.tr("all providers"), "")
        for catalog in view.catalogs.providers:
            self.provider.addItem(catalog.provider.name, catalog.provider.id)
        self.provider.setCurrentIndex(max(0, self.provider.findData(current)))
        self.provider.blockSignals(False)
        if view.errors:
            self.errors.setText(self.tr("Some catalog files were skipped:") + "\n" + "\n".join(view.errors))
            self.errors.show()
        else:
            self.errors.hide()
        self._filter()
        self.table.resizeColumnsToContents()  # once per load (122 rows), not on every update
        # Cap the wordy columns so the price and the date stay in view at the default window size.
        for column, widest in {
            OfferingsModel.OFFERING: 230,
            OfferingsModel.INTRA: 120,
            OfferingsModel.FABRIC: 110,
        }.items():
            self.table.setColumnWidth(column, min(self.table.columnWidth(column), widest))
        if keep is not None and self.select(*keep):
            return
        if self.proxy.rowCount():
            self.table.selectRow(0)
        else:
            self._show_selected()

    def select(self, provider: str, offering: str) -> bool:
        """Select the offering's row (if the filters show it)."""
        for row in range(self.proxy.rowCount()):
            data = self.proxy.data(self.proxy.index(row, 0), OfferingsModel.RowRole)
            if isinstance(data, dict) and (data["provider"], data["id"]) == (provider, offering):
                self.table.selectRow(row)
                self.table.scrollTo(self.proxy.index(row, 0))
                self._show_selected()
                return True
        return False

    def _failed(self, message: str) -> None:
        self._loads = 0
        self.count.setText(message)
        self.context.reporter.error(self.tr("Catalogs not loaded"), message)

    def _filter(self, *_: object) -> None:
        self.proxy.set_filters(
            text=self.search.text(),
            gpu=self.gpu.currentText() if self.gpu.currentIndex() > 0 else "",
            provider=str(self.provider.currentData() or ""),
            nvlink_only=self.nvlink.isChecked(),
        )
        self.count.setText(
            self.tr(
                "{shown} of {total} offerings · '?' = not stated by the source (unknown, not false)"
            ).format(shown=self.proxy.rowCount(), total=self.model.rowCount())
        )

    # -- the selected offering ---------------------------------------------------------------------------

    def selected_row(self) -> dict[str, Any] | None:
        index = self.table.currentIndex()
        if not index.isValid():
            return None
        row = self.proxy.data(index, OfferingsModel.RowRole)
        return row if isinstance(row, dict) else None

    def _show_selected(self) -> None:
        row = self.selected_row()
        self.edit_bar.update_for(row, row is not None and (row["provider"], row["id"]) in self.own)
        if row is None or self.view is None:
            self.detail.clear()
            return
        catalog = self.view.catalogs.provider(row["provider"])
        self.region.clear()
        if catalog is not None:
            offered = set(row.get("regions") or [])
            for region in catalog.regions:
                if region.endpoints and (not offered or region.id in offered):
                    lines = ", ".join(badge_label(t) for t in region.line_types) or "?"
                    self.region.addItem(
                        f"{region.id} · {region.city or '?'} · {lines} ({len(region.endpoints)})", region.id
                    )
        self.add_region.setEnabled(self.region.count() > 0)
        self.open_file.setEnabled(catalog is not None and catalog.path is not None)
        self.detail.setHtml(self.describe(row))

    def describe(self, row: dict[str, Any]) -> str:
        """The selected offering as HTML: facts with their sources, the GPU reference, regions, service."""
        e = html.escape
        not_stated = self.tr("not stated")
        unknown = f"<i>{e(not_stated)}</i>"
        yes, no = self.tr("yes"), self.tr("no")

        own_sources = row.get("fact_sources") or {}

        def own(key: str, fallback: Any = None) -> Any:
            """A fact's own source (a vendor's answer, a verified measurement; with its standing and file)."""
            found = own_sources.get(key)
            if not found:
                return fallback
            parts = [str(found.get("source") or "")]
            if found.get("as_of"):
                parts.append(str(found["as_of"]))
            if found.get("standing") and found["standing"] != "claimed":
                parts.append(str(found["standing"]))
            if found.get("file"):
                parts.append(Path(str(found["file"])).name)
            return " · ".join(p for p in parts if p)

        def fact(label: str, value: Any, source: Any = None) -> str:
            # text from catalogs and vendors is untrusted: shown as text, never as markup or a formula
            if isinstance(value, bool):
                value = yes if value else no
            shown = unknown if value in (None, "", [], ()) else e(neutralise(str(value)))
            note = f" <span style='color:#78909c'>({e(neutralise(str(source)))})</span>" if source else ""
            return f"<tr><td><b>{e(label)}</b></td><td>{shown}{note}</td></tr>"

        intra = row.get("intra_node") or {}
        inter = row.get("inter_node") or {}
        storage = row.get("storage") or {}
        reference = row.get("reference") or {}
        parts = [f"<h3>{e(row['provider'])} / {e(str(row.get('name') or row['id']))}</h3>"]
        if row.get("notes"):
            parts.append(f"<p>{e(row['notes'])}</p>")
        parts.append("<table cellspacing='4'>")
        parts.append(fact(self.tr("GPU"), row.get("gpu"), own("offering.gpu")))
        parts.append(fact(self.tr("GPUs per node"), row.get("gpus_per_node"), own("offering.gpus_per_node")))
        parts.append(
            fact(self.tr("Memory per GPU (GB)"), OfferingsModel.memory(row), own("offering.gpu_memory_gb"))
        )
        parts.append(
            fact(
                self.tr("In the node"),
                " ".join(
                    str(x)
                    for x in (
                        intra.get("kind") and intra_node_name(intra["kind"]),
                        intra.get("bandwidth_gbytes_s") and f"{intra['bandwidth_gbytes_s']:g} GB/s",
                    )
                    if x
                )
                or None,
                own(
                    "offering.intra_node.kind",
                    own("offering.intra_node.bandwidth_gbytes_s", intra.get("source")),
                ),
            )
        )
        rate = inter.get("bandwidth_gbit_s")
        parts.append(
            fact(
                self.tr("Between nodes"),
                " ".join(
                    str(x)
                    for x in (
                        inter.get("fabric") and fabric_name(inter["fabric"]),
                        rate and f"{rate:g} Gbit/s",
                        inter.get("rails") and self.tr("× {rails} rails").format(rails=inter["rails"]),
                    )
                    if x
                )
                or None,
                own(
                    "offering.inter_node.fabric",
                    own("offering.inter_node.bandwidth_gbit_s", inter.get("source")),
                ),
            )
        )
        parts.append(fact(self.tr("RDMA"), inter.get("rdma"), own("offering.inter_node.rdma")))
        parts.append(fact(self.tr("Max nodes"), row.get("max_nodes"), own("offering.max_nodes")))
        # Each value keeps its place; "?" where the source does not say (a dropped value would shift the rest).
        machine = (row.get("cpu"), row.get("vcpus"), row.get("ram_gib"))
        parts.append(
            fact(
                self.tr("CPU / vCPUs / RAM GiB"),
                None
                if all(x is None for x in machine)
                else " / ".join(
                    "?" if x is None else f"{x:g}" if isinstance(x, float) else str(x) for x in machine
                ),
            )
        )
        parts.append(
            fact(
                self.tr("Local NVMe (TB)"),
                storage.get("local_nvme_tb"),
                own("offering.storage.local_nvme_tb", storage.get("source")),
            )
        )
        parts.append(
            fact(self.tr("Shared file system"), storage.get("shared_fs"), own("offering.storage.shared_fs"))
        )
        parts.append(fact(self.tr("BMC/IPMI"), row.get("bmc_ipmi"), own("offering.bmc_ipmi")))
        parts.append(
            fact(self.tr("Power redundancy"), row.get("power_redundancy"), own("offering.power_redundancy"))
        )
        parts.append(fact(self.tr("Cooling"), row.get("cooling"), own("offering.cooling")))
        price = row.get("min_gpu_hour")
        parts.append(
            fact(
                self.tr("Lowest price per GPU-hour"),
                None if price is None else f"{price:,.2f} {row.get('currency') or ''}",
                own("offering.price.gpu_hour", own("offering.price.node_month")),
            )
        )
        parts.append(fact(self.tr("Source"), row.get("source"), row.get("as_of")))
        parts.append("</table>")
        if reference:
            heading = self.tr("GPU reference: {name}").format(name=reference.get("name"))
            parts.append(f"<h4>{e(heading)}</h4><table>")
            parts.append(fact(self.tr("Memory (GB)"), reference.get("memory_gb")))
            parts.append(fact(self.tr("BF16 dense TFLOPS"), reference.get("bf16_dense_tflops")))
            parts.append(
                fact(
                    self.tr("Interconnect (GB/s, bidirectional)"),
                    reference.get("interconnect_gbytes_s_bidir"),
                )
            )
            parts.append("</table>")
        catalog = self.view.catalogs.provider(row["provider"]) if self.view else None
        if catalog is not None:
            heading = self.tr("Regions of {provider}").format(provider=catalog.provider.name)
            parts.append(f"<h4>{e(heading)}</h4><p>")
            for region in catalog.regions:
                badges = " ".join(
                    f"<span style='background:{BADGE_COLOURS.get(t, '#9e9e9e')};color:white'>&nbsp;{e(badge_label(t))}&nbsp;</span>"
                    for t in region.line_types
                )
                endpoints = self.tr("%n probe endpoint(s)", "", len(region.endpoints))
                parts.append(f"{e(region.id)} ({e(region.city or '?')}) {badges} · {e(endpoints)}<br>")
            parts.append("</p>")
            service = catalog.service
            if service is not None:
                service_title = self.tr("Service")
                parts.append(f"<h4>{e(service_title)}</h4><table>")
                parts.append(fact(self.tr("Support"), service.support_hours))
                parts.append(fact(self.tr("SLA uptime %"), service.sla_uptime_percent))
                parts.append(
                    fact(
                        self.tr("DDoS protection"),
                        service.ddos_protection
                        or (service.ddos_protection_gbit_s and f"{service.ddos_protection_gbit_s:g} Gbit/s"),
                    )
                )
                parts.append(fact(self.tr("Delivery (days)"), service.delivery_days))
                parts.append(fact(self.tr("Billing"), ", ".join(service.billing) or None))
                parts.append("</table>")
        return "".join(parts)

    def add_selected_region(self) -> int:
        """Put the chosen region's probe endpoints on the probe list; how many were new."""
        row = self.selected_row()
        region_id = self.region.currentData()
        if row is None or region_id is None or self.view is None:
            return 0
        entries, problems = entries_from_region(self.view.catalogs, row["provider"], str(region_id))
        added = self.context.targets.add(entries)
        message = self.tr(
            "{added} of {total} endpoints of {provider}/{region} added to the probe list."
        ).format(added=added, total=len(entries), provider=row["provider"], region=region_id)
        if problems:
            message += " " + self.tr("Skipped: {problems}").format(problems="; ".join(problems))
        self.context.reporter.info(message)
        return added

    def provider_file(self) -> Path | None:
        row = self.selected_row()
        catalog = self.view.catalogs.provider(row["provider"]) if row and self.view else None
        return catalog.path if catalog is not None else None

    def open_provider_file(self) -> None:
        path = self.provider_file()
        if path is not None and not QDesktopServices.openUrl(QUrl.fromLocalFile(str(path))):
            self.context.reporter.info(self.tr("No application opens {path} here.").format(path=path))

    # -- language ----------------------------------------------------------------------------------------

    def retranslate(self) -> None:
        self.title.setText(self.tr("Catalog"))
        self.search.setPlaceholderText(self.tr("Search provider, offering, GPU, region…"))
        self.gpu.setItemText(0, self.tr("all GPUs"))
        self.gpu_label.setText(self.tr("GPU"))
        self.provider_label.setText(self.tr("Provider"))
        if self.provider.count():
            self.provider.setItemText(0, self.tr("all providers"))
        self.nvlink.setText(self.tr("NVLink/NVSwitch only"))
        self.region_label.setText(self.tr("Region"))
        self.add_region.setText(self.tr("Add its probe endpoints to the probe list"))
        self.open_file.setText(self.tr("Open the provider's catalog file"))
        self.model.contradicted_text = self.tr("{fact}: contradicted by a trial server ({source})")
        self.model.set_headers(
            [
                self.tr("Provider"),
                self.tr("Offering"),
                self.tr("GPU"),
                self.tr("GPUs/node"),
                self.tr("GB/GPU"),
                self.tr("BF16 TFLOPS"),
                self.tr("In the node"),
                self.tr("Between nodes"),
                self.tr("Max nodes"),
                self.tr("Regions"),
                self.tr("From $/GPU-h"),
                self.tr("As of"),
            ]
        )
        if self.view is not None:
            self._filter()
            self._show_selected()

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)


def _tagged_load(load: int, db: StoreLocation | None) -> tuple[int, tuple[CatalogView, set[tuple[str, str]]]]:
    return load, load_screen(db)
