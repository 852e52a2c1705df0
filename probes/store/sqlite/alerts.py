"""The SQLite statements of the alert tables (`alert_states`, `alert_outbox`; schema migration 3), mixed into
`SqliteBackend`. Rows are in `probes.store.alerts`' column orders."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from probes.store.alerts import ALERT_STATE_COLUMNS, OUTBOX_COLUMNS
from probes.store.backend import Row

_PUT_STATE = (
    f"INSERT OR REPLACE INTO alert_states ({', '.join(ALERT_STATE_COLUMNS)})"
    f" VALUES ({', '.join('?' * len(ALERT_STATE_COLUMNS))})"
)
_ADD_OUTBOX = f"INSERT INTO alert_outbox ({', '.join(OUTBOX_COLUMNS[1:])}) VALUES ({', '.join('?' * (len(OUTBOX_COLUMNS) - 1))})"


class AlertStatements:
    """What `SqliteBackend` answers for `probes.store.alerts.AlertLedger`."""

    _db: sqlite3.Connection

    def alert_states(self, plan: str, vantage: str) -> list[Row]:
        return self._db.execute(
            f"SELECT {', '.join(ALERT_STATE_COLUMNS)} FROM alert_states WHERE plan = ? AND vantage = ?"
            " ORDER BY rule, target_key",
            (plan, vantage),
        ).fetchall()

    def alert_states_of(self, plan: str, rule: str, target_key: str) -> list[Row]:
        return self._db.execute(
            f"SELECT {', '.join(ALERT_STATE_COLUMNS)} FROM alert_states WHERE plan = ? AND rule = ?"
            " AND target_key = ? ORDER BY vantage",
            (plan, rule, target_key),
        ).fetchall()

    def put_alert_states(self, rows: Sequence[Row]) -> None:
        self._db.executemany(_PUT_STATE, rows)

    def add_outbox(self, rows: Sequence[Row]) -> None:
        """Rows without their id (`OUTBOX_COLUMNS[1:]`)."""
        self._db.executemany(_ADD_OUTBOX, rows)

    def outbox(self, plan: str, vantage: str) -> list[Row]:
        return self._db.execute(
            f"SELECT {', '.join(OUTBOX_COLUMNS)} FROM alert_outbox WHERE plan = ? AND vantage = ? ORDER BY id",
            (plan, vantage),
        ).fetchall()

    def retry_outbox(self, ids: Sequence[int], attempts: int, next_attempt_us: int, error: str) -> None:
        self._db.executemany(
            "UPDATE alert_outbox SET attempts = ?, next_attempt_us = ?, last_error = ? WHERE id = ?",
            [(attempts, next_attempt_us, error, i) for i in ids],
        )

    def delete_outbox(self, ids: Sequence[int]) -> None:
        self._db.executemany("DELETE FROM alert_outbox WHERE id = ?", [(i,) for i in ids])
