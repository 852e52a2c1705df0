"""The result store: one SQLite file, WAL mode (the GUI reads while the scheduler writes).

Tables
    targets   one row per measured thing (method + address), with its latest labels
    rounds    one row per measuring round (when, what plan, from which vantage point, tool version)
    results   one row per target per round: the summary statistics and the method's figures
    samples   one row per attempt: UTC time, RTT in ms or NULL when lost, the error kind
    hourly    per target and UTC hour: counts, sums and a mergeable RTT histogram (see probes.histogram),
              derived from samples in the same transaction that writes them, rebuildable from them

Every round is written in one transaction, so a kill at any moment loses at most the round in flight.
Times are UTC: `*_us` columns are microseconds since the epoch, `hour_s` seconds at the start of the hour.
The schema version is `PRAGMA user_version`; older files are migrated on open, newer ones refused.
"""

from __future__ import annotations

import json
import math
import platform
import socket
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from probes import histogram
from probes._version import __version__
from probes.errors import SchemaVersionError, StoreError
from probes.paths import default_db_path
from probes.results import ProbeResult
from probes.routes.classify import PathHop
from probes.target import Method, Target

if TYPE_CHECKING:
    from probes.traceroute.result import TraceResult

# Each entry upgrades the schema by one version; append, never edit a released one.
MIGRATIONS: list[Sequence[str]] = [
    (  # 1: the initial schema
        """CREATE TABLE targets (
            id INTEGER PRIMARY KEY,
            key TEXT NOT NULL UNIQUE,
            name TEXT NOT NULL,
            method TEXT NOT NULL,
            host TEXT,
            port INTEGER,
            url TEXT,
            provider TEXT,
            region TEXT,
            line_type TEXT
        )""",
        """CREATE TABLE rounds (
            id INTEGER PRIMARY KEY,
            started_us INTEGER NOT NULL,
            finished_us INTEGER NOT NULL,
            source TEXT NOT NULL,
            plan TEXT,
            vantage TEXT,
            peak INTEGER,
            tool_version TEXT NOT NULL,
            meta_json TEXT
        )""",
        "CREATE INDEX rounds_finished ON rounds (finished_us)",
        """CREATE TABLE results (
            id INTEGER PRIMARY KEY,
            round_id INTEGER NOT NULL REFERENCES rounds (id),
            target_id INTEGER NOT NULL REFERENCES targets (id),
            started_us INTEGER NOT NULL,
            finished_us INTEGER NOT NULL,
            sent INTEGER NOT NULL,
            received INTEGER NOT NULL,
            loss REAL,
            rtt_min_ms REAL,
            rtt_median_ms REAL,
            rtt_mean_ms REAL,
            rtt_p95_ms REAL,
            rtt_max_ms REAL,
            jitter_ms REAL,
            throughput_mbps REAL,
            bytes INTEGER,
            seconds REAL,
            ttfb_ms REAL,
            error TEXT,
            message TEXT,
            metrics_json TEXT
        )""",
        "CREATE INDEX results_target_time ON results (target_id, started_us)",
        "CREATE INDEX results_round ON results (round_id)",
        """CREATE TABLE samples (
            result_id INTEGER NOT NULL REFERENCES results (id),
            target_id INTEGER NOT NULL,
            ts_us INTEGER NOT NULL,
            seq INTEGER NOT NULL,
            rtt_ms REAL,
            error TEXT
        )""",
        "CREATE INDEX samples_target_time ON samples (target_id, ts_us)",
        """CREATE TABLE hourly (
            target_id INTEGER NOT NULL,
            hour_s INTEGER NOT NULL,
            sent INTEGER NOT NULL,
            received INTEGER NOT NULL,
            rtt_sum_ms REAL NOT NULL,
            rtt_min_ms REAL,
            rtt_max_ms REAL,
            jitter_sum_ms REAL NOT NULL,
            jitter_pairs INTEGER NOT NULL,
            hist_index BLOB NOT NULL,
            hist_count BLOB NOT NULL,
            PRIMARY KEY (target_id, hour_s)
        ) WITHOUT ROWID""",
    ),
    (  # 2: traceroutes, their probes, and the route verdict of each (the `trace` method)
        """CREATE TABLE traces (
            result_id INTEGER PRIMARY KEY REFERENCES results (id),
            target_id INTEGER NOT NULL REFERENCES targets (id),
            started_us INTEGER NOT NULL,
            address TEXT,
            protocol TEXT NOT NULL,
            port INTEGER,
            probes_per_hop INTEGER NOT NULL,
            max_hops INTEGER NOT NULL,
            privileged INTEGER,
            reached INTEGER NOT NULL,
            route_class TEXT,
            route_rule TEXT,
            route_evidence TEXT,
            route_doubts_json TEXT
        )""",
        "CREATE INDEX traces_target_time ON traces (target_id, started_us)",
        """CREATE TABLE trace_replies (
            result_id INTEGER NOT NULL REFERENCES traces (result_id),
            ttl INTEGER NOT NULL,
            probe INTEGER NOT NULL,
            sent_us INTEGER NOT NULL,
            kind TEXT NOT NULL,
            address TEXT,
            rtt_ms REAL,
            error TEXT,
            asn INTEGER,
            prefix TEXT,
            PRIMARY KEY (result_id, ttl, probe)
        ) WITHOUT ROWID""",
    ),
]
SCHEMA_VERSION = len(MIGRATIONS)

_TEXT_COLUMNS = (
    "name",
    "method",
    "host",
    "url",
    "provider",
    "region",
    "line_type",
    "error",
    "message",
    "metrics_json",
    "vantage",
    "plan",
)
_TARGET_COLUMNS = "id, key, name, method, host, port, url, provider, region, line_type"


@dataclass(frozen=True, slots=True)
class StoredTarget:
    id: int
    key: str
    name: str
    method: str
    host: str | None
    port: int | None
    url: str | None
    provider: str | None
    region: str | None
    line_type: str | None

    def to_target(self) -> Target:
        return Target(
            method=Method(self.method),
            host=self.host,
            port=self.port,
            url=self.url,
            name=self.name,
            provider=self.provider,
            region=self.region,
            line_type=self.line_type,
        )


@dataclass(frozen=True, slots=True)
class StoredTrace:
    """One stored traceroute: its target's labels, the addresses that answered per TTL, and the route
    verdict it got when it was traced (`route_class` None when the trace failed)."""

    result_id: int
    target_id: int
    name: str
    host: str | None
    provider: str | None
    region: str | None
    line_type: str | None
    started_us: int
    address: str | None
    protocol: str
    reached: bool
    route_class: str | None
    route_rule: str | None
    route_evidence: str | None
    route_doubts: tuple[str, ...]
    hops: tuple[tuple[int, tuple[str, ...]], ...]

    @property
    def path(self) -> tuple[PathHop, ...]:
        """The hops as the route classifier takes them (to classify again with another network table)."""
        return tuple(PathHop(ttl, addresses) for ttl, addresses in self.hops)


@dataclass(frozen=True, slots=True)
class TargetHistory:
    """What the store holds of one target: when its first and last result started (UTC µs), in how many
    rounds, its stored attempts (`samples`) and the replies among them."""

    target: StoredTarget
    first_us: int
    last_us: int
    rounds: int
    samples: int
    replies: int


@dataclass(frozen=True, slots=True)
class RoundInfo:
    id: int
    started_us: int
    finished_us: int
    source: str
    plan: str | None
    vantage: str | None
    peak: bool | None


def run_metadata(privileged: bool | None = None) -> dict[str, Any]:
    """What to record with a round so its figures can be interpreted later."""
    return {
        "tool_version": __version__,
        "python": platform.python_version(),
        "os": platform.platform(),
        "hostname": socket.gethostname(),
        "privileged_icmp": privileged,
    }


class Store:
    """An open result store. One per thread (SQLite connections are not shared across threads)."""

    def __init__(self, path: Path | str | None = None, *, readonly: bool = False) -> None:
        self.path = Path(path) if path is not None else default_db_path()
        self.readonly = readonly
        try:
            if readonly:
                if not self.path.exists():
                    raise StoreError(f"{self.path}: no result store here yet (run a probe first)")
                self._db = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, isolation_level=None)
            else:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._db = sqlite3.connect(self.path, isolation_level=None)
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path}: cannot open the result store: {exc}") from exc
        except OSError as exc:
            raise StoreError(f"{self.path}: cannot create the result store: {exc.strerror or exc}") from exc
        try:
            self._configure()
        except BaseException:
            self._db.close()
            raise

    def _configure(self) -> None:
        try:
            self._db.execute("PRAGMA busy_timeout = 15000")
            if not self.readonly:
                self._db.execute("PRAGMA journal_mode = WAL")
                # FULL: a committed round survives power loss too; one fsync per round costs nothing.
                self._db.execute("PRAGMA synchronous = FULL")
            self._db.execute("PRAGMA foreign_keys = ON")
            self._migrate()
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path}: cannot open the result store: {exc}") from exc

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- schema ------------------------------------------------------------------------------------------

    @property
    def schema_version(self) -> int:
        return int(self._db.execute("PRAGMA user_version").fetchone()[0])

    def _migrate(self) -> None:
        version = self.schema_version
        if version > SCHEMA_VERSION:
            raise SchemaVersionError(
                f"{self.path} was written by a newer linkvet (store schema {version}; this linkvet "
                f"{__version__} knows up to {SCHEMA_VERSION}). Upgrade linkvet, or use another --db."
            )
        if version == SCHEMA_VERSION:
            return
        if self.readonly:
            # A reader (history, export, the GUI) of a store an older linkvet wrote: upgrade it first, once.
            try:
                Store(self.path).close()
            except StoreError as exc:
                raise StoreError(
                    f"{self.path}: store schema {version} needs upgrading to {SCHEMA_VERSION} and this user "
                    f"cannot write it ({exc}); run any linkvet command on it as its owner"
                ) from exc
            return
        with self._transaction():
            version = self.schema_version  # another process may have migrated meanwhile
            for number in range(version + 1, SCHEMA_VERSION + 1):
                for statement in MIGRATIONS[number - 1]:
                    self._db.execute(statement)
                self._db.execute(f"PRAGMA user_version = {number}")

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield self._db
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        else:
            self._db.execute("COMMIT")

    # -- writing -----------------------------------------------------------------------------------------

    def save_round(
        self,
        results: Sequence[ProbeResult],
        *,
        started_us: int,
        finished_us: int,
        source: str,
        plan: str | None = None,
        vantage: str | None = None,
        peak: bool | None = None,
        meta: dict[str, Any] | None = None,
    ) -> int:
        """Write one finished round (its results, samples and rollups) in one transaction; its id."""
        meta = dict(meta or run_metadata())
        try:
            with self._transaction() as db:
                cursor = db.execute(
                    "INSERT INTO rounds (started_us, finished_us, source, plan, vantage, peak, tool_version,"
                    " meta_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        started_us,
                        finished_us,
                        source,
                        plan,
                        vantage,
                        None if peak is None else int(peak),
                        __version__,
                        json.dumps(meta, sort_keys=True),
                    ),
                )
                round_id = int(cursor.lastrowid or 0)
                runs = _RunSamples()
                for result in results:
                    target_id = self._save_result(db, round_id, result)
                    runs.add(target_id, result)
                self._add_to_hourly(db, runs)
        except sqlite3.Error as exc:
            raise StoreError(f"{self.path}: could not save the round: {exc}") from exc
        return round_id

    def save_results(
        self,
        results: Sequence[ProbeResult],
        *,
        source: str,
        plan: str | None = None,
        vantage: str | None = None,
        peak: bool | None = None,
        meta: dict[str, Any] | None = None,
    ) -> int | None:
        """Store one run's results as a round (its span from the results, whether ICMP ran privileged in its
        metadata); the round's id, or None when there was nothing to store."""
        if not results:
            return None
        privileged = next(
            (bool(r.metrics["privileged"]) for r in results if r.metrics.get("privileged") is not None), None
        )
        return self.save_round(
            results,
            started_us=min(r.started_at_us for r in results),
            finished_us=max(r.finished_at_us for r in results),
            source=source,
            plan=plan,
            vantage=vantage,
            peak=peak,
            meta=run_metadata(privileged) | (meta or {}),
        )

    def _upsert_target(self, db: sqlite3.Connection, target: Target) -> int:
        row = db.execute(
            "INSERT INTO targets (key, name, method, host, port, url, provider, region, line_type)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT (key) DO UPDATE SET name = excluded.name,"
            " provider = coalesce(excluded.provider, provider), region = coalesce(excluded.region, region),"
            " line_type = coalesce(excluded.line_type, line_type), port = coalesce(excluded.port, port)"
            " RETURNING id",
            (
                target.key,
                target.name,
                str(target.method),
                target.host,
                target.port,
                target.url,
                target.provider,
                target.region,
                target.line_type,
            ),
        ).fetchone()
        return int(row[0])

    def _save_result(self, db: sqlite3.Connection, round_id: int, result: ProbeResult) -> int:
        """Write one result and its samples; the target's id."""
        target_id = self._upsert_target(db, result.target)
        metrics = dict(result.metrics)
        cursor = db.execute(
            "INSERT INTO results (round_id, target_id, started_us, finished_us, sent, received, loss,"
            " rtt_min_ms, rtt_median_ms, rtt_mean_ms, rtt_p95_ms, rtt_max_ms, jitter_ms, throughput_mbps,"
            " bytes, seconds, ttfb_ms, error, message, metrics_json)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                round_id,
                target_id,
                result.started_at_us,
                result.finished_at_us,
                result.sent,
                result.received,
                result.loss,
                result.rtt_min_ms,
                result.rtt_median_ms,
                result.rtt_mean_ms,
                result.rtt_p95_ms,
                result.rtt_max_ms,
                result.jitter_ms,
                _number(metrics.get("throughput_mbps")),
                _number(metrics.get("bytes")),
                _number(metrics.get("seconds")),
                _number(metrics.get("ttfb_ms")),
                None if result.error is None else str(result.error),
                result.message,
                json.dumps(metrics, sort_keys=True) if metrics else None,
            ),
        )
        result_id = int(cursor.lastrowid or 0)
        if result.trace is not None:
            self._save_trace(db, result_id, target_id, result.trace)
        if not result.samples:
            return target_id
        db.executemany(
            "INSERT INTO samples (result_id, target_id, ts_us, seq, rtt_ms, error) VALUES (?, ?, ?, ?, ?, ?)",
            [
                (
                    result_id,
                    target_id,
                    s.sent_at_us,
                    s.seq,
                    s.rtt_ms,
                    None if s.error is None else str(s.error),
                )
                for s in result.samples
            ],
        )
        return target_id

    def _save_trace(self, db: sqlite3.Connection, result_id: int, target_id: int, trace: TraceResult) -> None:
        """A trace's probes (with the network each answering address was labelled with) and its verdict."""
        verdict = trace.verdict
        db.execute(
            "INSERT INTO traces (result_id, target_id, started_us, address, protocol, port, probes_per_hop,"
            " max_hops, privileged, reached, route_class, route_rule, route_evidence, route_doubts_json)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                result_id,
                target_id,
                trace.started_at_us,
                trace.address,
                trace.protocol,
                trace.port,
                trace.probes_per_hop,
                trace.max_hops,
                None if trace.privileged is None else int(trace.privileged),
                int(trace.reached),
                None if verdict is None else verdict.line_class,
                None if verdict is None else verdict.rule,
                None if verdict is None else verdict.explanation(),
                None if verdict is None else json.dumps(list(verdict.doubts), ensure_ascii=False),
            ),
        )
        rows = []
        for hop in trace.hops:
            for reply in hop.replies:
                match = None if reply.address is None else hop.network_of(reply.address)
                rows.append(
                    (
                        result_id,
                        hop.ttl,
                        reply.probe,
                        reply.sent_at_us,
                        reply.kind,
                        reply.address,
                        reply.rtt_ms,
                        None if reply.error is None else str(reply.error),
                        None if match is None else match.asn,
                        None if match is None else match.prefix.cidr,
                    )
                )
        db.executemany(
            "INSERT INTO trace_replies (result_id, ttl, probe, sent_us, kind, address, rtt_ms, error, asn,"
            " prefix) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            rows,
        )

    def _add_to_hourly(self, db: sqlite3.Connection, runs: _RunSamples) -> None:
        """Merge a round's samples into the hourly rollups: one read-modify-write per target and hour.

        Sums, counts and histograms are grouped with NumPy; a jitter pair is two consecutive received RTTs
        of the same run and belongs to the hour of its later sample.
        """
        if runs.empty:
            return
        target, run, ts_us, rtt = runs.arrays()
        hours = ts_us // 1_000_000 // 3600 * 3600
        keys, group = np.unique(target * (1 << 32) + hours // 3600, return_inverse=True)
        n = len(keys)
        got = ~np.isnan(rtt)
        got_group, got_rtt = group[got], rtt[got]
        sent = np.bincount(group, minlength=n)
        received = np.bincount(got_group, minlength=n)
        rtt_sum = np.bincount(got_group, weights=got_rtt, minlength=n)
        rtt_min = np.full(n, np.inf)
        np.minimum.at(rtt_min, got_group, got_rtt)
        rtt_max = np.full(n, -np.inf)
        np.maximum.at(rtt_max, got_group, got_rtt)
        same_run = run[got][1:] == run[got][:-1]
        pair_group = got_group[1:][same_run]
        pair_diff = np.abs(np.diff(got_rtt))[same_run]
        jitter_sum = np.bincount(pair_group, weights=pair_diff, minlength=n)
        jitter_pairs = np.bincount(pair_group, minlength=n)
        hist = np.bincount(
            got_group * histogram.N_BUCKETS + histogram.bucket_of(got_rtt), minlength=n * histogram.N_BUCKETS
        ).reshape(n, histogram.N_BUCKETS)
        for i, key in enumerate(keys.tolist()):
            delta = HourDelta(
                sent=int(sent[i]),
                received=int(received[i]),
                rtt_sum_ms=float(rtt_sum[i]),
                rtt_min_ms=float(rtt_min[i]) if received[i] else None,
                rtt_max_ms=float(rtt_max[i]) if received[i] else None,
                jitter_sum_ms=float(jitter_sum[i]),
                jitter_pairs=int(jitter_pairs[i]),
                hist=hist[i].astype(np.int64),
            )
            self._merge_hour(db, key >> 32, (key & 0xFFFFFFFF) * 3600, delta)

    def _merge_hour(self, db: sqlite3.Connection, target_id: int, hour_s: int, delta: HourDelta) -> None:
        row = db.execute(
            "SELECT sent, received, rtt_sum_ms, rtt_min_ms, rtt_max_ms, jitter_sum_ms, jitter_pairs, hist_index,"
            " hist_count FROM hourly WHERE target_id = ? AND hour_s = ?",
            (target_id, hour_s),
        ).fetchone()
        if row is not None:
            delta = delta.plus(
                HourDelta(
                    row[0], row[1], row[2], row[3], row[4], row[5], row[6], histogram.decode(row[7], row[8])
                )
            )
        index_blob, count_blob = histogram.encode(delta.hist)
        db.execute(
            "INSERT OR REPLACE INTO hourly (target_id, hour_s, sent, received, rtt_sum_ms, rtt_min_ms, rtt_max_ms,"
            " jitter_sum_ms, jitter_pairs, hist_index, hist_count) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                target_id,
                hour_s,
                delta.sent,
                delta.received,
                delta.rtt_sum_ms,
                delta.rtt_min_ms,
                delta.rtt_max_ms,
                delta.jitter_sum_ms,
                delta.jitter_pairs,
                index_blob,
                count_blob,
            ),
        )

    def rebuild_hourly(self) -> int:
        """Recompute every hourly rollup from the raw samples; the number of rollup rows written."""
        with self._transaction() as db:
            db.execute("DELETE FROM hourly")
            rows = db.execute(
                "SELECT result_id, target_id, ts_us, rtt_ms FROM samples ORDER BY result_id, seq"
            )
            runs = _RunSamples()
            for result_id, target_id, ts_us, rtt_ms in rows:
                runs.append(target_id, result_id, ts_us, rtt_ms)
            self._add_to_hourly(db, runs)
            return int(db.execute("SELECT count(*) FROM hourly").fetchone()[0])

    # -- reading -----------------------------------------------------------------------------------------

    def targets(
        self,
        *,
        provider: str | None = None,
        region: str | None = None,
        line_type: str | None = None,
        method: str | None = None,
    ) -> list[StoredTarget]:
        """Stored targets, optionally only those with the given labels."""
        clauses, params = _label_filter(provider=provider, region=region, line_type=line_type, method=method)
        rows = self._db.execute(
            f"SELECT {_TARGET_COLUMNS} FROM targets{clauses} ORDER BY name, method", params
        )
        return [StoredTarget(*row) for row in rows]

    def find_targets(self, text: str) -> list[StoredTarget]:
        """Targets whose name, host, URL or key is `text` (what a user types for `linkvet history`)."""
        rows = self._db.execute(
            f"SELECT {_TARGET_COLUMNS} FROM targets WHERE name = ?1 OR host = ?1 OR url = ?1 OR key = ?1"
            " ORDER BY method",
            (text,),
        )
        return [StoredTarget(*row) for row in rows]

    def rounds(
        self, *, since_us: int | None = None, plan: str | None = None, limit: int | None = None
    ) -> list[RoundInfo]:
        """Rounds, newest first."""
        sql = "SELECT id, started_us, finished_us, source, plan, vantage, peak FROM rounds WHERE 1 = 1"
        params: list[Any] = []
        if since_us is not None:
            sql += " AND finished_us >= ?"
            params.append(since_us)
        if plan is not None:
            sql += " AND plan = ?"
            params.append(plan)
        sql += " ORDER BY finished_us DESC, id DESC"
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        return [
            RoundInfo(r[0], r[1], r[2], r[3], r[4], r[5], None if r[6] is None else bool(r[6]))
            for r in self._db.execute(sql, params)
        ]

    def last_measured_us(self, target_key: str) -> int | None:
        """When the target's most recent stored result started, or None."""
        row = self._db.execute(
            "SELECT max(r.started_us) FROM results r JOIN targets t ON t.id = r.target_id WHERE t.key = ?",
            (target_key,),
        ).fetchone()
        return None if row is None or row[0] is None else int(row[0])

    def target_histories(
        self, *, method: str | None = None, since_us: int | None = None, until_us: int | None = None
    ) -> list[TargetHistory]:
        """Per stored target (by name, then method) what the store holds, counting results that started
        and attempts sent in [since_us, until_us) when given; targets with nothing there are left out."""
        where, params = _range_filter("r.target_id", "r.started_us", None, since_us, until_us)
        if method is not None:
            where += (" AND" if where else " WHERE") + " t.method = ?"
            params.append(method)
        columns = ", ".join(f"t.{c.strip()}" for c in _TARGET_COLUMNS.split(","))
        rows = self._db.execute(
            f"SELECT {columns}, min(r.started_us), max(r.started_us), count(DISTINCT r.round_id)"
            f" FROM results r JOIN targets t ON t.id = r.target_id{where} GROUP BY t.id ORDER BY t.name, t.method",
            params,
        ).fetchall()
        where, params = _range_filter("target_id", "ts_us", None, since_us, until_us)
        counts = {
            int(target_id): (int(sent), int(replies))
            for target_id, sent, replies in self._db.execute(
                f"SELECT target_id, count(*), count(rtt_ms) FROM samples{where} GROUP BY target_id", params
            )
        }
        return [
            TargetHistory(
                StoredTarget(*row[:10]), int(row[10]), int(row[11]), int(row[12]), *counts.get(row[0], (0, 0))
            )
            for row in rows
        ]

    def results_frame(
        self,
        target_ids: Iterable[int] | None = None,
        since_us: int | None = None,
        until_us: int | None = None,
    ) -> pd.DataFrame:
        """Per-target summaries (one row per target per round) with the target's labels, oldest first."""
        where, params = _range_filter("r.target_id", "r.started_us", target_ids, since_us, until_us)
        sql = (
            "SELECT r.id AS result_id, r.round_id, r.target_id, t.name, t.method, t.host, t.port, t.url,"
            " t.provider, t.region, t.line_type, r.started_us, r.finished_us, r.sent, r.received, r.loss,"
            " r.rtt_min_ms, r.rtt_median_ms, r.rtt_mean_ms, r.rtt_p95_ms, r.rtt_max_ms, r.jitter_ms,"
            " r.throughput_mbps, r.bytes, r.seconds, r.ttfb_ms, r.error, r.message, r.metrics_json,"
            " ro.vantage, ro.plan, ro.peak"
            " FROM results r JOIN targets t ON t.id = r.target_id JOIN rounds ro ON ro.id = r.round_id"
            f"{where} ORDER BY r.started_us, r.id"
        )
        frame = pd.read_sql_query(sql, self._db, params=params)
        for column in _TEXT_COLUMNS:  # an all-NULL text column comes back as float NaN: keep it None
            frame[column] = frame[column].astype(object).where(frame[column].notna(), None)
        frame["started_at"] = pd.to_datetime(frame["started_us"], unit="us", utc=True)
        return frame

    def samples_frame(
        self,
        target_ids: Iterable[int] | None = None,
        since_us: int | None = None,
        until_us: int | None = None,
    ) -> pd.DataFrame:
        """Per-attempt samples (target_id, ts_us, seq, rtt_ms (NaN when lost), error, result_id), oldest first."""
        where, params = _range_filter("target_id", "ts_us", target_ids, since_us, until_us)
        cursor = self._db.execute(
            f"SELECT target_id, ts_us, seq, rtt_ms, error, result_id FROM samples{where} ORDER BY ts_us, seq",
            params,
        )
        rows = cursor.fetchall()
        columns = ["target_id", "ts_us", "seq", "rtt_ms", "error", "result_id"]
        frame = pd.DataFrame.from_records(rows, columns=columns)
        frame = frame.astype(
            {
                "target_id": "int64",
                "ts_us": "int64",
                "seq": "int64",
                "rtt_ms": "float64",
                "result_id": "int64",
            }
        )
        return frame

    def hourly_frame(
        self,
        target_ids: Iterable[int] | None = None,
        since_us: int | None = None,
        until_us: int | None = None,
    ) -> pd.DataFrame:
        """Hourly rollups (target_id, hour_s, sent, received, rtt_sum_ms, rtt_min_ms, rtt_max_ms, jitter_sum_ms,
        jitter_pairs, hist_index, hist_count); merge histograms with `probes.histogram.merge`."""
        since_s = None if since_us is None else since_us // 1_000_000 // 3600 * 3600
        until_s = None if until_us is None else until_us // 1_000_000
        where, params = _range_filter("target_id", "hour_s", target_ids, since_s, until_s)
        rows = self._db.execute(
            "SELECT target_id, hour_s, sent, received, rtt_sum_ms, rtt_min_ms, rtt_max_ms, jitter_sum_ms,"
            f" jitter_pairs, hist_index, hist_count FROM hourly{where} ORDER BY target_id, hour_s",
            params,
        ).fetchall()
        columns = [
            "target_id",
            "hour_s",
            "sent",
            "received",
            "rtt_sum_ms",
            "rtt_min_ms",
            "rtt_max_ms",
            "jitter_sum_ms",
            "jitter_pairs",
            "hist_index",
            "hist_count",
        ]
        return pd.DataFrame.from_records(rows, columns=columns)

    def traces(
        self,
        *,
        provider: str | None = None,
        region: str | None = None,
        line_type: str | None = None,
        target_ids: Iterable[int] | None = None,
        since_us: int | None = None,
        until_us: int | None = None,
    ) -> list[StoredTrace]:
        """Stored traces with their answering addresses per TTL, oldest first, optionally only those of
        targets with the given labels."""
        labels, params = _label_filter(provider=provider, region=region, line_type=line_type)
        where, range_params = _range_filter("tr.target_id", "tr.started_us", target_ids, since_us, until_us)
        clauses = " AND ".join(
            c for c in (labels.replace(" WHERE ", "", 1), where.replace(" WHERE ", "", 1)) if c
        )
        rows = self._db.execute(
            "SELECT tr.result_id, tr.target_id, t.name, t.host, t.provider, t.region, t.line_type,"
            " tr.started_us, tr.address, tr.protocol, tr.reached, tr.route_class, tr.route_rule, tr.route_evidence,"
            " tr.route_doubts_json FROM traces tr JOIN targets t ON t.id = tr.target_id"
            f"{' WHERE ' + clauses if clauses else ''} ORDER BY tr.started_us, tr.result_id",
            [*params, *range_params],
        ).fetchall()
        out: list[StoredTrace] = []
        for row in rows:
            hops: dict[int, list[str]] = {}
            for ttl, address in self._db.execute(
                "SELECT ttl, address FROM trace_replies WHERE result_id = ? ORDER BY ttl, probe", (row[0],)
            ):
                addresses = hops.setdefault(int(ttl), [])
                if address is not None and address not in addresses:
                    addresses.append(str(address))
            out.append(
                StoredTrace(
                    result_id=row[0],
                    target_id=row[1],
                    name=row[2],
                    host=row[3],
                    provider=row[4],
                    region=row[5],
                    line_type=row[6],
                    started_us=row[7],
                    address=row[8],
                    protocol=row[9],
                    reached=bool(row[10]),
                    route_class=row[11],
                    route_rule=row[12],
                    route_evidence=row[13],
                    route_doubts=tuple(json.loads(row[14])) if row[14] else (),
                    hops=tuple((ttl, tuple(addresses)) for ttl, addresses in sorted(hops.items())),
                )
            )
        return out

    def counts(self) -> dict[str, int]:
        """Row counts per table (for status lines and tests)."""
        return {
            table: int(self._db.execute(f"SELECT count(*) FROM {table}").fetchone()[0])
            for table in ("targets", "rounds", "results", "samples", "hourly")
        }


class _RunSamples:
    """Samples of many runs gathered for one rollup pass, in send order within each run."""

    def __init__(self) -> None:
        self._target: list[int] = []
        self._run: list[int] = []
        self._ts: list[int] = []
        self._rtt: list[float] = []
        self._runs = 0

    @property
    def empty(self) -> bool:
        return not self._ts

    def add(self, target_id: int, result: ProbeResult) -> None:
        self._runs += 1
        for sample in result.samples:
            self.append(target_id, self._runs, sample.sent_at_us, sample.rtt_ms)

    def append(self, target_id: int, run: int, ts_us: int, rtt_ms: float | None) -> None:
        self._target.append(target_id)
        self._run.append(run)
        self._ts.append(ts_us)
        self._rtt.append(math.nan if rtt_ms is None else rtt_ms)

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        return (
            np.asarray(self._target, dtype=np.int64),
            np.asarray(self._run, dtype=np.int64),
            np.asarray(self._ts, dtype=np.int64),
            np.asarray(self._rtt, dtype=np.float64),
        )


@dataclass(frozen=True, slots=True)
class HourDelta:
    sent: int
    received: int
    rtt_sum_ms: float
    rtt_min_ms: float | None
    rtt_max_ms: float | None
    jitter_sum_ms: float
    jitter_pairs: int
    hist: np.ndarray

    def plus(self, other: HourDelta) -> HourDelta:
        return HourDelta(
            self.sent + other.sent,
            self.received + other.received,
            self.rtt_sum_ms + other.rtt_sum_ms,
            _opt(min, self.rtt_min_ms, other.rtt_min_ms),
            _opt(max, self.rtt_max_ms, other.rtt_max_ms),
            self.jitter_sum_ms + other.jitter_sum_ms,
            self.jitter_pairs + other.jitter_pairs,
            self.hist + other.hist,
        )


def _opt(pick: Any, a: float | None, b: float | None) -> float | None:
    if a is None:
        return b
    if b is None:
        return a
    return float(pick(a, b))


def _number(value: object) -> float | int | None:
    return value if isinstance(value, int | float) and not isinstance(value, bool) else None


def _label_filter(**labels: str | None) -> tuple[str, list[Any]]:
    clauses = [f"{column} = ?" for column, value in labels.items() if value is not None]
    params = [value for value in labels.values() if value is not None]
    return (" WHERE " + " AND ".join(clauses)) if clauses else "", params


def _range_filter(
    id_column: str, time_column: str, ids: Iterable[int] | None, since: int | None, until: int | None
) -> tuple[str, list[Any]]:
    clauses: list[str] = []
    params: list[Any] = []
    if ids is not None:
        id_list = [int(i) for i in ids]
        if not id_list:
            return " WHERE 0", []
        clauses.append(f"{id_column} IN ({', '.join('?' * len(id_list))})")
        params.extend(id_list)
    if since is not None:
        clauses.append(f"{time_column} >= ?")
        params.append(since)
    if until is not None:
        clauses.append(f"{time_column} < ?")
        params.append(until)
    return (" WHERE " + " AND ".join(clauses)) if clauses else "", params


__all__ = [
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "RoundInfo",
    "Store",
    "StoredTarget",
    "StoredTrace",
    "TargetHistory",
    "run_metadata",
]
