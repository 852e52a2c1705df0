"""Share of hours breaching loss and latency thresholds, on the week with a known peak."""

from __future__ import annotations

import pytest

from probes.analysis import Scope, Thresholds, breach_intervals, breach_shares
from probes.store import Store
from tests.analysis.week import OFFPEAK_MS


def test_known_peak_breaches_every_peak_hour_and_nothing_else(week_store: Store) -> None:
    shares = breach_shares(week_store).set_index("label")
    la = shares.loc["raksmart/los-angeles"]
    # Peak: 6.1% loss > 1% and p95 +86 ms over the off-peak p95 + max(20 ms, 10%).
    assert la["intervals_peak"] == 21 and la["intervals_offpeak"] == 147
    assert la["loss_breach_share_peak"] == 1.0 and la["spike_breach_share_peak"] == 1.0
    # Off-peak: 2‰ loss spreads at most one lost attempt over an hour's 120 (0.83%): no breach.
    assert la["loss_breach_share_offpeak"] == 0.0 and la["spike_breach_share_offpeak"] == 0.0
    assert la["any_breach_share"] == pytest.approx(21 / 168)
    assert la["spike_threshold_ms"] == pytest.approx(OFFPEAK_MS + 20.0)
    sjc = shares.loc["lambda/us-west-1"]
    assert sjc["any_breach_share"] == 0.0
    assert sjc["intervals"] == 168


def test_thresholds_move_the_verdicts(week_store: Store) -> None:
    strict = Thresholds(loss_above=0.005, spike_margin_ms=1.0, spike_margin_ratio=0.0)
    intervals = breach_intervals(week_store, Scope(provider="raksmart"), thresholds=strict)
    off = intervals.loc[intervals["peak"] == 0]
    # Hours with one lost attempt of 120 (0.83%) now breach on loss; each is checked against its own loss.
    assert (off["loss_breach"] == (off["loss"] > 0.005)).all()
    assert 0 < off["loss_breach"].sum() < len(off)
    assert intervals["spike_threshold_ms"].iloc[0] == pytest.approx(OFFPEAK_MS + 1.0)


def test_thin_intervals_are_not_judged(week_store: Store) -> None:
    intervals = breach_intervals(week_store, thresholds=Thresholds(min_attempts=121))
    assert not intervals["judged"].any()
    shares = breach_shares(week_store, thresholds=Thresholds(min_attempts=121))
    assert (shares["intervals"] == 0).all()
    assert shares["any_breach_share"].isna().all()
