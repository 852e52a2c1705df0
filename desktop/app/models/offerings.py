"""The Catalog screen's table: one row per offering (`desktop.usecases.offerings.rows_with_reference`), and a
filter proxy (text, GPU, provider, interconnect) that sorts numbers as numbers. Unknown facts show as "?"; a
fact a trial server contradicted (`linkvet accept import`) is marked in its cell (✗, red, its tooltip says
which), not carried along with the verified part of the cell."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from PySide6.QtCore import (
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
)
from PySide6.QtGui import QBrush, QColor

from catalogs.interconnects import fabric_name, intra_node_name
from desktop.app.models._table import HeaderedTableModel

Index = QModelIndex | QPersistentModelIndex
UNKNOWN = "?"
CONTRADICTED = "✗"
RED = "#c62828"


def _number(value: Any, digits: int = 0) -> str:
    if value is None:
        return UNKNOWN
    return f"{value:,.{digits}f}" if isinstance(value, float) else str(value)


class OfferingsModel(HeaderedTableModel):
    (PROVIDER, OFFERING, GPU, PER_NODE, MEMORY, TFLOPS, INTRA, FABRIC, MAX_NODES, REGIONS, PRICE, AS_OF) = (
        range(12)
    )
    HEADERS = (
        "Provider",
        "Offering",
        "GPU",
        "GPUs/node",
        "GB/GPU",
        "BF16 TFLOPS",
        "In the node",
        "Between nodes",
        "Max nodes",
        "Regions",
        "From $/GPU-h",
        "As of",
    )
    RowRole = Qt.ItemDataRole.UserRole + 1
    SortRole = Qt.ItemDataRole.UserRole + 2
    # The facts each column shows (keys of a row's `fact_sources`).
    FACTS: ClassVar[dict[int, tuple[str, ...]]] = {
        1: ("offering.name",),
        2: ("offering.gpu",),
        3: ("offering.gpus_per_node",),
        4: ("offering.gpu_memory_gb",),
        6: ("offering.intra_node.kind", "offering.intra_node.bandwidth_gbytes_s"),
        7: ("offering.inter_node.fabric", "offering.inter_node.bandwidth_gbit_s"),
        8: ("offering.max_nodes",),
        10: ("offering.price.gpu_hour", "offering.price.node_hour", "offering.price.node_month"),
    }

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._rows: list[dict[str, Any]] = []
        self.contradicted_text = "{fact}: contradicted ({source})"  # the screen passes it translated

    def set_rows(self, rows: Sequence[dict[str, Any]]) -> None:
        self.beginResetModel()
        self._rows = list(rows)
        self.endResetModel()

    def row(self, number: int) -> dict[str, Any]:
        return self._rows[number]

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._rows)

    @staticmethod
    def memory(row: dict[str, Any]) -> float | None:
        reference = row.get("reference") or {}
        return row.get("gpu_memory_gb") or reference.get("memory_gb")

    def value(self, row: dict[str, Any], column: int) -> Any:
        """The raw value of a cell (what sorting uses; None when unknown)."""
        reference = row.get("reference") or {}
        intra = row.get("intra_node") or {}
        inter = row.get("inter_node") or {}
        return {
            self.PROVIDER: row.get("provider"),
            self.OFFERING: row.get("name") or row.get("id"),
            self.GPU: row.get("gpu"),
            self.PER_NODE: row.get("gpus_per_node"),
            self.MEMORY: self.memory(row),
            self.TFLOPS: reference.get("bf16_dense_tflops"),
            self.INTRA: intra.get("kind"),
            self.FABRIC: inter.get("fabric"),
            self.MAX_NODES: row.get("max_nodes"),
            self.REGIONS: len(row.get("regions") or []),
            self.PRICE: row.get("min_gpu_hour"),
            self.AS_OF: row.get("as_of"),
        }[column]

    def contradicted(self, row: dict[str, Any], column: int) -> list[dict[str, Any]]:
        """The facts of this cell a trial server contradicted."""
        sources = row.get("fact_sources") or {}
        return [
            sources[key]
            for key in self.FACTS.get(column, ())
            if key in sources and sources[key].get("standing") == "contradicted"
        ]

    def text(self, row: dict[str, Any], column: int) -> str:
        shown = self._text(row, column)
        return f"{shown} {CONTRADICTED}" if self.contradicted(row, column) else shown

    def _text(self, row: dict[str, Any], column: int) -> str:
        intra = row.get("intra_node") or {}
        inter = row.get("inter_node") or {}
        if column == self.INTRA:
            if not intra.get("kind"):
                return UNKNOWN
            bandwidth = intra.get("bandwidth_gbytes_s")
            return intra_node_name(intra["kind"]) + (f" {bandwidth:g} GB/s" if bandwidth else "")
        if column == self.FABRIC:
            if not inter.get("fabric"):
                return UNKNOWN
            rate = inter.get("bandwidth_gbit_s")
            return fabric_name(inter["fabric"]) + (f" {rate:g} Gb/s" if rate else "")
        if column == self.PRICE:
            price = row.get("min_gpu_hour")
            return UNKNOWN if price is None else f"{price:,.2f} {row.get('currency') or ''}".strip()
        if column == self.MEMORY:
            return _number(self.memory(row))
        value = self.value(row, column)
        return UNKNOWN if value is None else str(value)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        row = self._rows[index.row()]
        column = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return self.text(row, column)
        if role == self.SortRole:
            value = self.value(row, column)
            if value is None:
                return float("inf") if column == self.PRICE else float("-inf")
            return value.lower() if isinstance(value, str) else value
        if role == self.RowRole:
            return row
        if role == Qt.ItemDataRole.ToolTipRole:
            against = self.contradicted(row, column)
            if against:
                return "\n".join(
                    self.contradicted_text.format(fact=f["fact"], source=f.get("source") or "?")
                    for f in against
                )
            return row.get("notes") or row.get("source")
        if role == Qt.ItemDataRole.ForegroundRole and self.contradicted(row, column):
            return QBrush(QColor(RED))
        if role == Qt.ItemDataRole.TextAlignmentRole and column in (
            self.PER_NODE,
            self.MEMORY,
            self.TFLOPS,
            self.MAX_NODES,
            self.REGIONS,
            self.PRICE,
        ):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None


class OfferingsFilter(QSortFilterProxyModel):
    """Filters on free text, GPU family, provider and intra-node interconnect; numbers sort as numbers."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.text = ""
        self.gpu = ""
        self.provider = ""
        self.nvlink_only = False
        self.setSortRole(OfferingsModel.SortRole)

    def set_filters(
        self, *, text: str = "", gpu: str = "", provider: str = "", nvlink_only: bool = False
    ) -> None:
        self.beginFilterChange()
        self.text, self.gpu, self.provider = text.lower().strip(), gpu, provider
        self.nvlink_only = nvlink_only
        self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def lessThan(self, left: Index, right: Index) -> bool:
        a, b = left.data(self.sortRole()), right.data(self.sortRole())
        if type(a) is not type(b):
            return str(a) < str(b)
        return bool(a < b)

    def filterAcceptsRow(self, source_row: int, source_parent: Index) -> bool:
        model = self.sourceModel()
        assert isinstance(model, OfferingsModel)
        row = model.row(source_row)
        if self.provider and row.get("provider") != self.provider:
            return False
        if self.gpu and not str(row.get("gpu") or "").upper().startswith(self.gpu.upper()):
            return False
        if self.nvlink_only and (row.get("intra_node") or {}).get("kind") not in ("nvlink", "nvswitch"):
            return False
        if self.text:
            haystack = " ".join(
                str(v)
                for v in (
                    row.get("provider"),
                    row.get("id"),
                    row.get("name"),
                    row.get("gpu"),
                    " ".join(row.get("regions") or []),
                    row.get("notes"),
                )
                if v
            ).lower()
            return all(word in haystack for word in self.text.split())
        return True
