"""What to analyse: which stored series, over which period, from which vantage point, grouped how.

A `Scope` selects series (what was measured, with the labels it was measured under, from one vantage point:
`probes.store.StoredSeries`) by their labels and vantage point (or one target by name), and says how to
group them: per target (its key, name and labels: one line from every vantage point in the scope), per
region (the catalog's `provider` + `region`), or per claimed line type. Series without the labels a grouping
needs are left out of that grouping (a sample cannot be attributed to a region it was not labelled with).
A series' labels are those its rounds were measured under, never rewritten: a later round with other labels
is another series. RTT statistics come from the latency methods (ICMP echo, TCP connect); throughput from
download and iperf3 results of the same group; latency under load from responsiveness tests
(`probes.analysis.loads`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import pandas as pd

from probes.errors import ScopeError
from probes.i18n import _
from probes.store import Store, StoredSeries

GroupBy = Literal["target", "region", "line_type"]
GROUP_COLUMNS: dict[str, tuple[str, ...]] = {
    "target": ("target", "method", "key", "provider", "region", "line_type"),
    "region": ("provider", "region"),
    "line_type": ("line_type",),
}
RTT_METHODS = ("icmp", "tcp")
THROUGHPUT_METHODS = ("download", "iperf3")
LOAD_METHODS = ("responsiveness",)  # latency under load: figures per test, never mixed into RTT


@dataclass(frozen=True, slots=True)
class Scope:
    """Which measurements to analyse. Times are UTC microseconds since the epoch; `until_us` is exclusive."""

    by: GroupBy = "region"
    target: str | None = None  # a target's name, host, URL or key (as `linkvet history` takes it)
    provider: str | None = None
    region: str | None = None
    line_type: str | None = None
    since_us: int | None = None
    until_us: int | None = None
    vantage: str | None = None  # only series measured from this vantage point (THIS_MACHINE: rounds that
    # named none); None = every vantage point's
    series_ids: tuple[int, ...] | None = None  # only these series (e.g. a chart's line); None = by the labels
    rtt_methods: tuple[str, ...] = RTT_METHODS
    throughput_methods: tuple[str, ...] = THROUGHPUT_METHODS
    load_methods: tuple[str, ...] = LOAD_METHODS

    def __post_init__(self) -> None:
        if self.by not in GROUP_COLUMNS:
            raise ScopeError(
                _("cannot group by {by!r} (expected target, region or line_type)").format(by=self.by)
            )
        if self.since_us is not None and self.until_us is not None and self.since_us >= self.until_us:
            raise ScopeError(_("the period is empty: its start is not before its end"))


@dataclass(frozen=True, slots=True)
class Selected:
    """The series a scope selects, each with its group: `series` has one row per stored series (series_id,
    key, target (its name), method, host, provider, region, line_type, vantage, group, kind ∈ {"rtt",
    "throughput", "load"}); `groups` one row per group (index = group number) with the grouping's label
    columns and `label`."""

    series: pd.DataFrame
    groups: pd.DataFrame

    def ids(self, kind: str) -> list[int]:
        return [int(i) for i in self.series.loc[self.series["kind"] == kind, "series_id"]]

    def group_of(self) -> dict[int, int]:
        return dict(zip(self.series["series_id"], self.series["group"], strict=True))


def select(store: Store, scope: Scope) -> Selected:
    """The stored series in `scope`, grouped as it says."""
    if scope.target is not None:
        found: list[StoredSeries] = store.find_series(scope.target)
        if not found:
            raise ScopeError(
                _("no stored target is called {target!r} (name, host, URL or key)").format(
                    target=scope.target
                )
            )
        stored = [
            t
            for t in found
            if all(
                want is None or got == want
                for want, got in (
                    (scope.provider, t.provider),
                    (scope.region, t.region),
                    (scope.line_type, t.line_type),
                    (scope.vantage, t.vantage),
                )
            )
        ]
    else:
        stored = store.series(
            provider=scope.provider, region=scope.region, line_type=scope.line_type, vantage=scope.vantage
        )
    if scope.series_ids is not None:
        wanted = set(scope.series_ids)
        stored = [t for t in stored if t.id in wanted]
    return group_series(stored, scope)


def group_series(stored: list[StoredSeries], scope: Scope) -> Selected:
    """Assign each series its group and kind (pure: the grouping rule on its own)."""
    rows = []
    for t in stored:
        if t.method in scope.rtt_methods:
            kind = "rtt"
        elif t.method in scope.throughput_methods:
            kind = "throughput"
        elif t.method in scope.load_methods:
            kind = "load"
        else:
            continue
        rows.append(
            {
                "series_id": t.id,
                "key": t.key,
                "target": t.name,
                "method": t.method,
                "host": t.host,
                "provider": t.provider,
                "region": t.region,
                "line_type": t.line_type,
                "vantage": t.vantage,
                "kind": kind,
            }
        )
    columns = [
        "series_id",
        "key",
        "target",
        "method",
        "host",
        "provider",
        "region",
        "line_type",
        "vantage",
        "kind",
    ]
    series = pd.DataFrame(rows, columns=columns)
    label_columns = list(GROUP_COLUMNS[scope.by])
    if scope.by != "target":
        series = series.dropna(subset=label_columns)
    series = series.sort_values([*label_columns, "vantage", "series_id"], kind="stable", na_position="last")
    series = series.reset_index(drop=True)
    if series.empty:
        groups = pd.DataFrame(columns=[*label_columns, "label"])
        series["group"] = pd.Series(dtype="int64")
        return Selected(series, groups)
    key_frame = series[label_columns].astype(object).where(series[label_columns].notna(), None)
    keys = [tuple(row) for row in key_frame.itertuples(index=False, name=None)]
    numbers: dict[tuple[object, ...], int] = {}
    for key in keys:
        numbers.setdefault(key, len(numbers))
    series["group"] = [numbers[k] for k in keys]
    groups = pd.DataFrame(list(numbers), columns=label_columns)
    groups["label"] = [_label(scope.by, dict(zip(label_columns, k, strict=True))) for k in numbers]
    return Selected(series, groups)


def _label(by: str, labels: dict[str, object]) -> str:
    if by == "region":
        return f"{labels['provider']}/{labels['region']}"
    if by == "line_type":
        return str(labels["line_type"])
    return str(labels["target"])
