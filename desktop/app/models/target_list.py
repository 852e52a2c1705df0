"""The probe list as a table (the Targets screen's): one row per `desktop.usecases.probe_list.TargetEntry`,
column 0 with the on/off check box. Reading and writing the list's file is `ProbeListFile`'s."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from PySide6.QtCore import QModelIndex, QObject, QPersistentModelIndex, Qt

from desktop.app.models._table import HeaderedTableModel
from desktop.usecases.probe_list import TargetEntry
from probes.target import Target

Index = QModelIndex | QPersistentModelIndex


class TargetListModel(HeaderedTableModel):
    """The probe list as a table; column 0 carries the on/off check box."""

    NAME, METHOD, ADDRESS, PROVIDER, REGION, LINE_TYPE, ORIGIN = range(7)
    HEADERS = ("Name", "Method", "Address", "Provider", "Region", "Line type", "From")
    EntryRole = Qt.ItemDataRole.UserRole + 1

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._entries: list[TargetEntry] = []
        # The screen's translations of the words the list's file keeps in English: a default target's name,
        # and where an entry came from ("custom", "catalog", "plan:NAME" as "plan: {name}").
        self.shown_names: dict[str, str] = {}
        self.origin_words: dict[str, str] = {}

    def origin_text(self, origin: str) -> str:
        kind, colon, name = origin.partition(":")
        if colon:
            return self.origin_words.get(f"{kind}:", origin).format(name=name)
        return self.origin_words.get(origin, origin)

    # -- reading ------------------------------------------------------------------------------------------

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._entries)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        entry = self._entries[index.row()]
        column = index.column()
        if role == self.EntryRole:
            return entry
        if role == Qt.ItemDataRole.CheckStateRole and column == self.NAME:
            return Qt.CheckState.Checked if entry.enabled else Qt.CheckState.Unchecked
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            t = entry.target
            values = {
                self.NAME: self.shown_names.get(t.name, t.name),
                self.METHOD: str(t.method),
                self.ADDRESS: entry.address,
                self.PROVIDER: t.provider or "",
                self.REGION: t.region or "",
                self.LINE_TYPE: t.line_type or "",
                self.ORIGIN: self.origin_text(entry.origin),
            }
            return values[column]
        return None

    def flags(self, index: Index) -> Qt.ItemFlag:
        base = super().flags(index)
        if index.isValid() and index.column() == self.NAME:
            base |= Qt.ItemFlag.ItemIsUserCheckable
        return base

    def setData(self, index: Index, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        if index.isValid() and index.column() == self.NAME and role == Qt.ItemDataRole.CheckStateRole:
            checked = Qt.CheckState(value) == Qt.CheckState.Checked
            row = index.row()
            self._entries[row] = replace(self._entries[row], enabled=checked)
            self.dataChanged.emit(index, index, [role])
            return True
        return False

    def entries(self) -> list[TargetEntry]:
        return list(self._entries)

    def entry(self, row: int) -> TargetEntry:
        return self._entries[row]

    def enabled_targets(self) -> list[Target]:
        return [e.target for e in self._entries if e.enabled]

    # -- changing -----------------------------------------------------------------------------------------

    def set_entries(self, entries: Iterable[TargetEntry]) -> None:
        self.beginResetModel()
        self._entries = list(entries)
        self.endResetModel()

    def add(self, entries: Iterable[TargetEntry]) -> int:
        """Append entries whose target is not on the list yet (same method and address); how many were new."""
        known = {e.target.key for e in self._entries}
        new = []
        for entry in entries:
            if entry.target.key not in known:
                known.add(entry.target.key)
                new.append(entry)
        if new:
            first = len(self._entries)
            self.beginInsertRows(QModelIndex(), first, first + len(new) - 1)
            self._entries.extend(new)
            self.endInsertRows()
        return len(new)

    def replace_entry(self, row: int, entry: TargetEntry) -> None:
        self._entries[row] = entry
        self.dataChanged.emit(self.index(row, 0), self.index(row, self.columnCount() - 1))

    def remove_rows(self, rows: Iterable[int]) -> None:
        for row in sorted(set(rows), reverse=True):
            self.beginRemoveRows(QModelIndex(), row, row)
            del self._entries[row]
            self.endRemoveRows()

    def set_all_enabled(self, enabled: bool) -> None:
        self._entries = [replace(e, enabled=enabled) for e in self._entries]
        if self._entries:
            self.dataChanged.emit(self.index(0, 0), self.index(len(self._entries) - 1, 0))
