"""The probe list: the targets the user has chosen (typed in, taken from a catalog region, imported from a
plan file), each with its labels and whether it takes part in the next run.

`TargetBook` reads and writes the list as a small versioned JSON file in the data folder; a file it cannot
read is kept aside (renamed `.unreadable`), never overwritten silently.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from PySide6.QtCore import QModelIndex, QObject, QPersistentModelIndex, Qt

from desktop.app.models._table import HeaderedTableModel
from probes.errors import TargetError
from probes.target import Target

TARGET_FILE_VERSION = 1
ORIGIN_CUSTOM = "custom"
LINE_TYPES = ("cn2-gia", "cn2-gt", "bgp", "cmi", "cu-9929", "cu-4837", "163", "standard", "local", "unknown")

Index = QModelIndex | QPersistentModelIndex


@dataclass(frozen=True, slots=True)
class TargetEntry:
    """A target on the probe list: where it came from ("custom", "catalog", "plan:NAME") and if it is on."""

    target: Target
    origin: str = ORIGIN_CUSTOM
    enabled: bool = True

    @property
    def address(self) -> str:
        t = self.target
        if t.url:
            return t.url
        return f"{t.host}:{t.port}" if t.port else str(t.host)

    def as_dict(self) -> dict[str, Any]:
        return {**self.target.as_dict(), "origin": self.origin, "enabled": self.enabled}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TargetEntry:
        target = Target.from_dict(data)
        return cls(target, str(data.get("origin") or ORIGIN_CUSTOM), bool(data.get("enabled", True)))


class TargetFileError(ValueError):
    """The probe-list file cannot be used; the message names the file and the entry."""


class TargetBook:
    """The probe list on disk (JSON with a version)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def load(self) -> list[TargetEntry]:
        """The saved entries; [] when there is no file yet. Raises `TargetFileError` for a bad file."""
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return []
        except OSError as exc:
            raise TargetFileError(f"{self.path}: cannot read the probe list: {exc.strerror or exc}") from exc
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise TargetFileError(f"{self.path}: not valid JSON ({exc})") from exc
        if not isinstance(data, dict) or not isinstance(data.get("targets"), list):
            raise TargetFileError(f"{self.path}: expected an object with a 'targets' list")
        version = data.get("version")
        if not isinstance(version, int) or version > TARGET_FILE_VERSION:
            raise TargetFileError(
                f"{self.path}: probe-list version {version!r} is newer than this linkvet understands "
                f"(up to {TARGET_FILE_VERSION})"
            )
        entries = []
        for number, item in enumerate(data["targets"], start=1):
            try:
                entries.append(TargetEntry.from_dict(item))
            except (TargetError, KeyError, TypeError, ValueError) as exc:
                raise TargetFileError(f"{self.path}: target {number}: {exc}") from exc
        return entries

    def save(self, entries: Iterable[TargetEntry]) -> None:
        """Write atomically (temporary file, then rename)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        payload = {"version": TARGET_FILE_VERSION, "targets": [e.as_dict() for e in entries]}
        temporary = self.path.with_suffix(".tmp")
        temporary.write_text(json.dumps(payload, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        os.replace(temporary, self.path)

    def set_aside(self) -> Path:
        """Move an unreadable file out of the way so a new list can be saved; where it went."""
        aside = self.path.with_suffix(".unreadable")
        os.replace(self.path, aside)
        return aside


class TargetListModel(HeaderedTableModel):
    """The probe list as a table; column 0 carries the on/off check box."""

    NAME, METHOD, ADDRESS, PROVIDER, REGION, LINE_TYPE, ORIGIN = range(7)
    HEADERS = ("Name", "Method", "Address", "Provider", "Region", "Line type", "From")
    EntryRole = Qt.ItemDataRole.UserRole + 1

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._entries: list[TargetEntry] = []

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
                self.NAME: t.name,
                self.METHOD: str(t.method),
                self.ADDRESS: entry.address,
                self.PROVIDER: t.provider or "",
                self.REGION: t.region or "",
                self.LINE_TYPE: t.line_type or "",
                self.ORIGIN: entry.origin,
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
