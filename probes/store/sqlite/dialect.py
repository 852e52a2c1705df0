"""How SQLite says what the read path asks (`probes.store.reading_sql.Dialect`): `?` placeholders, a list of
ids as an IN list, `IS NOT` for "differs, NULL being a value", `json_extract`, NULLs first by default."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

from probes.store.reading_sql import Dialect
from probes.store.sqlite.opening import translate


def _in_list(column: str, ids: Sequence[int]) -> tuple[str, list[Any]]:
    return f"{column} IN ({', '.join('?' * len(ids))})", list(ids)


SQLITE = Dialect(
    errors=(sqlite3.Error,),
    translate=translate,
    sql=lambda sql: sql,
    ids=_in_list,
    nothing="0",
    not_same="IS NOT",
    json_text="json_extract({column}, '$.{field}')",
    nulls_first="",
)
