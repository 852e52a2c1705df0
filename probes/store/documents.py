"""Two small tables beside the measurements, the same on both backends (schema 10; the agents' carrier since
schema 11): evaluation documents, and the health of the office agents that measure for them.

`evaluations`: one document per evaluation name, its body a versioned TOML text that the evaluation model
writes and reads (`format` is that text's version; the store never parses it), replaced whole, with when and
by whom. With a PostgreSQL store every office sees the same evaluations.

`agents`: per vantage point and evaluation (or plan), the agent measuring for it there: its host, process,
linkvet version, when it last measured a round and how many rounds wait in its spool, as it last said
(`updated_us`). An agent says so again and again (an upsert); a reader judges staleness by `updated_us`.

The SQL is written once, with `?` placeholders, and said in each backend's words (`reading_sql.Dialect`);
writes run in the backend's write transaction.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import astuple, dataclass
from typing import Any

from probes.i18n import N_
from probes.store.backend import Row
from probes.store.reading_sql import SqlReads, translated
from probes.store.statements import label_filter, where_sql

EVALUATION_COLUMNS = ("name", "format", "body", "updated_us", "updated_by")
AGENT_COLUMNS = (
    "vantage",
    "evaluation_or_plan",
    "host",
    "pid",
    "version",
    "last_round_us",
    "spooled_rounds",
    "updated_us",
    "carrier",
)


@dataclass(frozen=True, slots=True)
class EvaluationDocument:
    """One stored evaluation: its name, its body's format version, the body (TOML text), when it was last
    written (UTC µs) and by whom (free text, e.g. `user@host`; None when not said)."""

    name: str
    format: int
    body: str
    updated_us: int
    updated_by: str | None = None


@dataclass(frozen=True, slots=True)
class AgentHealth:
    """An office agent as it last reported itself: which vantage point and evaluation (or plan) it measures
    for, where it runs (host, pid), its linkvet version, when its last round was measured (UTC µs; None
    before the first), the rounds waiting in its spool, when it said all this (UTC µs), and the carrier it
    says its office's line is on (ct, cu, cm; None when not said; schema 11)."""

    vantage: str
    evaluation_or_plan: str
    host: str
    pid: int | None
    version: str | None
    last_round_us: int | None
    spooled_rounds: int
    updated_us: int
    carrier: str | None = None


def _upsert(table: str, columns: Sequence[str], key: Sequence[str]) -> str:
    updates = ", ".join(f"{c} = excluded.{c}" for c in columns if c not in key)
    return (
        f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})"
        f" ON CONFLICT ({', '.join(key)}) DO UPDATE SET {updates}"
    )


_PUT_EVALUATION = _upsert("evaluations", EVALUATION_COLUMNS, ("name",))
_PUT_AGENT = _upsert("agents", AGENT_COLUMNS, ("vantage", "evaluation_or_plan"))
_SELECT_EVALUATIONS = f"SELECT {', '.join(EVALUATION_COLUMNS)} FROM evaluations"
_SELECT_AGENTS = f"SELECT {', '.join(AGENT_COLUMNS)} FROM agents"


class DocumentStatements(SqlReads):
    """What both backends answer for `probes.store.documents` (mixed in beside the read path)."""

    def transaction(self, action: str) -> Any:
        raise NotImplementedError  # the backend's

    @translated(N_("could not read the evaluations"))
    def evaluation_rows(self, name: str | None) -> list[Row]:
        where, params = label_filter({"name": name})
        return [
            tuple(r) for r in self._execute(f"{_SELECT_EVALUATIONS}{where_sql(where)} ORDER BY name", params)
        ]

    def put_evaluation_row(self, row: Row) -> None:
        with self.transaction(N_("could not save the evaluation")):
            self._execute(_PUT_EVALUATION, row)

    def delete_evaluation_row(self, name: str) -> bool:
        with self.transaction(N_("could not delete the evaluation")):
            found = self._execute("SELECT name FROM evaluations WHERE name = ?", (name,)).fetchone()
            self._execute("DELETE FROM evaluations WHERE name = ?", (name,))
        return found is not None

    def put_agent_row(self, row: Row) -> None:
        with self.transaction(N_("could not save the agent's state")):
            self._execute(_PUT_AGENT, row)

    @translated(N_("could not read the agents"))
    def agent_rows(self, vantage: str | None, evaluation_or_plan: str | None) -> list[Row]:
        where, params = label_filter({"vantage": vantage, "evaluation_or_plan": evaluation_or_plan})
        sql = f"{_SELECT_AGENTS}{where_sql(where)} ORDER BY evaluation_or_plan, vantage"
        return [tuple(r) for r in self._execute(sql, params)]


def evaluation_row(document: EvaluationDocument) -> Row:
    """A document's row (`EVALUATION_COLUMNS`); ValueError for a document the table cannot hold."""
    if not isinstance(document.name, str) or not document.name.strip():
        raise ValueError(f"an evaluation needs a name, got {document.name!r}")
    if isinstance(document.format, bool) or not isinstance(document.format, int) or document.format < 1:
        raise ValueError(f"{document.name}: format {document.format!r} is not a version (1, 2, …)")
    if not isinstance(document.body, str):
        raise ValueError(f"{document.name}: the body is not text")
    return astuple(document)


def agent_row(agent: AgentHealth) -> Row:
    """An agent's row (`AGENT_COLUMNS`); ValueError for one the table cannot hold."""
    if not agent.vantage or not agent.evaluation_or_plan or not agent.host:
        raise ValueError(f"an agent needs a vantage point, an evaluation or plan and a host: {agent!r}")
    if agent.spooled_rounds < 0:
        raise ValueError(f"an agent cannot have {agent.spooled_rounds} rounds in its spool")
    return astuple(agent)
