"""The result store's errors in the reader's language: one message per failure ("could not save the round")
inside one sentence naming the store and the driver's own words (those stay as SQLite says them)."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from probes.errors import StoreError
from probes.i18n import set_language
from probes.store import Store
from probes.target import Method, Target
from tests.probes.test_store import T0, synthetic_result
from tests.rounds import save_round


def _refusing_store(tmp_path: Path) -> Path:
    """A real store whose `rounds` table refuses every new row (a trigger: SQLite's own error)."""
    db = tmp_path / "s.sqlite3"
    with Store(db):
        pass
    with closing(sqlite3.connect(db)) as conn:
        conn.execute(
            "CREATE TRIGGER refuse BEFORE INSERT ON rounds BEGIN SELECT RAISE(ABORT, 'refused by a test trigger'); END"
        )
        conn.commit()
    return db


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("en", "{db}: could not save the round: refused by a test trigger"),
        ("zh_CN", "{db}：无法保存本轮：refused by a test trigger"),
    ],
)
def test_a_refused_write_names_the_store_and_what_failed(
    tmp_path: Path, language: str, expected: str
) -> None:
    db = _refusing_store(tmp_path)
    target = Target(Method.ICMP, host="198.18.0.5")
    set_language(language)
    try:
        with Store(db) as store, pytest.raises(StoreError) as raised:
            save_round(
                store, [synthetic_result(target, T0, [1.0])], started_us=T0, finished_us=T0, source="t"
            )
    finally:
        set_language(None)
    assert str(raised.value) == expected.format(db=db)
