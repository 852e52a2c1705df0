"""The SQLite schema: one list of migrations; the schema version is how many of them a file has had.

Tables
    targets   one row per measured thing (method + address), with its latest labels
    rounds    one row per measuring round (when, what plan, from which vantage point, tool version)
    results   one row per target per round: the summary statistics and the method's figures
    samples   one row per attempt: UTC time, RTT in ms or NULL when lost, the error kind, and for a
              `responsiveness` probe the phase it was sent in (idle, download-ramp, download, …; else NULL)
    hourly    per target and UTC hour: counts, sums and a mergeable RTT histogram (see probes.histogram),
              derived from samples in the same transaction that writes them, rebuildable from them
    traces, trace_replies   a `trace` result's probes and the route verdict it got
    alert_states   per plan, vantage point, alert rule and target: firing or ok, since when, the value judged
                   (`probes.alerts`; kept across restarts so an alert is told once, and its end once)
    alert_outbox   notifications not yet delivered (retried with backoff, survive a restart)

Times are UTC: `*_us` columns are microseconds since the epoch, `hour_s` seconds at the start of the hour.
The version is `PRAGMA user_version`.
"""

from __future__ import annotations

from collections.abc import Sequence

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
]
SCHEMA_VERSION = len(MIGRATIONS)
