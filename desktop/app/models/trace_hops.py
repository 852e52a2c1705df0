"""The Routes screen's hop table: one row per TTL of the traced path, filled as the answers arrive (mtr's
way: every probe sent to a TTL counts, over every trace of the run).

A row holds the TTL's answers in arrival order; its figures are `probes.stats.summarize` over them (loss =
lost / sent; last, mean, best and worst RTT of the answered probes), its address the one that answered most
often (others show in the tooltip: a load-balanced hop), its network the table's label, AS and prefix as
the child process found them. Once the destination answered, TTLs past it are dropped, as the tracer drops
the probes it sent past the destination before that answer came.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from PySide6.QtCore import QModelIndex, QObject, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor

from desktop.app.models._table import HeaderedTableModel
from probes.stats import Summary, summarize

Index = QModelIndex | QPersistentModelIndex
SPARK_POINTS = 40
RED = QBrush(QColor("#c62828"))
RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)


@dataclass
class HopRow:
    ttl: int
    rtts: list[float | None] = field(default_factory=list)  # per probe, in arrival order (None: lost)
    addresses: Counter[str] = field(default_factory=Counter)
    networks: dict[str, tuple[str | None, int | None, str | None]] = field(default_factory=dict)
    reached: bool = False
    summary: Summary = field(default_factory=lambda: summarize([]))

    @property
    def address(self) -> str | None:
        return self.addresses.most_common(1)[0][0] if self.addresses else None

    @property
    def last_ms(self) -> float | None:
        answered = [r for r in self.rtts if r is not None]
        return answered[-1] if answered else None

    def network_text(self) -> str:
        """`CN2 AS4809 59.43.0.0/16` for the main address; empty when it is in no listed network."""
        address = self.address
        label, asn, cidr = self.networks.get(address or "", (None, None, None))
        if label is None:
            return ""
        return " ".join(part for part in (label, f"AS{asn}" if asn else None, cidr) if part)

    def spark(self) -> np.ndarray:
        values = [math.nan if r is None else r for r in self.rtts[-SPARK_POINTS:]]
        return np.array(values, dtype=np.float64)


class TraceHopsModel(HeaderedTableModel):
    HOP, ADDRESS, NETWORK, LOSS, SENT, LAST, AVG, BEST, WORST, TREND = range(10)
    HEADERS = (
        "Hop",
        "Address",
        "Network",
        "Loss",
        "Sent",
        "Last ms",
        "Avg ms",
        "Best ms",
        "Worst ms",
        "Trend",
    )
    SparkRole = Qt.ItemDataRole.UserRole + 1

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._rows: list[HopRow] = []
        self.destination_text = "(destination)"
        self.also_text = "also answered: {addresses}"

    def clear(self) -> None:
        self.beginResetModel()
        self._rows = []
        self.endResetModel()

    def rows(self) -> list[HopRow]:
        return list(self._rows)

    def add_replies(self, replies: Iterable[Sequence[Any]]) -> None:
        """Fold in answers: (ttl, probe, kind, address, rtt_ms, label, asn, cidr) each."""
        by_ttl = {row.ttl: row for row in self._rows}
        for ttl, _probe, kind, address, rtt_ms, label, asn, cidr in replies:
            row = by_ttl.get(ttl)
            if row is None:
                row = by_ttl[ttl] = HopRow(ttl)
            row.rtts.append(rtt_ms)
            if address is not None:
                row.addresses[address] += 1
                row.networks[address] = (label, asn, cidr)
            if kind == "reached":
                row.reached = True
        reached = [ttl for ttl, row in by_ttl.items() if row.reached]
        limit = min(reached) if reached else None
        rows = sorted(
            (row for ttl, row in by_ttl.items() if limit is None or ttl <= limit), key=lambda r: r.ttl
        )
        for row in rows:
            row.summary = summarize(row.rtts)
        if [r.ttl for r in rows] == [r.ttl for r in self._rows]:
            self._rows = rows
            if rows:
                self.dataChanged.emit(self.index(0, 0), self.index(len(rows) - 1, self.columnCount() - 1))
            return
        self.beginResetModel()
        self._rows = rows
        self.endResetModel()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 - Qt's signature
        return 0 if parent.isValid() else len(self._rows)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        row, column = self._rows[index.row()], index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return self._display(row, column)
        if role == self.SparkRole and column == self.TREND:
            return row.spark()
        if role == Qt.ItemDataRole.TextAlignmentRole and column not in (self.ADDRESS, self.NETWORK):
            return RIGHT
        if role == Qt.ItemDataRole.ForegroundRole and column == self.LOSS and (row.summary.loss or 0) > 0:
            return RED
        if role == Qt.ItemDataRole.ToolTipRole and column == self.ADDRESS and len(row.addresses) > 1:
            others = [a for a, _ in row.addresses.most_common()[1:]]
            return self.also_text.format(addresses=", ".join(others))
        return None

    def _display(self, row: HopRow, column: int) -> str:
        s = row.summary
        if column == self.HOP:
            return str(row.ttl)
        if column == self.ADDRESS:
            address = row.address or "*"
            return f"{address} (+{len(row.addresses) - 1})" if len(row.addresses) > 1 else address
        if column == self.NETWORK:
            text = row.network_text()
            return f"{text} {self.destination_text}".strip() if row.reached else text
        if column == self.LOSS:
            return "" if s.loss is None else f"{s.loss * 100:.1f}%"
        if column == self.SENT:
            return str(s.sent)
        if column == self.LAST:
            return _ms(row.last_ms)
        if column == self.AVG:
            return _ms(s.rtt_mean_ms)
        if column == self.BEST:
            return _ms(s.rtt_min_ms)
        if column == self.WORST:
            return _ms(s.rtt_max_ms)
        return ""


def _ms(value: float | None) -> str:
    if value is None:
        return ""
    return f"{value:.3f}" if value < 10 else f"{value:.1f}"
