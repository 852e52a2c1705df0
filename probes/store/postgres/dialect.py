"""How PostgreSQL says what the read path asks (`probes.store.reading_sql.Dialect`): `%s` placeholders, a
list of ids as one array parameter (`= ANY(%s)`: no IN list to split, one plan whatever its length),
`IS DISTINCT FROM`, the `jsonb` operator `->>`, NULLs placed first explicitly (PostgreSQL puts them last)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import psycopg

from probes.store.postgres.connecting import translate
from probes.store.postgres.schema import qmark
from probes.store.reading_sql import Dialect


def _array(column: str, ids: Sequence[int]) -> tuple[str, list[Any]]:
    return f"{column} = ANY(?)", [list(ids)]


POSTGRES = Dialect(
    errors=(psycopg.Error,),
    translate=translate,
    sql=qmark,
    ids=_array,
    nothing="false",
    not_same="IS DISTINCT FROM",
    json_text="({column}::jsonb)->>'{field}'",
    nulls_first=" NULLS FIRST",
)
