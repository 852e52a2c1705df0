"""`Store`: the result store as the rest of linkvet sees it — open one, save rounds, read records and frames.

It opens a backend — `probes.store.sqlite` for a path, `probes.store.postgres` for a `postgresql://` URL —
and hands each call to the write path
(`probes.store.writing`) or the read path (`probes.store.reading`).
"""

from __future__ import annotations

from collections.abc import Iterable

import pandas as pd

from probes.store import reading, writing
from probes.store.backend import Backend
from probes.store.documents import AgentHealth, EvaluationDocument, agent_row, evaluation_row
from probes.store.measured import MeasuredRound
from probes.store.recent import RecentRows
from probes.store.records import RoundInfo, SeriesHistory, StoredSeries, StoredTrace
from probes.store.rollup import Rollups
from probes.store.sqlite import SqliteBackend
from probes.store.vendor_facts import VendorFact, vendor_fact_row
from probes.store.writing import Written
from probes.store_location import StoreLocation, StoreUrl, identity, location_or_default
from probes.timestamps import now_us
from probes.vantage import THIS_MACHINE

UNRECORDED = "unrecorded"  # `Store.timed_by`'s label for results that say neither backend nor timestamps


class Store:
    """An open result store, used by one thread at a time (it may be handed to another thread, as the
    scheduler hands it to its writer)."""

    def __init__(
        self, path: StoreLocation | str | None = None, *, readonly: bool = False, connect_now: bool = True
    ) -> None:
        """Open the store at `path`. `connect_now=False`, for a PostgreSQL store only: connect (and migrate)
        at the first use instead, every use failing with StoreUnreachableError until the server answers (an
        agent that starts while its server is down)."""
        self.path: StoreLocation = location_or_default(path)
        self.readonly = readonly
        self.backend: Backend
        if isinstance(self.path, StoreUrl):
            from probes.store.postgres import PostgresBackend  # psycopg only where a server is the store

            self.backend = PostgresBackend(
                self.path,
                readonly=readonly,
                rebuild=writing.rebuild_rollups_in_transaction,
                connect_now=connect_now,
            )
        else:
            if not connect_now:
                raise ValueError("connect_now=False is for a PostgreSQL store (a SQLite file opens here)")
            self.backend = SqliteBackend(
                self.path, readonly=readonly, rebuild=writing.rebuild_rollups_in_transaction
            )
        self._recent = RecentRows()  # what this store's writer wrote last (see probes.store.recent)

    @property
    def identity(self) -> str:
        """What names this store in the spool: its absolute path, or its URL without the password."""
        return identity(self.path)

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

    def write_round(self, measured: MeasuredRound) -> Written:
        """Store a measured round in one transaction, unless the store has it (its uid) or another round of
        its plan and vantage point measured its slot; what happened (`Written`). The one way into the store:
        a round of results is made by `measured_round` (its span given) or `measured_results` (its span from
        the results), a stored one read back by `probes.store.copying`, a spooled one by `from_json`."""
        return writing.write_round(self.backend, measured, self._recent)

    def rebuild_rollups(self) -> int:
        """Recompute every rollup (hourly and quarter-hourly) from the raw samples; the rollup rows written."""
        return writing.rebuild_rollups(self.backend)

    # -- reading -----------------------------------------------------------------------------------------
    # What was measured is read per series (`StoredSeries`: a target's key, the labels it was measured under
    # and the vantage point it was measured from); frames and traces carry each row's series' labels.

    def series(
        self,
        *,
        provider: str | None = None,
        region: str | None = None,
        line_type: str | None = None,
        method: str | None = None,
        vantage: str | None = None,
    ) -> list[StoredSeries]:
        """Stored series, optionally only those with the given labels and vantage point (`THIS_MACHINE` for
        rounds that named none); by name, method and vantage point."""
        return reading.series(
            self.backend,
            provider=provider,
            region=region,
            line_type=line_type,
            method=method,
            vantage=vantage,
        )

    def find_series(self, text: str) -> list[StoredSeries]:
        """Series whose name, host, URL or key is `text` (what a user types for `linkvet history`), every
        vantage point's and label's."""
        return reading.find_series(self.backend, text)

    def vantages(self, *, since_us: int | None = None, until_us: int | None = None) -> list[str]:
        """The vantage points with results started in [since_us, until_us) (every series' without a period):
        named ones by name, then `THIS_MACHINE` (the rounds that named none)."""
        found = self.backend.vantages(since_us, until_us)
        return sorted(found, key=lambda v: (v == THIS_MACHINE, v))

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
            label = "/".join(str(part) for part in (backend, timestamps) if part) or UNRECORDED
            out.append((label, int(count)))
        return out

    def last_measured_us(self, target_key: str, *, vantage: str | None = None) -> int | None:
        """When the target's (its key's) most recent stored result started, measured from `vantage` (None:
        from anywhere), or None."""
        return self.backend.last_started_us(target_key, vantage)

    def series_histories(
        self, *, method: str | None = None, since_us: int | None = None, until_us: int | None = None
    ) -> list[SeriesHistory]:
        """Per stored series (by name, method and vantage point) what the store holds, counting results that
        started and attempts sent in [since_us, until_us) when given; series with nothing there are left
        out."""
        return reading.series_histories(self.backend, method=method, since_us=since_us, until_us=until_us)

    def results_frame(
        self,
        series_ids: Iterable[int] | None = None,
        since_us: int | None = None,
        until_us: int | None = None,
    ) -> pd.DataFrame:
        """Per-series summaries (one row per series per round), oldest first: result_id, round_id,
        series_id, the series' key, name, method, host, port, url, provider, region, line_type and vantage,
        the result's figures, its round's plan and peak."""
        return reading.results_frame(self.backend, series_ids, since_us, until_us)

    def samples_frame(
        self,
        series_ids: Iterable[int] | None = None,
        since_us: int | None = None,
        until_us: int | None = None,
    ) -> pd.DataFrame:
        """Per-attempt samples (series_id, ts_us, seq, rtt_ms (NaN when lost), error, result_id, phase (None
        except for responsiveness probes)), oldest first."""
        return reading.samples_frame(self.backend, series_ids, since_us, until_us)

    def rollup_frame(
        self,
        period_s: int,
        series_ids: Iterable[int] | None = None,
        since_us: int | None = None,
        until_us: int | None = None,
    ) -> pd.DataFrame:
        """Rollups of one length (`probes.store.rollup.PERIODS_S`) whose periods overlap [since_us, until_us):
        series_id, start_s, the `PART_COLUMNS`, hist_index, hist_count."""
        return reading.rollup_frame(self.backend, period_s, series_ids, since_us, until_us)

    def rollups(
        self,
        period_s: int,
        series_ids: Iterable[int] | None = None,
        since_us: int | None = None,
        until_us: int | None = None,
    ) -> Rollups:
        """Rollups of one length whose periods overlap [since_us, until_us), decoded (what analysis reads)."""
        return reading.rollups(self.backend, period_s, series_ids, since_us, until_us)

    def rollup_span(self, period_s: int) -> tuple[int, int] | None:
        """The first and last start (UTC seconds) of the store's rollups of this length, or None."""
        return self.backend.rollup_span(period_s)

    def hourly_frame(
        self,
        series_ids: Iterable[int] | None = None,
        since_us: int | None = None,
        until_us: int | None = None,
    ) -> pd.DataFrame:
        """Hourly rollups (series_id, hour_s, sent, received, rtt_sum_ms, rtt_min_ms, rtt_max_ms, jitter_sum_ms,
        jitter_pairs, hist_index, hist_count); merge histograms with `probes.histogram.merge`."""
        return reading.hourly_frame(self.backend, series_ids, since_us, until_us)

    def traces(
        self,
        *,
        provider: str | None = None,
        region: str | None = None,
        line_type: str | None = None,
        vantage: str | None = None,
        series_ids: Iterable[int] | None = None,
        since_us: int | None = None,
        until_us: int | None = None,
    ) -> list[StoredTrace]:
        """Stored traces with their answering addresses per TTL, oldest first, each with the labels and the
        vantage point it was traced under; optionally only those of series with the given labels."""
        return reading.traces(
            self.backend,
            provider=provider,
            region=region,
            line_type=line_type,
            vantage=vantage,
            series_ids=series_ids,
            since_us=since_us,
            until_us=until_us,
        )

    def counts(self) -> dict[str, int]:
        """Row counts per table (for status lines and tests)."""
        return self.backend.counts()

    # -- evaluations and agents (`probes.store.documents`) --------------------------------------------------

    def evaluations(self) -> list[EvaluationDocument]:
        """Every stored evaluation document, by name."""
        return [EvaluationDocument(*row) for row in self.backend.evaluation_rows(None)]

    def evaluation(self, name: str) -> EvaluationDocument | None:
        """The evaluation document of this name, or None."""
        found = self.backend.evaluation_rows(name)
        return EvaluationDocument(*found[0]) if found else None

    def put_evaluation(
        self,
        name: str,
        body: str,
        *,
        format: int,
        updated_by: str | None = None,
        updated_us: int | None = None,
    ) -> EvaluationDocument:
        """Write (or replace) the evaluation document `name`: its TOML `body` of version `format`, written by
        `updated_by`, at `updated_us` (default: now); what is stored. ValueError for an empty name, a format
        that is no version, a body that is not text."""
        document = EvaluationDocument(
            name, format, body, now_us() if updated_us is None else updated_us, updated_by
        )
        self.backend.put_evaluation_row(evaluation_row(document))
        return document

    def delete_evaluation(self, name: str) -> bool:
        """Delete the evaluation document `name` (no measurement is touched); whether there was one."""
        return self.backend.delete_evaluation_row(name)

    def put_agent(self, agent: AgentHealth) -> None:
        """Record an office agent's state (replacing what its vantage point and evaluation or plan said
        before). ValueError for one without a vantage point, an evaluation or plan, or a host."""
        self.backend.put_agent_row(agent_row(agent))

    def agents(
        self, *, vantage: str | None = None, evaluation_or_plan: str | None = None
    ) -> list[AgentHealth]:
        """The office agents' states as they last reported them (None: any), by evaluation or plan and
        vantage point."""
        return [AgentHealth(*row) for row in self.backend.agent_rows(vantage, evaluation_or_plan)]

    # -- the team's vendor facts (`probes.store.vendor_facts`) ---------------------------------------------

    def add_vendor_facts(self, records: Iterable[VendorFact]) -> list[int]:
        """Store records (their `id` is ignored: the store gives one) in one transaction; their ids, in order.
        ValueError for a record the table cannot hold (nothing is stored then)."""
        rows = [vendor_fact_row(record) for record in records]
        return self.backend.add_vendor_fact_rows(rows) if rows else []

    def vendor_facts(self, *, provider: str | None = None, after_id: int = 0) -> list[VendorFact]:
        """The records (of one provider when named) after `after_id`, in the order they were recorded."""
        return [VendorFact(*row) for row in self.backend.vendor_fact_rows(provider, after_id)]

    def last_vendor_fact_id(self) -> int:
        """The id of the newest record, 0 when there is none (a reader's cheap "has anything changed?")."""
        return self.backend.last_vendor_fact_id()
