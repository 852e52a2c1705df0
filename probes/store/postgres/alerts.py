"""The PostgreSQL statements of the alert tables (`alert_states`, `alert_outbox`), mixed into
`PostgresBackend` as `probes.store.sqlite.alerts` is into SQLite's. Rows are in `probes.store.alerts`' column
orders."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import psycopg

from probes.i18n import N_
from probes.store.alerts import ALERT_STATE_COLUMNS, OUTBOX_COLUMNS
from probes.store.backend import Row
from probes.store.postgres.connecting import translated

_KEY = ("plan", "vantage", "rule", "target_key")
_PUT_STATE = (
    f"INSERT INTO alert_states ({', '.join(ALERT_STATE_COLUMNS)})"
    f" VALUES ({', '.join(['%s'] * len(ALERT_STATE_COLUMNS))})"
    f" ON CONFLICT ({', '.join(_KEY)}) DO UPDATE SET "
    + ", ".join(f"{c} = excluded.{c}" for c in ALERT_STATE_COLUMNS if c not in _KEY)
)
_ADD_OUTBOX = (
    f"INSERT INTO alert_outbox ({', '.join(OUTBOX_COLUMNS[1:])})"
    f" VALUES ({', '.join(['%s'] * (len(OUTBOX_COLUMNS) - 1))})"
)


class PostgresAlertStatements:
    """What `PostgresBackend` answers for `probes.store.alerts.AlertLedger`."""

    def _connection(self) -> psycopg.Connection[Any]:
        raise NotImplementedError  # PostgresBackend's

    @translated(N_("could not read the alert states"))
    def alert_states(self, plan: str, vantage: str) -> list[Row]:
        return (
            self._connection()
            .execute(
                f"SELECT {', '.join(ALERT_STATE_COLUMNS)} FROM alert_states WHERE plan = %s AND vantage = %s"
                " ORDER BY rule, target_key",
                (plan, vantage),
            )
            .fetchall()
        )

    @translated(N_("could not read the alert states"))
    def alert_states_of(self, plan: str, rule: str, target_key: str) -> list[Row]:
        return (
            self._connection()
            .execute(
                f"SELECT {', '.join(ALERT_STATE_COLUMNS)} FROM alert_states WHERE plan = %s AND rule = %s"
                " AND target_key = %s ORDER BY vantage",
                (plan, rule, target_key),
            )
            .fetchall()
        )

    @translated(N_("could not save the alert states"))
    def put_alert_states(self, rows: Sequence[Row]) -> None:
        if rows:
            with self._connection().cursor() as cursor:
                cursor.executemany(_PUT_STATE, rows)

    @translated(N_("could not queue the notifications"))
    def add_outbox(self, rows: Sequence[Row]) -> None:
        """Rows without their id (`OUTBOX_COLUMNS[1:]`)."""
        if rows:
            with self._connection().cursor() as cursor:
                cursor.executemany(_ADD_OUTBOX, rows)

    @translated(N_("could not read the notifications"))
    def outbox(self, plan: str, vantage: str) -> list[Row]:
        return (
            self._connection()
            .execute(
                f"SELECT {', '.join(OUTBOX_COLUMNS)} FROM alert_outbox WHERE plan = %s AND vantage = %s ORDER BY id",
                (plan, vantage),
            )
            .fetchall()
        )

    @translated(N_("could not reschedule the notifications"))
    def retry_outbox(self, ids: Sequence[int], attempts: int, next_attempt_us: int, error: str) -> None:
        self._connection().execute(
            "UPDATE alert_outbox SET attempts = %s, next_attempt_us = %s, last_error = %s WHERE id = ANY(%s)",
            (attempts, next_attempt_us, error, list(ids)),
        )

    @translated(N_("could not remove the notifications"))
    def delete_outbox(self, ids: Sequence[int]) -> None:
        self._connection().execute("DELETE FROM alert_outbox WHERE id = ANY(%s)", (list(ids),))
