"""What a team knows about its vendors beyond the catalogs, kept in the store (schema 11), so that with a
PostgreSQL store every office, every window and every report ranks on the same facts.

One record per change, never rewritten (as samples are facts): a vendor's questionnaire answer, a fact an
acceptance report verified or contradicted, an edit typed in the window, an acceptance check, a fact taken
out again, or a choice between two offices' answers. Each record says which provider it is about, its kind,
the fact key it touches, its body (JSON text of a version `format`, which the catalogs read and write:
`catalogs.team`; the store never parses it), the office it was recorded at (None when not said), who recorded
it (`user@host`) and when (UTC µs). What the facts are now, with their history and the offices' conflicts,
is derived from the records in order (`catalogs.team.team_overlays`).

The SQL is written once, with `?` placeholders, and said in each backend's words; a write is one write
transaction, so a batch of records (a whole questionnaire) is stored whole or not at all.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import astuple, dataclass
from typing import Any

from probes.i18n import N_
from probes.store.backend import Row
from probes.store.reading_sql import SqlReads, translated

VENDOR_FACT_COLUMNS = (
    "id",
    "provider",
    "kind",
    "key",
    "format",
    "body",
    "office",
    "recorded_by",
    "recorded_us",
)
KINDS = ("fact", "check", "forget", "choice")
_INSERT = (
    f"INSERT INTO vendor_facts ({', '.join(VENDOR_FACT_COLUMNS[1:])})"
    f" VALUES ({', '.join('?' * (len(VENDOR_FACT_COLUMNS) - 1))}) RETURNING id"
)
_SELECT = f"SELECT {', '.join(VENDOR_FACT_COLUMNS)} FROM vendor_facts"


@dataclass(frozen=True, slots=True)
class VendorFact:
    """One record: `id` (the store's, in the order recorded; 0 before it is stored), the provider, its kind
    (`KINDS`), the fact key it touches, its body's format version and text, the office (None: not said),
    who recorded it and when (UTC µs)."""

    id: int
    provider: str
    kind: str
    key: str
    format: int
    body: str
    office: str | None
    recorded_by: str
    recorded_us: int


def vendor_fact_row(record: VendorFact) -> Row:
    """A record's row without its id (`VENDOR_FACT_COLUMNS[1:]`); ValueError for one the table cannot hold."""
    if not record.provider or not record.key or not record.recorded_by:
        raise ValueError(f"a vendor fact needs a provider, a key and who recorded it: {record!r}")
    if record.kind not in KINDS:
        raise ValueError(f"a vendor fact's kind is one of {', '.join(KINDS)}, not {record.kind!r}")
    if isinstance(record.format, bool) or not isinstance(record.format, int) or record.format < 1:
        raise ValueError(f"{record.provider}: format {record.format!r} is not a version (1, 2, …)")
    if not isinstance(record.body, str):
        raise ValueError(f"{record.provider}: the body is not text")
    return astuple(record)[1:]


class VendorFactStatements(SqlReads):
    """What both backends answer for the vendor facts (mixed in beside the read path)."""

    def transaction(self, action: str) -> Any:
        raise NotImplementedError  # the backend's

    def add_vendor_fact_rows(self, rows: Sequence[Row]) -> list[int]:
        ids: list[int] = []
        with self.transaction(N_("could not save the vendor facts")):
            for row in rows:
                ids.append(int(self._execute(_INSERT, row).fetchone()[0]))
        return ids

    @translated(N_("could not read the vendor facts"))
    def vendor_fact_rows(self, provider: str | None, after_id: int) -> list[Row]:
        where = ["id > ?"]
        params: list[object] = [after_id]
        if provider is not None:
            where.append("provider = ?")
            params.append(provider)
        sql = f"{_SELECT} WHERE {' AND '.join(where)} ORDER BY id"
        return [tuple(r) for r in self._execute(sql, params)]

    @translated(N_("could not read the vendor facts"))
    def last_vendor_fact_id(self) -> int:
        row = self._execute("SELECT coalesce(max(id), 0) FROM vendor_facts").fetchone()
        return int(row[0])
