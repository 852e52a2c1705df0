"""The SQLite schema: one list of migrations; the schema version is how many of them a file has had.

Tables
    series    one row per measured series: what was measured (method + address: the target's `key`, with its
              name, host, port, URL), with which labels (provider, region, line type) and from which vantage
              point (`this-machine` for rounds that named none); never rewritten: a round with other labels
              or from elsewhere starts another series
    rounds    one row per measuring round (when, what plan, from which vantage point, tool version); `uid` is
              the round's stable id (a round forwarded twice from the spool is stored once) and `slot_us` the
              scheduled slot it measured: a (vantage, plan, slot) round is unique
    results   one row per series per round: the summary statistics and the method's figures
    samples   one row per attempt: UTC time, RTT in ms or NULL when lost, the error kind, and for a
              `responsiveness` probe the phase it was sent in (idle, download-ramp, download, …; else NULL);
              keyed by run (result) and position in it (`pos`, 0… in the order written; one tree in SQLite,
              WITHOUT ROWID): a series' or a window's samples are found through their results
    hourly, quarter_hourly   per series and UTC hour / quarter hour: counts, sums and a mergeable RTT
              histogram (see probes.histogram), derived from samples in the same transaction that writes
              them, rebuildable from them
    traces, trace_replies   a `trace` result's probes and the route verdict it got (keyed by its series)
    alert_states   per plan, vantage point, alert rule and target: firing or ok, since when, the value judged
                   (`probes.alerts`; kept across restarts so an alert is told once, and its end once)
    alert_outbox   notifications not yet delivered (retried with backoff, survive a restart)
    locks     named locks with their holder and heartbeat (`probes.store.locks`: one scheduler per plan and
              vantage point on a store)
    store_facts   named numbers about what the store holds: `sample_reach_us`, the farthest any stored
                  sample lies from its result's start (so a window's samples are found through the results
                  started within that reach of it)
    evaluations   evaluation documents by name: a versioned TOML body the evaluation model reads and writes
    agents        per vantage point and evaluation (or plan), its office agent's health as last reported
    vendor_facts  what a team knows about its vendors beyond the catalogs, one record per change (a fact, an
                  acceptance check, a fact taken out, a choice between two offices' answers), each with who
                  recorded it, from which office and when; never rewritten (`probes.store.vendor_facts`)

Times are UTC: `*_us` columns are microseconds since the epoch, `hour_s`/`start_s` seconds at the start of the
period. The version is `PRAGMA user_version`. Until schema 9 a `targets` row (one per key) carried its latest
labels, rewritten by each round; migration 9 splits it into one series per vantage point it was measured from,
each with the labels the row had then.

A migration is a list of SQL statements and steps: a step is a function of the connection (for what SQL
alone cannot do cheaply), and `REBUILD_ROLLUPS` asks for every rollup to be recomputed from the raw samples
once the migrations have run (the backend calls the store's rebuild inside the same transaction).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence

Step = Callable[[sqlite3.Connection], None]


def REBUILD_ROLLUPS(db: sqlite3.Connection) -> None:
    """Marker: recompute every rollup from the raw samples after the migrations (see the module docstring)."""


def _remove_double_rounds(db: sqlite3.Connection) -> None:
    """Scheduled rounds of one plan and vantage point that measured the same slot (two schedulers on one
    store): keep the first stored (lowest id), delete the others with their results, samples and traces.
    A round stored before slots were recorded has the whole second it started in as its slot (a scheduler
    starts a round on its slot, a few milliseconds late)."""
    doubles = [
        row[0]
        for row in db.execute(
            "SELECT id FROM rounds WHERE slot_us IS NOT NULL AND id NOT IN (SELECT min(id) FROM rounds"
            " WHERE slot_us IS NOT NULL GROUP BY coalesce(vantage, ''), plan, slot_us) ORDER BY id"
        )
    ]
    for round_id in doubles:
        results = db.execute(
            "SELECT id, target_id, started_us, finished_us FROM results WHERE round_id = ?", (round_id,)
        ).fetchall()
        for result_id, target_id, started_us, finished_us in results:
            db.execute("DELETE FROM trace_replies WHERE result_id = ?", (result_id,))
            db.execute("DELETE FROM traces WHERE result_id = ?", (result_id,))
            # A result's samples lie in its span (a day's margin): the index on (target_id, ts_us) finds them.
            span = db.execute(
                "SELECT min(ts_us), max(ts_us) FROM samples WHERE result_id = ? AND target_id = ?"
                " AND ts_us BETWEEN ? AND ?",
                (result_id, target_id, started_us - 86_400_000_000, finished_us + 86_400_000_000),
            ).fetchone()
            if span is not None and span[0] is not None:
                db.execute(
                    "DELETE FROM samples WHERE target_id = ? AND ts_us BETWEEN ? AND ? AND result_id = ?",
                    (target_id, span[0], span[1], result_id),
                )
            db.execute("DELETE FROM results WHERE id = ?", (result_id,))
        db.execute("DELETE FROM rounds WHERE id = ?", (round_id,))


_VANTAGE = "coalesce(nullif(ro.vantage, ''), 'this-machine')"  # probes.vantage.THIS_MACHINE, then


def _split_targets(db: sqlite3.Connection) -> None:
    """Schema 9: each target row becomes one series per vantage point its results were measured from (rounds
    without one: `this-machine`), with the row's name and labels as they are (so old rounds keep the
    attribution they had). The vantage point with the most results keeps the row's id, so the samples of a
    target measured from one place stay as they are; the others get new ids, noted in the temporary table
    `split_series` for `_move_to_series`. A row with no result left is dropped. Plain SQL both backends run
    (on PostgreSQL through `QmarkConnection`)."""
    pairs = db.execute(
        f"SELECT r.target_id, {_VANTAGE}, count(*) FROM results r JOIN rounds ro ON ro.id = r.round_id"
        f" GROUP BY r.target_id, {_VANTAGE} ORDER BY r.target_id, count(*) DESC, {_VANTAGE}"
    ).fetchall()
    rows = {
        int(row[0]): tuple(row[1:])
        for row in db.execute(
            "SELECT id, key, name, method, host, port, url, provider, region, line_type FROM targets"
        )
    }
    next_id = max(rows, default=0) + 1
    db.execute(
        "CREATE TEMPORARY TABLE split_series (target_id BIGINT NOT NULL, vantage TEXT NOT NULL,"
        " series_id BIGINT NOT NULL, PRIMARY KEY (target_id, vantage))"
    )
    kept: set[int] = set()
    for target_id, vantage, _results in pairs:
        if int(target_id) not in rows:
            continue  # a result whose target row is gone: its series cannot be named (never written so)
        if target_id in kept:
            series_id, next_id = next_id, next_id + 1
        else:
            series_id = int(target_id)
            kept.add(series_id)
        db.execute(
            "INSERT INTO series (id, key, name, method, host, port, url, provider, region, line_type, vantage)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (series_id, *rows[int(target_id)], vantage),
        )
        db.execute("INSERT INTO split_series VALUES (?, ?, ?)", (target_id, vantage, series_id))


def _move_to_series(db: sqlite3.Connection) -> None:
    """Schema 9, once `target_id` is `series_id` and the targets (and PostgreSQL's references to them) are
    gone: the results of a target's other vantage points, their samples and traces, to their series."""
    moved = "SELECT target_id FROM split_series WHERE series_id <> target_id"
    db.execute(
        f"UPDATE results SET series_id = (SELECT sp.series_id FROM rounds ro, split_series sp"
        f" WHERE ro.id = results.round_id AND sp.target_id = results.series_id AND sp.vantage = {_VANTAGE})"
        f" WHERE series_id IN ({moved})"
    )
    for table in ("samples", "traces"):
        db.execute(
            f"UPDATE {table} SET series_id = (SELECT r.series_id FROM results r WHERE r.id = {table}.result_id)"
            " WHERE result_id IN (SELECT r.id FROM results r JOIN split_series sp ON sp.series_id = r.series_id"
            " WHERE sp.series_id <> sp.target_id)"
        )
    db.execute("DROP TABLE split_series")


def _rollup_table(name: str, start: str) -> str:
    """A rollup table keyed by (start, series) (schema 9; before it, by target)."""
    return f"""CREATE TABLE {name} (
            {start} INTEGER NOT NULL,
            series_id INTEGER NOT NULL,
            sent INTEGER NOT NULL,
            received INTEGER NOT NULL,
            rtt_sum_ms REAL NOT NULL,
            rtt_min_ms REAL,
            rtt_max_ms REAL,
            jitter_sum_ms REAL NOT NULL,
            jitter_pairs INTEGER NOT NULL,
            hist_index BLOB NOT NULL,
            hist_count BLOB NOT NULL,
            PRIMARY KEY ({start}, series_id)
        ) WITHOUT ROWID"""


MIGRATIONS: list[Sequence[str | Step]] = [
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
    (  # 3: alert states and the notifications waiting to be delivered (probes.alerts)
        """CREATE TABLE alert_states (
            plan TEXT NOT NULL,
            vantage TEXT NOT NULL,
            rule TEXT NOT NULL,
            target_key TEXT NOT NULL,
            status TEXT NOT NULL,
            since_us INTEGER NOT NULL,
            value REAL,
            baseline TEXT,
            updated_us INTEGER NOT NULL,
            PRIMARY KEY (plan, vantage, rule, target_key)
        ) WITHOUT ROWID""",
        """CREATE TABLE alert_outbox (
            id INTEGER PRIMARY KEY,
            plan TEXT NOT NULL,
            vantage TEXT NOT NULL,
            notifier TEXT NOT NULL,
            created_us INTEGER NOT NULL,
            event_json TEXT NOT NULL,
            attempts INTEGER NOT NULL,
            next_attempt_us INTEGER NOT NULL,
            last_error TEXT
        )""",
        "CREATE INDEX alert_outbox_due ON alert_outbox (plan, vantage, next_attempt_us)",
    ),
    (  # 4: what the line was doing when each sample was sent (`responsiveness`: idle, download, …)
        "ALTER TABLE samples ADD COLUMN phase TEXT",
    ),
    (  # 5: a round's stable id and its scheduled slot; a (vantage, plan, slot) round is unique
        "ALTER TABLE rounds ADD COLUMN uid TEXT",
        "ALTER TABLE rounds ADD COLUMN slot_us INTEGER",
        "UPDATE rounds SET slot_us = started_us / 1000000 * 1000000 WHERE source = 'schedule' AND plan IS NOT NULL",
        _remove_double_rounds,
        "CREATE UNIQUE INDEX rounds_uid ON rounds (uid)",
        "CREATE UNIQUE INDEX rounds_slot ON rounds (coalesce(vantage, ''), plan, slot_us)"
        " WHERE slot_us IS NOT NULL",
        REBUILD_ROLLUPS,  # the doubles' samples are gone from the rollups too
    ),
    (  # 6: named locks (one scheduler per plan and vantage point on a store)
        """CREATE TABLE locks (
            name TEXT PRIMARY KEY,
            token TEXT NOT NULL,
            pid INTEGER,
            host TEXT,
            what TEXT,
            since_us INTEGER NOT NULL,
            heartbeat_us INTEGER NOT NULL
        )""",
    ),
    (  # 7: quarter-hour rollups beside the hourly ones; rollups and results indexed by time first, so that
        # a round's rows share a few pages instead of dirtying one page per target; rollups rebuilt
        "DROP INDEX results_target_time",
        "CREATE INDEX results_time ON results (started_us)",
        "DROP TABLE hourly",
        """CREATE TABLE hourly (
            hour_s INTEGER NOT NULL,
            target_id INTEGER NOT NULL,
            sent INTEGER NOT NULL,
            received INTEGER NOT NULL,
            rtt_sum_ms REAL NOT NULL,
            rtt_min_ms REAL,
            rtt_max_ms REAL,
            jitter_sum_ms REAL NOT NULL,
            jitter_pairs INTEGER NOT NULL,
            hist_index BLOB NOT NULL,
            hist_count BLOB NOT NULL,
            PRIMARY KEY (hour_s, target_id)
        ) WITHOUT ROWID""",
        """CREATE TABLE quarter_hourly (
            start_s INTEGER NOT NULL,
            target_id INTEGER NOT NULL,
            sent INTEGER NOT NULL,
            received INTEGER NOT NULL,
            rtt_sum_ms REAL NOT NULL,
            rtt_min_ms REAL,
            rtt_max_ms REAL,
            jitter_sum_ms REAL NOT NULL,
            jitter_pairs INTEGER NOT NULL,
            hist_index BLOB NOT NULL,
            hist_count BLOB NOT NULL,
            PRIMARY KEY (start_s, target_id)
        ) WITHOUT ROWID""",
        REBUILD_ROLLUPS,
    ),
    (  # 8: samples kept in the order they are written (a round's samples, run by run) and indexed by run:
        # a round then adds to the end of two trees instead of one page per target of an index by target
        # and time; samples of a target or a time are found through their runs (results), which lie within
        # `sample_reach_us` of their samples (`store_facts`)
        """CREATE TABLE samples_by_run (
            result_id INTEGER NOT NULL REFERENCES results (id),
            target_id INTEGER NOT NULL,
            ts_us INTEGER NOT NULL,
            seq INTEGER NOT NULL,
            rtt_ms REAL,
            error TEXT,
            phase TEXT
        )""",
        "INSERT INTO samples_by_run (result_id, target_id, ts_us, seq, rtt_ms, error, phase)"
        " SELECT result_id, target_id, ts_us, seq, rtt_ms, error, phase FROM samples ORDER BY result_id, seq",
        "DROP TABLE samples",
        "ALTER TABLE samples_by_run RENAME TO samples",
        "CREATE INDEX samples_run ON samples (result_id, seq)",
        """CREATE TABLE store_facts (
            name TEXT PRIMARY KEY,
            value INTEGER NOT NULL
        ) WITHOUT ROWID""",
        "INSERT INTO store_facts (name, value) SELECT 'sample_reach_us', coalesce(max(abs(s.ts_us - r.started_us)), 0)"
        " FROM samples s JOIN results r ON r.id = s.result_id",
    ),
    (  # 9: series: what was measured, with which labels, from where, never rewritten (see the docstring);
        # results, samples, traces and rollups keyed by series, so one vantage point's rollups are its own
        """CREATE TABLE series (
            id INTEGER PRIMARY KEY,
            key TEXT NOT NULL,
            name TEXT NOT NULL,
            method TEXT NOT NULL,
            host TEXT,
            port INTEGER,
            url TEXT,
            provider TEXT,
            region TEXT,
            line_type TEXT,
            vantage TEXT NOT NULL
        )""",
        "CREATE UNIQUE INDEX series_identity ON series"
        " (key, name, coalesce(provider, ''), coalesce(region, ''), coalesce(line_type, ''), vantage)",
        _split_targets,
        "ALTER TABLE results RENAME COLUMN target_id TO series_id",
        "ALTER TABLE samples RENAME COLUMN target_id TO series_id",
        "ALTER TABLE traces RENAME COLUMN target_id TO series_id",
        "DROP INDEX traces_target_time",
        "CREATE INDEX traces_series_time ON traces (series_id, started_us)",
        "DROP TABLE hourly",
        "DROP TABLE quarter_hourly",
        _rollup_table("hourly", "hour_s"),
        _rollup_table("quarter_hourly", "start_s"),
        "DROP TABLE targets",
        _move_to_series,
        REBUILD_ROLLUPS,
    ),
    (  # 10: evaluation documents by name, and the office agents' health (`probes.store.documents`)
        """CREATE TABLE evaluations (
            name TEXT PRIMARY KEY,
            format INTEGER NOT NULL,
            body TEXT NOT NULL,
            updated_us INTEGER NOT NULL,
            updated_by TEXT
        ) WITHOUT ROWID""",
        """CREATE TABLE agents (
            vantage TEXT NOT NULL,
            evaluation_or_plan TEXT NOT NULL,
            host TEXT NOT NULL,
            pid INTEGER,
            version TEXT,
            last_round_us INTEGER,
            spooled_rounds INTEGER NOT NULL,
            updated_us INTEGER NOT NULL,
            PRIMARY KEY (vantage, evaluation_or_plan)
        ) WITHOUT ROWID""",
    ),
    (  # 11: what the team knows about vendors, one record per change (`probes.store.vendor_facts`), and the
        # carrier an office agent says its line is on
        """CREATE TABLE vendor_facts (
            id INTEGER PRIMARY KEY,
            provider TEXT NOT NULL,
            kind TEXT NOT NULL,
            key TEXT NOT NULL,
            format INTEGER NOT NULL,
            body TEXT NOT NULL,
            office TEXT,
            recorded_by TEXT NOT NULL,
            recorded_us INTEGER NOT NULL
        )""",
        "CREATE INDEX vendor_facts_provider ON vendor_facts (provider, id)",
        "ALTER TABLE agents ADD COLUMN carrier TEXT",
    ),
    (  # 12: samples keyed by run and position in it, (result_id, pos): in SQLite one tree (WITHOUT ROWID)
        # where there were two (the rows and their index by run), so a round writes each sample once. The key
        # columns come first: SQLite 3.40's integrity check misreads the NOT NULL columns of a WITHOUT ROWID
        # table laid out otherwise. No foreign key: the write path writes a round's results before their
        # samples in one transaction, and checking each sample's reference (PostgreSQL does, SQLite has them
        # off) cost PostgreSQL's write path 40 % of a round
        """CREATE TABLE samples_keyed (
            result_id INTEGER NOT NULL,
            pos INTEGER NOT NULL,
            series_id INTEGER NOT NULL,
            ts_us INTEGER NOT NULL,
            seq INTEGER NOT NULL,
            rtt_ms REAL,
            error TEXT,
            phase TEXT,
            PRIMARY KEY (result_id, pos)
        ) WITHOUT ROWID""",
        "INSERT INTO samples_keyed (result_id, pos, series_id, ts_us, seq, rtt_ms, error, phase)"
        " SELECT result_id, row_number() OVER (PARTITION BY result_id ORDER BY seq, ts_us) - 1,"
        " series_id, ts_us, seq, rtt_ms, error, phase FROM samples",
        "DROP TABLE samples",
        "ALTER TABLE samples_keyed RENAME TO samples",
    ),
]
SCHEMA_VERSION = len(MIGRATIONS)
