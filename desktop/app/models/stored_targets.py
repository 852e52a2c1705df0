"""Targets the result store has measurements for (the Charts screen's list: `ChartTarget`, a target as it
was measured under one name and labels, from every vantage point): tick several to compare them."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QModelIndex, QObject, QPersistentModelIndex, Qt

from desktop.app.models._table import HeaderedTableModel

if TYPE_CHECKING:
    from desktop.app.chart_data import ChartTarget

Index = QModelIndex | QPersistentModelIndex


class StoredTargetsModel(HeaderedTableModel):
    NAME, METHOD, LINE_TYPE, REGION = range(4)
    HEADERS = ("Target", "Method", "Line", "Provider / region")
    TargetRole = Qt.ItemDataRole.UserRole + 1

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._targets: list[ChartTarget] = []
        self._checked: set[int] = set()

    def set_targets(self, targets: Iterable[ChartTarget]) -> None:
        """Replace the list, keeping the ticks of targets still on it."""
        self.beginResetModel()
        self._targets = list(targets)
        ids = {t.id for t in self._targets}
        self._checked &= ids
        self.endResetModel()

    def targets(self) -> list[ChartTarget]:
        return list(self._targets)

    def target(self, row: int) -> ChartTarget:
        return self._targets[row]

    def row_of(self, target_id: int) -> int | None:
        return next((i for i, t in enumerate(self._targets) if t.id == target_id), None)

    def checked(self) -> list[ChartTarget]:
        return [t for t in self._targets if t.id in self._checked]

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._targets)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        target = self._targets[index.row()]
        column = index.column()
        if role == self.TargetRole:
            return target
        if role == Qt.ItemDataRole.CheckStateRole and column == self.NAME:
            return Qt.CheckState.Checked if target.id in self._checked else Qt.CheckState.Unchecked
        if role == Qt.ItemDataRole.DisplayRole:
            if column == self.NAME:
                return target.name
            if column == self.METHOD:
                return target.method
            if column == self.LINE_TYPE:
                return target.line_type or ""
            return "/".join(x for x in (target.provider, target.region) if x)
        if role == Qt.ItemDataRole.ToolTipRole:
            return target.key
        return None

    def flags(self, index: Index) -> Qt.ItemFlag:
        base = super().flags(index)
        if index.isValid() and index.column() == self.NAME:
            base |= Qt.ItemFlag.ItemIsUserCheckable
        return base

    def setData(self, index: Index, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        if index.isValid() and index.column() == self.NAME and role == Qt.ItemDataRole.CheckStateRole:
            target_id = self._targets[index.row()].id
            if Qt.CheckState(value) == Qt.CheckState.Checked:
                self._checked.add(target_id)
            else:
                self._checked.discard(target_id)
            self.dataChanged.emit(index, index, [role])
            return True
        return False
