"""What to analyse: which stored targets, over which period, from which vantage point, grouped how.

A `Scope` selects targets by their labels (or one target by name), and says how to group them: per target,
per region (the catalog's `provider` + `region`), or per claimed line type. Targets without the labels a
grouping needs are left out of that grouping (a sample cannot be attributed to a region it is not labelled
with). RTT statistics come from the latency methods (ICMP echo, TCP connect); throughput from download and
iperf3 results of the same group; latency under load from responsiveness tests (`probes.analysis.loads`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import pandas as pd

from probes.errors import ScopeError
from probes.i18n import _
from probes.store import Store, StoredTarget

GroupBy = Literal["target", "region", "line_type"]
GROUP_COLUMNS: dict[str, tuple[str, ...]] = {
    "target": ("target_id", "target", "method", "provider", "region", "line_type"),
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
    vantage: str | None = None  # only rounds measured from this vantage point; None = every round
    no_vantage: bool = False  # only rounds that recorded no vantage point (beside others that did)
    rtt_methods: tuple[str, ...] = RTT_METHODS
    throughput_methods: tuple[str, ...] = THROUGHPUT_METHODS
    load_methods: tuple[str, ...] = LOAD_METHODS

    @property
    def filters_vantage(self) -> bool:
        return self.vantage is not None or self.no_vantage

    def from_vantage(self, vantage: str | None) -> bool:
        """Whether rounds from `vantage` are in the scope."""
        if self.no_vantage:
            return vantage is None
        return self.vantage is None or vantage == self.vantage

    def __post_init__(self) -> None:
        if self.by not in GROUP_COLUMNS:
            raise ScopeError(
                _("cannot group by {by!r} (expected target, region or line_type)").format(by=self.by)
            )
        if self.vantage is not None and self.no_vantage:
            raise ScopeError(_("a scope cannot ask for a vantage point and for rounds without one"))
        if self.since_us is not None and self.until_us is not None and self.since_us >= self.until_us:
            raise ScopeError(_("the period is empty: its start is not before its end"))


@dataclass(frozen=True, slots=True)
class Selected:
    """The targets a scope selects, each with its group: `targets` has one row per stored target
    (target_id, name, method, provider, region, line_type, group, kind ∈ {"rtt", "throughput", "load"});
    `groups` one row per group (index = group number) with the grouping's label columns and `label`."""

    targets: pd.DataFrame
    groups: pd.DataFrame

    def ids(self, kind: str) -> list[int]:
        return [int(i) for i in self.targets.loc[self.targets["kind"] == kind, "target_id"]]

    def group_of(self) -> dict[int, int]:
        return dict(zip(self.targets["target_id"], self.targets["group"], strict=True))


def select(store: Store, scope: Scope) -> Selected:
    """The stored targets in `scope`, grouped as it says."""
    if scope.target is not None:
        found: list[StoredTarget] = store.find_targets(scope.target)
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
                )
            )
        ]
    else:
        stored = store.targets(provider=scope.provider, region=scope.region, line_type=scope.line_type)
    return group_targets(stored, scope)


def group_targets(stored: list[StoredTarget], scope: Scope) -> Selected:
    """Assign each target its group and kind (pure: the grouping rule on its own)."""
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
                "target_id": t.id,
                "target": t.name,
                "method": t.method,
                "host": t.host,
                "provider": t.provider,
                "region": t.region,
                "line_type": t.line_type,
                "kind": kind,
            }
        )
    columns = ["target_id", "target", "method", "host", "provider", "region", "line_type", "kind"]
    targets = pd.DataFrame(rows, columns=columns)
    label_columns = list(GROUP_COLUMNS[scope.by])
    needed = [c for c in label_columns if c not in ("target_id", "target", "method")]
    if scope.by != "target":
        targets = targets.dropna(subset=needed)
    targets = targets.sort_values(label_columns, kind="stable", na_position="last").reset_index(drop=True)
    if targets.empty:
        groups = pd.DataFrame(columns=[*label_columns, "label"])
        targets["group"] = pd.Series(dtype="int64")
        return Selected(targets, groups)
    key_frame = targets[label_columns].astype(object).where(targets[label_columns].notna(), None)
    keys = [tuple(row) for row in key_frame.itertuples(index=False, name=None)]
    numbers: dict[tuple[object, ...], int] = {}
    for key in keys:
        numbers.setdefault(key, len(numbers))
    targets["group"] = [numbers[k] for k in keys]
    groups = pd.DataFrame(list(numbers), columns=label_columns)
    groups["label"] = [_label(scope.by, dict(zip(label_columns, k, strict=True))) for k in numbers]
    return Selected(targets, groups)


def _label(by: str, labels: dict[str, object]) -> str:
    if by == "region":
        return f"{labels['provider']}/{labels['region']}"
    if by == "line_type":
        return str(labels["line_type"])
    return str(labels["target"])
