"""The Probe screen's live table: one row per target of the running probe, filled as samples arrive.

While a target runs its figures are computed from the samples received so far with `probes.stats.summarize`
(the definitions the CLI and the store use); when the target finishes, its `ProbeResult` replaces them and
any error shows in the row's status.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from PySide6.QtCore import QModelIndex, QModelRoleData, QModelRoleDataSpan, QObject, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor

from desktop.app.models._table import HeaderedTableModel
from probes.results import ProbeResult, Sample, timed_by
from probes.stats import Summary, summarize
from probes.target import Method, Target

Index = QModelIndex | QPersistentModelIndex
SPARK_POINTS = 60  # the sparkline shows the last this-many attempts
RED = QBrush(QColor("#c62828"))
RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)  # computed once: enum "|" is slow


@dataclass
class LiveRow:
    target: Target
    expected: int  # attempts the run will make
    rtts: dict[int, float | None] = field(default_factory=dict)  # seq -> RTT ms or None (lost)
    sent_us: dict[int, int] = field(default_factory=dict)  # seq -> when it was sent (UTC µs)
    last_rtt_ms: float | None = None
    last_lost: bool = False
    summary: Summary = field(default_factory=lambda: summarize([]))
    result: ProbeResult | None = None
    version: int = 0  # bumped on every change, so a chart can skip redrawing what did not change
    _spark: tuple[int, np.ndarray] | None = field(default=None, repr=False, compare=False)

    @property
    def state(self) -> str:
        if self.result is not None:
            return "error" if self.result.error else "done"
        return "running" if self.rtts else "waiting"

    def spark(self) -> np.ndarray:
        """RTTs of the last SPARK_POINTS attempts in send order, NaN where lost (kept until the row changes:
        the table repaints rows that did not)."""
        if self._spark is None or self._spark[0] != self.version:
            seqs = sorted(self.rtts)[-SPARK_POINTS:]
            values = [math.nan if self.rtts[s] is None else self.rtts[s] for s in seqs]
            self._spark = (self.version, np.array(values, dtype=np.float64))
        return self._spark[1]

    def live_xy(self) -> tuple[np.ndarray, np.ndarray]:
        """(send times as epoch seconds, RTT ms with NaN where lost), in send order."""
        seqs = sorted(self.rtts)
        x = np.array([self.sent_us[s] / 1e6 for s in seqs], dtype=np.float64)
        y = np.array([math.nan if self.rtts[s] is None else self.rtts[s] for s in seqs], dtype=np.float64)
        return x, y


class LiveProbeModel(HeaderedTableModel):
    TARGET, METHOD, LINE_TYPE, PROGRESS, LAST, MEDIAN, P95, LOSS, JITTER, TREND, STATUS = range(11)
    HEADERS = (
        "Target",
        "Method",
        "Line",
        "Sent",
        "Last ms",
        "Median ms",
        "P95 ms",
        "Loss",
        "Jitter ms",
        "Trend",
        "Status",
    )
    SparkRole = Qt.ItemDataRole.UserRole + 1
    RowRole = Qt.ItemDataRole.UserRole + 2

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.shown_names: dict[str, str] = {}  # a default target's name, translated (the probe list's)
        self._rows: list[LiveRow] = []
        self._by_key: dict[str, int] = {}
        self.state_texts = {
            "waiting": "waiting",
            "running": "running",
            "done": "done",
            "error": "error",
        }
        self.lost_text = "lost"

    # -- filling ------------------------------------------------------------------------------------------

    def start(self, targets: Sequence[Target], expected: Sequence[int]) -> None:
        """A new run: one waiting row per target, `expected[i]` attempts each."""
        self.beginResetModel()
        self._rows = [LiveRow(t, n) for t, n in zip(targets, expected, strict=True)]
        self._by_key = {row.target.key: i for i, row in enumerate(self._rows)}
        self.endResetModel()

    def attempts(self) -> tuple[int, int]:
        """(attempts made, attempts the run will make) over every row: what the progress bar counts, so it
        moves with every round of attempts, not only when a target finishes."""
        expected = made = 0
        for live in self._rows:
            expected += live.expected
            made += live.expected if live.result is not None else min(len(live.rtts), live.expected)
        return made, expected

    def _row_of(self, target: Target) -> int | None:
        row = self._by_key.get(target.key)
        if row is None and target.method is Method.TCP:
            # An ICMP target measured over TCP (ICMP not permitted here) reports under its TCP twin.
            twin = self._by_key.get(f"icmp:{target.host}")
            if twin is not None and self._rows[twin].target.port == target.port:
                self._by_key[target.key] = twin
                row = twin
        return row

    def add_samples(
        self,
        samples: Iterable[tuple[str, int, int, float | None, object]],
        summaries: Mapping[str, Summary] | None = None,
    ) -> None:
        """Fold in samples that arrived since the last call: (target key, seq, sent_at_us, rtt_ms or None,
        error), one notification for all changed rows. `summaries` (key → live summary) saves computing
        them here when the producer did."""
        changed: set[int] = set()
        for key, seq, sent_at_us, rtt_ms, _error in samples:
            row = self._by_key.get(key)
            if row is None or self._rows[row].result is not None:
                continue
            live = self._rows[row]
            live.rtts[seq] = rtt_ms
            live.sent_us[seq] = sent_at_us
            live.last_rtt_ms = rtt_ms
            live.last_lost = rtt_ms is None
            live.version += 1
            changed.add(row)
        known = summaries or {}
        for row in changed:
            live = self._rows[row]
            given = known.get(live.target.key)
            live.summary = (
                given if given is not None else summarize([live.rtts[s] for s in sorted(live.rtts)])
            )
        if changed:  # only the figures change while a target runs: the name and badge cells stay as drawn
            self.dataChanged.emit(
                self.index(min(changed), self.PROGRESS), self.index(max(changed), self.columnCount() - 1)
            )

    def add_sample_objects(self, items: Iterable[tuple[Target, Sample]]) -> None:
        """`add_samples` for (Target, Sample) pairs, as the runner's sample hook passes them."""
        self.add_samples((t.key, s.seq, s.sent_at_us, s.rtt_ms, s.error) for t, s in items)

    def finish_target(self, result: ProbeResult) -> None:
        """A target finished: its result is now the row's truth."""
        self.finish_targets([result])

    def finish_targets(self, results: Iterable[ProbeResult]) -> None:
        """Several targets finished (one notification for all of them)."""
        changed = [row for row in (self._finish(r) for r in results) if row is not None]
        if changed:
            self.dataChanged.emit(
                self.index(min(changed), 0), self.index(max(changed), self.columnCount() - 1)
            )

    def _finish(self, result: ProbeResult) -> int | None:
        row = self._row_of(result.target)
        if row is None:
            return None
        live = self._rows[row]
        if live.result is result:
            return None
        live.version += 1
        live.result = result
        live.summary = result.summary
        if result.samples and len(live.rtts) != len(result.samples):  # else the live samples are all there
            live.rtts = {s.seq: s.rtt_ms for s in result.samples}
            live.sent_us = {s.seq: s.sent_at_us for s in result.samples}
            last = max(result.samples, key=lambda s: s.seq)
            live.last_rtt_ms, live.last_lost = last.rtt_ms, last.rtt_ms is None
        return row

    # -- reading ------------------------------------------------------------------------------------------

    def rows(self) -> list[LiveRow]:
        return list(self._rows)

    def row(self, number: int) -> LiveRow:
        return self._rows[number]

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._rows)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        return self._value(self._rows[index.row()], index.column(), role)

    def multiData(self, index: Index, roleDataSpan: QModelRoleDataSpan | QModelRoleData) -> None:
        """Every role the view asks for a cell in one call (the view asks ~8 per cell and repaint): a third
        fewer Python calls per table repaint than one `data()` call per role."""
        if not index.isValid():
            return
        live = self._rows[index.row()]
        column = index.column()
        if isinstance(roleDataSpan, QModelRoleData):  # one role: Python callers may pass one, as Qt allows
            roleDataSpan.setData(self._value(live, column, roleDataSpan.role()))
            return
        # The binding gives QModelRoleDataSpan len() and indexing; PySide6's stub leaves them out.
        for i in range(len(roleDataSpan)):  # type: ignore[arg-type]
            entry = roleDataSpan[i]  # type: ignore[index]
            entry.setData(self._value(live, column, entry.role()))

    def _value(self, live: LiveRow, column: int, role: int) -> Any:
        if role == Qt.ItemDataRole.DisplayRole:
            return self._display(live, column)
        if role == self.RowRole:
            return live
        if role == self.SparkRole and column == self.TREND:
            return live.spark()
        if role == Qt.ItemDataRole.ToolTipRole:
            if column == self.STATUS and live.result is not None:
                return self._status(live)
            if column == self.TARGET:
                return live.target.url or live.target.host
            if column == self.METHOD and live.result is not None:
                return timed_by(live.result.metrics) or None  # which probe backend, who timed: linux/kernel
            return None
        if role == Qt.ItemDataRole.TextAlignmentRole and self.PROGRESS <= column <= self.JITTER:
            return RIGHT
        if role == Qt.ItemDataRole.ForegroundRole:
            if column == self.STATUS and live.state == "error":
                return RED
            if column == self.LOSS and (live.summary.loss or 0) > 0:
                return RED
            if column == self.LAST and live.last_lost:
                return RED
        return None

    def _display(self, live: LiveRow, column: int) -> str:
        s = live.summary
        if column == self.TARGET:
            return self.shown_names.get(live.target.name, live.target.name)
        if column == self.METHOD:
            measured = live.result.target.method if live.result is not None else live.target.method
            return str(measured)
        if column == self.LINE_TYPE:
            return live.target.line_type or ""
        if column == self.PROGRESS:
            return f"{len(live.rtts)}/{live.expected}"
        if column == self.LAST:
            if live.last_lost:
                return self.lost_text
            return _ms(live.last_rtt_ms)
        if column == self.MEDIAN:
            return _ms(s.rtt_median_ms)
        if column == self.P95:
            return _ms(s.rtt_p95_ms)
        if column == self.LOSS:
            return "" if s.loss is None else f"{s.loss * 100:.1f}%"
        if column == self.JITTER:
            return _ms(s.jitter_ms)
        if column == self.STATUS:
            return self._status(live)
        return ""

    def _status(self, live: LiveRow) -> str:
        state = self.state_texts.get(live.state, live.state)
        result = live.result
        if result is None:
            return state
        if result.error is not None:
            return f"{state}: {result.error} — {result.message or ''}".rstrip(" —")
        return f"{state}: {result.message}" if result.message else state


def _ms(value: float | None) -> str:
    if value is None:
        return ""
    return f"{value:.3f}" if value < 10 else f"{value:.1f}"
