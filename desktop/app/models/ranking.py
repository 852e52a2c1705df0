"""The scorecard's models: the ranked candidates (`catalogs.scoring.Ranking.entries`, each score with the
range its unknowns leave and the share known) and, for the selected one, its per-criterion breakdown (gates with pass/fail/unknown, weighted criteria with score × weight, each
with its reason and the source of the fact it rests on)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from PySide6.QtCore import QModelIndex, QObject, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor

from catalogs.scoring import Judgement, RankedOffering
from desktop.app.models._table import HeaderedTableModel

Index = QModelIndex | QPersistentModelIndex
PASS, FAIL, UNKNOWN = "#2e7d32", "#c62828", "#b26a00"  # unknown: a dark amber, legible on white


class RankingModel(HeaderedTableModel):
    """The ranked candidates: after the rank, the figure that orders them (`RankedOffering.rating`: the score
    at worst by default, TOPSIS's closeness with that method), its header naming it, so the order and the
    figure beside the rank agree; then the score with its range and the share known."""

    RANK, RATING, SCORE, GATES, PROVIDER, OFFERING, REGION, GPU, PLAN, PRICE, UNKNOWNS = range(11)
    HEADERS = (
        "#",
        "At worst",
        "Score",
        "Gates",
        "Provider",
        "Offering",
        "Region",
        "GPU",
        "Plan",
        "$/GPU-h",
        "Unknown",
    )
    EntryRole = Qt.ItemDataRole.UserRole + 1

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._entries: list[RankedOffering] = []
        self.words = {
            "pass": "pass",
            "unchecked": "pass (unchecked: {gates})",
            "fail": "fail: {gates}",
            "region?": "not stated",
            "nodes": "{gpus} GPUs / {nodes} nodes",
        }

    def set_entries(self, entries: Sequence[RankedOffering]) -> None:
        self.beginResetModel()
        self._entries = list(entries)
        self.endResetModel()

    def entries(self) -> list[RankedOffering]:
        return list(self._entries)

    def entry(self, row: int) -> RankedOffering:
        return self._entries[row]

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._entries)

    @staticmethod
    def score_text(entry: RankedOffering) -> str:
        """The score, the range its unknowns leave (worst–best) and the share of the weight known: numbers
        only, the same in every language."""
        return f"{entry.total:.3f} ({entry.score_min:.2f}–{entry.score_max:.2f}, {entry.coverage:.0%})"

    @staticmethod
    def unchecked_gates(entry: RankedOffering) -> list[str]:
        """The gates that could not be checked (a fact unknown), by their titles: passed, not shown to hold."""
        return [
            entry.title(j.criterion) for j in entry.judgements if j.kind == "gate" and j.status == "unknown"
        ]

    def _gates(self, entry: RankedOffering) -> str:
        """As `linkvet score` and the workbook say it: "pass", "pass (unchecked: Within budget)", "fail: …"."""
        if not entry.eligible:
            return self.words["fail"].format(
                gates=", ".join(entry.title(j.criterion) for j in entry.failed_gates)
            )
        unchecked = self.unchecked_gates(entry)
        if unchecked:
            return self.words["unchecked"].format(gates=", ".join(unchecked))
        return self.words["pass"]

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        e = self._entries[index.row()]
        column = index.column()
        if role == self.EntryRole:
            return e
        if role == Qt.ItemDataRole.DisplayRole:
            if column == self.RANK:
                return e.rank
            if column == self.PROVIDER:
                return e.provider
            if column == self.OFFERING:
                return e.offering_name or e.offering
            if column == self.REGION:
                return e.region or self.words["region?"]
            if column == self.GPU:
                return f"{e.gpus_per_node or '?'} × {e.gpu or '?'}"
            if column == self.PLAN:
                if e.planned_gpus is None:
                    return "?"
                return self.words["nodes"].format(gpus=e.planned_gpus, nodes=e.nodes or "?")
            if column == self.PRICE:
                return (
                    "?" if e.price_gpu_hour is None else f"{e.price_gpu_hour:,.2f} {e.currency or ''}".strip()
                )
            if column == self.RATING:
                return f"{e.rating:.3f}"
            if column == self.SCORE:
                return self.score_text(e)
            if column == self.GATES:
                return self._gates(e)
            if column == self.UNKNOWNS:
                return len(e.unknowns)
        if role == Qt.ItemDataRole.ForegroundRole and column == self.GATES:
            return QBrush(QColor(FAIL if not e.eligible else UNKNOWN if self.unchecked_gates(e) else PASS))
        if role == Qt.ItemDataRole.ForegroundRole and not e.eligible:
            return QBrush(QColor("#90a4ae"))
        if role == Qt.ItemDataRole.TextAlignmentRole and column in (
            self.RANK,
            self.RATING,
            self.PRICE,
            self.SCORE,
            self.UNKNOWNS,
        ):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._gates(e) if column == self.GATES else e.label
        return None


class BreakdownModel(HeaderedTableModel):
    CRITERION, KIND, RESULT, WEIGHT, COUNTED, REASON, SOURCE = range(7)
    HEADERS = ("Criterion", "Kind", "Result", "Weight", "Counts", "Why", "Source")

    def __init__(self, parent: QObject | None = None, title: Callable[[str], str] | None = None) -> None:
        super().__init__(parent)
        self._rows: list[Judgement] = []
        self.title = title or (lambda criterion: criterion)
        self.words = {
            "gate": "gate",
            "weighted": "weighted",
            "unknown": "unknown",
            "pass": "pass",
            "fail": "fail",
            "n/a": "n/a",
        }

    def set_judgements(self, judgements: Sequence[Judgement]) -> None:
        self.beginResetModel()
        self._rows = list(judgements)
        self.endResetModel()

    def judgements(self) -> list[Judgement]:
        return list(self._rows)

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._rows)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        j = self._rows[index.row()]
        column = index.column()
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            if column == self.CRITERION:
                return self.title(j.criterion)
            if column == self.KIND:
                return self.words.get(j.kind, j.kind)
            if column == self.RESULT:
                if j.kind == "gate":
                    return self.words.get(j.status, j.status)
                return self.words["unknown"] if j.score is None else f"{j.score:.2f}"
            if column == self.WEIGHT:
                return "" if j.kind == "gate" else f"{j.weight:g}"
            if column == self.COUNTED:
                return "" if j.kind == "gate" or j.counted is None else f"{j.counted:.2f}"
            if column == self.REASON:
                return j.reason
            if column == self.SOURCE:
                text = j.source_text or ""
                if role == Qt.ItemDataRole.DisplayRole and len(text) > 70:
                    return text[:68] + "…"  # the whole source is in the tooltip
                return text
        if role == Qt.ItemDataRole.ForegroundRole and column == self.RESULT:
            if j.unknown:
                return QBrush(QColor(UNKNOWN))
            if j.kind == "gate":
                return QBrush(QColor(PASS if j.status == "pass" else FAIL))
            return QBrush(
                QColor(PASS if (j.score or 0) >= 0.7 else FAIL if (j.score or 0) < 0.3 else "#ef6c00")
            )
        return None
