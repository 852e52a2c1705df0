"""`Store`: the result store as the rest of linkvet sees it — open one, save rounds, read records and frames.

It opens a backend (SQLite today: `probes.store.sqlite`) and hands each call to the write path
(`probes.store.writing`) or the read path (`probes.store.reading`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from probes.paths import default_db_path
from probes.results import ProbeResult
from probes.store import reading, writing
from probes.store.backend import Backend
from probes.store.records import RoundInfo, StoredTarget, StoredTrace, TargetHistory
from probes.store.sqlite import SqliteBackend


class Store:
    """An open result store. One per thread (SQLite connections are not shared across threads)."""

    def __init__(self, path: Path | str | None = None, *, readonly: bool = False) -> None:
        self.path = Path(path) if path is not None else default_db_path()
        self.readonly = readonly
        self.backend: Backend = SqliteBackend(self.path, readonly=readonly)

    def close(self) -> None:
        self.backend.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def schema_version(self) -> int:
        return self.backend.schema_version

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
        return writing.save_round(
            self.backend,
            results,
            started_us=started_us,
            finished_us=finished_us,
            source=source,
            plan=plan,
            vantage=vantage,
            peak=peak,
            meta=meta,
        )

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
        return writing.save_results(
            self.backend, results, source=source, plan=plan, vantage=vantage, peak=peak, meta=meta
        )

    def rebuild_hourly(self) -> int:
        """Recompute every hourly rollup from the raw samples; the number of rollup rows written."""
        return writing.rebuild_rollups(self.backend)

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
        return reading.targets(
            self.backend, provider=provider, region=region, line_type=line_type, method=method
        )

    def find_targets(self, text: str) -> list[StoredTarget]:
        """Targets whose name, host, URL or key is `text` (what a user types for `linkvet history`)."""
        return reading.find_targets(self.backend, text)

    def rounds(
        self, *, since_us: int | None = None, plan: str | None = None, limit: int | None = None
    ) -> list[RoundInfo]:
        """Rounds, newest first."""
        return reading.rounds(self.backend, since_us=since_us, plan=plan, limit=limit)

    def timed_by(self, *, since_us: int | None = None, until_us: int | None = None) -> list[tuple[str, int]]:
        """How the results started in [since_us, until_us) were timed: (`backend/timestamps`, e.g.
        `linux/kernel`, `portable/user`; `unrecorded` for results that say neither, such as HTTP's or those
        stored before the probe backends) with the number of results, the most common first."""
        out: list[tuple[str, int]] = []
        for backend, timestamps, count in self.backend.timing_counts(since_us, until_us):
            label = "/".join(str(part) for part in (backend, timestamps) if part) or "unrecorded"
            out.append((label, int(count)))
        return out

    def last_measured_us(self, target_key: str) -> int | None:
        """When the target's most recent stored result started, or None."""
        return self.backend.last_started_us(target_key)

    def target_histories(
        self, *, method: str | None = None, since_us: int | None = None, until_us: int | None = None
    ) -> list[TargetHistory]:
        """Per stored target (by name, then method) what the store holds, counting results that started
        and attempts sent in [since_us, until_us) when given; targets with nothing there are left out."""
        return reading.target_histories(self.backend, method=method, since_us=since_us, until_us=until_us)

    def results_frame(
        self,
        target_ids: Iterable[int] | None = None,
        since_us: int | None = None,
        until_us: int | None = None,
    ) -> pd.DataFrame:
        """Per-target summaries (one row per target per round) with the target's labels, oldest first."""
        return reading.results_frame(self.backend, target_ids, since_us, until_us)

    def samples_frame(
        self,
        target_ids: Iterable[int] | None = None,
        since_us: int | None = None,
        until_us: int | None = None,
    ) -> pd.DataFrame:
        """Per-attempt samples (target_id, ts_us, seq, rtt_ms (NaN when lost), error, result_id), oldest first."""
        return reading.samples_frame(self.backend, target_ids, since_us, until_us)

    def hourly_frame(
        self,
        target_ids: Iterable[int] | None = None,
        since_us: int | None = None,
        until_us: int | None = None,
    ) -> pd.DataFrame:
        """Hourly rollups (target_id, hour_s, sent, received, rtt_sum_ms, rtt_min_ms, rtt_max_ms, jitter_sum_ms,
        jitter_pairs, hist_index, hist_count); merge histograms with `probes.histogram.merge`."""
        return reading.hourly_frame(self.backend, target_ids, since_us, until_us)

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
        return reading.traces(
            self.backend,
            provider=provider,
            region=region,
            line_type=line_type,
            target_ids=target_ids,
            since_us=since_us,
            until_us=until_us,
        )

    def counts(self) -> dict[str, int]:
        """Row counts per table (for status lines and tests)."""
        return self.backend.counts()
