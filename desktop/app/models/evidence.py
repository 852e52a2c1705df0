"""The evaluation home's table: one row per candidate, one column per kind of evidence (the line, latency under
load, throughput and the outbound route once per office; the return route, the vendor's answers, the
acceptance checks and the price once), each cell coloured by its state (`desktop.usecases.evidence`), its text
short (the full sentence is its tooltip), and the actions that would fill it (`cell_actions`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor

from desktop.i18n import vantage_name

if TYPE_CHECKING:  # the evidence (catalogs, analysis) loads in a worker, not with the first screen
    from desktop.usecases.evidence import Cell, EvidenceTable

Index = QModelIndex | QPersistentModelIndex
PER_OFFICE = ("line", "load", "throughput", "route_out")
# Light fills with dark text (legible printed in grey too: each cell also says its state in words).
STATE_COLOURS = {
    "missing": "#eceff1",
    "partial": "#fff3c4",
    "done": "#d7f0d8",
    "contradicted": "#f8d0d0",
}
# What a cell's button does (the screen words and runs them).
MEASURE_NOW, START, ADD_URL, TRACE, SEND_QUESTIONNAIRE, IMPORT_ANSWERS, IMPORT_ACCEPTANCE, COPY_COMMAND = (
    "measure_now",
    "start",
    "add_url",
    "trace",
    "send_questionnaire",
    "import_answers",
    "import_acceptance",
    "copy_command",
)


@dataclass(frozen=True, slots=True)
class Column:
    kind: str
    office: str | None = None  # the office of a per-office kind


def cell_actions(kind: str, cell: Cell, office: str | None, *, here: str, measuring: bool) -> list[str]:
    """What a cell's buttons offer, from its kind and state: measure now (nothing measured yet) or start
    measuring (more peak evenings needed) from this computer's office, a test URL where the vendor gave none,
    a trace, the questionnaire out and its answers in, an acceptance report; for another office's cell, its
    command to copy (it is measured there)."""
    if cell.state in ("done", "contradicted") and kind != "route_back":
        return []
    if office is not None and office != here:
        return [COPY_COMMAND] if cell.next else []
    if kind in ("line", "load", "throughput"):
        if cell.next and " eval add " in cell.next:
            return [ADD_URL]
        if measuring:
            return []
        return [MEASURE_NOW] if cell.state == "missing" else [START]
    if kind == "route_out":
        return [TRACE]
    if kind == "route_back":
        return [IMPORT_ACCEPTANCE] if cell.state in ("missing", "partial") else []
    if kind == "acceptance":
        return [IMPORT_ACCEPTANCE]
    if kind == "questionnaire":
        return [SEND_QUESTIONNAIRE, IMPORT_ANSWERS]
    if kind == "price":
        return [SEND_QUESTIONNAIRE] if cell.next else []
    return []


class EvidenceModel(QAbstractTableModel):
    CellRole = Qt.ItemDataRole.UserRole + 1  # (Column, Cell)
    CandidateRole = Qt.ItemDataRole.UserRole + 2

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.table: EvidenceTable | None = None
        self.columns: list[Column] = []

    def set_table(self, table: EvidenceTable | None) -> None:
        self.beginResetModel()
        self.table = table
        self.columns = self._columns(table.offices) if table is not None else []
        self.endResetModel()

    @staticmethod
    def _columns(offices: Sequence[str]) -> list[Column]:
        from desktop.usecases.evidence import KINDS

        columns = []
        for kind in KINDS:
            if kind in PER_OFFICE:
                columns += [Column(kind, office) for office in offices]
            else:
                columns.append(Column(kind))
        return columns

    # -- the table ---------------------------------------------------------------------------------------

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 - Qt's signature
        return 0 if parent.isValid() or self.table is None else len(self.table.candidates)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 - Qt's signature
        return 0 if parent.isValid() or self.table is None else 1 + len(self.columns)

    def cell(self, row: int, column: int) -> tuple[Column, Cell] | None:
        if self.table is None or column < 1 or not 0 <= row < len(self.table.candidates):
            return None
        spec = self.columns[column - 1]
        cell = self.table.candidates[row].cells[spec.kind]
        if spec.office is not None:
            cell = cell.offices.get(spec.office, cell)
        return spec, cell

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or self.table is None:
            return None
        row = self.table.candidates[index.row()]
        if index.column() == 0:
            candidate = row.candidate
            if role == Qt.ItemDataRole.DisplayRole:
                return candidate.label.replace("/", " / ", 1)
            if role == Qt.ItemDataRole.ToolTipRole:
                return "\n".join([candidate.label, *candidate.endpoints])
            if role == self.CandidateRole:
                return candidate
            return None
        found = self.cell(index.row(), index.column())
        if found is None:
            return None
        spec, cell = found
        if role == Qt.ItemDataRole.DisplayRole:
            return self.short_text(spec.kind, cell)
        if role == Qt.ItemDataRole.ToolTipRole:
            return cell.text
        if role == Qt.ItemDataRole.BackgroundRole:
            return QBrush(QColor(STATE_COLOURS[cell.state]))
        if role == Qt.ItemDataRole.ForegroundRole:
            return QBrush(QColor("#212121"))
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        if role == self.CellRole:
            return found
        return None

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation != Qt.Orientation.Horizontal or role != Qt.ItemDataRole.DisplayRole:
            return None
        if section == 0:
            return self.tr("Candidate")
        spec = self.columns[section - 1]
        lines = [self.kind_title(spec.kind)]
        if spec.kind == "line":
            lines.append(self.tr("off-peak / peak"))
        if spec.office is not None and self.table is not None and len(self.table.offices) > 1:
            lines.append(vantage_name(spec.office))
        return "\n".join(lines)

    # -- words -------------------------------------------------------------------------------------------

    def kind_title(self, kind: str) -> str:
        return {
            "line": self.tr("Line, ms"),
            "load": self.tr("Under load"),
            "throughput": self.tr("Throughput"),
            "route_out": self.tr("Route out"),
            "route_back": self.tr("Route back"),
            "questionnaire": self.tr("Vendor's answers"),
            "acceptance": self.tr("Acceptance"),
            "price": self.tr("Price"),
        }[kind]

    def state_word(self, state: str) -> str:
        return {
            "missing": self.tr("missing"),
            "partial": self.tr("partial"),
            "done": self.tr("done"),
            "contradicted": self.tr("contradicted"),
        }[state]

    def short_text(self, kind: str, cell: Cell) -> str:
        """The state in a word, and the figure that matters where there is one."""
        word = self.state_word(cell.state)
        figure = self._figure(kind, cell)
        return self.tr("{state}: {figure}").format(state=word, figure=figure) if figure else word

    def _figure(self, kind: str, cell: Cell) -> str:
        figures = cell.figures
        if kind == "line" and (figures.get("offpeak_samples") or figures.get("peak_samples")):
            text = f"{_ms(figures.get('offpeak_rtt_median_ms'))} / {_ms(figures.get('peak_rtt_median_ms'))}"
            more = figures.get("evenings_to_settle") or 0
            if more:
                text += "\n" + self.tr("+%n peak evening(s)", "", int(more))
            return text
        if kind == "load" and figures.get("peak_added_ms") is not None:
            return f"+{_ms(figures['peak_added_ms'])} ms"
        if kind == "throughput":
            rate = figures.get("peak_mbps") or figures.get("offpeak_mbps")
            if rate is not None:
                at_least = "≥ " if figures.get("lower_bound") else ""
                return at_least + self.tr("{rate} Mbit/s").format(rate=f"{rate:.0f}")
        if kind == "route_out" and figures.get("measured"):
            from probes.routes.names import class_name

            return class_name(str(figures["measured"]))
        return ""


def _ms(value: object) -> str:
    """A round trip as wide as it is precise: 0.04, 7.3, 152."""
    if not isinstance(value, int | float):
        return "–"
    return f"{value:.2f}" if value < 1 else f"{value:.1f}" if value < 10 else f"{value:.0f}"
