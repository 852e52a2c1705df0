"""Peak versus off-peak on series with a known peak: figures, intervals and the verdict sentence."""

from __future__ import annotations

import re

import numpy as np
import pytest

from probes.analysis import Scope, compare_peak, comparisons_frame, newcombe_interval
from probes.analysis.clock import in_peak
from probes.analysis.data import prepare
from probes.histogram import RELATIVE_ERROR
from probes.peak import PeakWindow, mask_any
from probes.store import Store
from tests.analysis.reference import figures, labelled_samples
from tests.analysis.synthetic import utc_us
from tests.analysis.week import OFFPEAK_MS, PEAK_MS, WEEK_HOURS

PEAK_HOURS = 7 * 3
OFFPEAK_ATTEMPTS = (WEEK_HOURS - PEAK_HOURS) * 4 * 30
PEAK_ATTEMPTS = PEAK_HOURS * 4 * 30
OFFPEAK_LOST = OFFPEAK_ATTEMPTS * 2 // 1000  # the model loses exactly ⌊n·k/1000⌋ of n
PEAK_LOST = PEAK_ATTEMPTS * 61 // 1000


def by_label(store: Store, **kwargs: object) -> dict[str, object]:
    return {c.labels["label"]: c for c in compare_peak(store, **kwargs)}  # type: ignore[arg-type]


def test_known_peak_verdict_is_exact(week_store: Store) -> None:
    la = by_label(week_store)["raksmart/los-angeles"]
    expected_offpeak_loss = OFFPEAK_LOST / OFFPEAK_ATTEMPTS  # 35 / 17640 = 0.198%
    expected_peak_loss = PEAK_LOST / PEAK_ATTEMPTS  # 153 / 2520 = 6.07%
    assert la.verdict == (
        f"p95 {PEAK_MS - OFFPEAK_MS:+.0f} ms at peak, loss {expected_offpeak_loss:.1%} → "
        f"{expected_peak_loss:.1%}, throughput 80 → 30 Mbit/s"
    )
    assert la.verdict == "p95 +86 ms at peak, loss 0.2% → 6.1%, throughput 80 → 30 Mbit/s"
    assert (la.peak.sent, la.offpeak.sent) == (PEAK_ATTEMPTS, OFFPEAK_ATTEMPTS)
    assert la.peak.loss == PEAK_LOST / PEAK_ATTEMPTS
    assert la.offpeak.loss == OFFPEAK_LOST / OFFPEAK_ATTEMPTS
    assert (la.peak.rtt_median_ms, la.peak.rtt_p95_ms) == (PEAK_MS, PEAK_MS)
    assert (la.offpeak.rtt_median_ms, la.offpeak.rtt_p95_ms) == (OFFPEAK_MS, OFFPEAK_MS)
    assert (la.peak.hours, la.offpeak.hours) == (PEAK_HOURS, WEEK_HOURS - PEAK_HOURS)
    assert (la.peak.throughput_mbps, la.offpeak.throughput_mbps) == (30.0, 80.0)
    assert (la.peak.transfers, la.offpeak.transfers) == (PEAK_HOURS, WEEK_HOURS - PEAK_HOURS)
    # Every hour at the same level: the bootstrap interval is the difference itself.
    assert la.p95_diff_ci == pytest.approx((PEAK_MS - OFFPEAK_MS, PEAK_MS - OFFPEAK_MS))
    assert la.loss_diff_ci == pytest.approx(
        newcombe_interval(PEAK_LOST, PEAK_ATTEMPTS, OFFPEAK_LOST, OFFPEAK_ATTEMPTS)
    )
    assert la.peak.loss_ci[0] < la.peak.loss < la.peak.loss_ci[1]  # type: ignore[index]


def test_noisy_small_peak_agrees_with_raw_samples(week_store: Store) -> None:
    sjc = by_label(week_store)["lambda/us-west-1"]
    reference = labelled_samples(week_store)
    reference = reference.loc[reference["provider"] == "lambda"]
    peak_mask = mask_any([PeakWindow.parse("20:00-23:00 Asia/Shanghai")], reference["ts_us"].to_numpy())
    peak, off = figures(reference.loc[peak_mask]), figures(reference.loc[~peak_mask])
    assert sjc.peak.sent == peak["sent"] and sjc.offpeak.sent == off["sent"]
    assert sjc.peak.loss == pytest.approx(peak["loss"])
    assert sjc.peak.jitter_ms == pytest.approx(peak["jitter_ms"])
    assert sjc.offpeak.jitter_ms == pytest.approx(off["jitter_ms"])
    assert sjc.peak.rtt_p95_ms == pytest.approx(peak["rtt_p95_ms"], rel=RELATIVE_ERROR)
    assert sjc.offpeak.rtt_median_ms == pytest.approx(off["rtt_median_ms"], rel=RELATIVE_ERROR)
    exact_diff = peak["rtt_p95_ms"] - off["rtt_p95_ms"]  # type: ignore[operator]
    said = float(re.match(r"p95 ([+-]\d+(?:\.\d)?) ms at peak", sjc.verdict).group(1))  # type: ignore[union-attr]
    assert abs(said - exact_diff) <= 2 * RELATIVE_ERROR * 185 + 0.5
    low, high = sjc.p95_diff_ci  # type: ignore[misc]
    assert low <= sjc.p95_diff_ms <= high
    assert "throughput" not in sjc.verdict  # no transfers measured on this line


def test_window_starting_mid_hour_counts_exactly(week_store: Store) -> None:
    windows = [PeakWindow.parse("20:30-23:00 Asia/Shanghai")]
    prepared = prepare(week_store, Scope(), [in_peak(windows)])
    assert len(prepared.cells.frame) and prepared.cells.raw_cells == 0  # the 20:00 hours from quarter hours
    comparisons = {c.labels["label"]: c for c in compare_peak(week_store, windows=windows)}
    reference = labelled_samples(week_store)
    for label, c in comparisons.items():
        provider = label.split("/")[0]
        mine = reference.loc[reference["provider"] == provider]
        inside = mask_any(windows, mine["ts_us"].to_numpy())
        peak, off = figures(mine.loc[inside]), figures(mine.loc[~inside])
        assert (c.peak.sent, c.offpeak.sent) == (peak["sent"], off["sent"])
        assert (c.peak.received, c.offpeak.received) == (peak["received"], off["received"])
        assert c.peak.jitter_ms == pytest.approx(peak["jitter_ms"])
        assert c.offpeak.rtt_p95_ms == pytest.approx(off["rtt_p95_ms"], rel=RELATIVE_ERROR)


def test_weekday_window_and_several_windows(week_store: Store) -> None:
    windows = [
        PeakWindow.parse("20:00-23:00 Asia/Shanghai mon,tue,wed,thu,fri"),
        PeakWindow.parse("09:00-10:00 Europe/Berlin"),
    ]
    c = by_label(week_store, windows=windows)["raksmart/los-angeles"]
    ts = week_store.samples_frame([t.id for t in week_store.series(provider="raksmart", method="icmp")])
    inside = mask_any(windows, ts["ts_us"].to_numpy())
    assert c.peak.sent == int(inside.sum())
    assert c.offpeak.sent == int((~inside).sum())


def test_verdict_without_one_side(week_store: Store) -> None:
    night = Scope(since_us=utc_us(2026, 11, 3, 0), until_us=utc_us(2026, 11, 3, 6))  # 08:00-14:00 Shanghai
    la = {c.labels["label"]: c for c in compare_peak(week_store, night)}["raksmart/los-angeles"]
    assert la.verdict == "no peak-hour samples"
    assert la.peak.rtt_p95_ms is None and la.p95_diff_ms is None
    evening = Scope(since_us=utc_us(2026, 11, 3, 12), until_us=utc_us(2026, 11, 3, 15))
    la = {c.labels["label"]: c for c in compare_peak(week_store, evening)}["raksmart/los-angeles"]
    assert la.verdict == "no off-peak samples"


def test_no_real_change_is_called_noise(week_store: Store) -> None:
    # Two stretches of the same off-peak line (UTC mornings against UTC nights): no real difference.
    windows = [PeakWindow.parse("00:00-06:00 UTC")]
    scope = Scope(provider="lambda", since_us=utc_us(2026, 11, 2), until_us=utc_us(2026, 11, 2, 12))
    c = by_label(week_store, windows=windows, scope=scope)["lambda/us-west-1"]
    assert re.fullmatch(r"p95 \S+ ms at peak \(within noise\), loss \S+ → \S+( \(within noise\))?", c.verdict)


def test_comparisons_frame_has_one_row_per_group(week_store: Store) -> None:
    frame = comparisons_frame(compare_peak(week_store))
    assert list(frame["label"]) == ["lambda/us-west-1", "raksmart/los-angeles"]
    row = frame.set_index("label").loc["raksmart/los-angeles"]
    assert row["peak_sent"] == PEAK_ATTEMPTS
    assert row["p95_diff_ms"] == pytest.approx(PEAK_MS - OFFPEAK_MS)
    assert row["verdict"].startswith("p95 +86 ms")
    assert np.isfinite(row["loss_diff_ci_low"])


def test_intervals_off_gives_the_same_figures(week_store: Store) -> None:
    with_ci = compare_peak(week_store)
    without = compare_peak(week_store, intervals=False)
    for a, b in zip(with_ci, without, strict=True):
        assert a.peak == b.peak and a.offpeak == b.offpeak
        assert b.p95_diff_ci is None and b.loss_diff_ci is None


def test_a_sub_millisecond_change_is_written_with_its_digits() -> None:
    from probes.analysis.compare import _signed_ms

    assert _signed_ms(0.043) == "+0.043 ms"  # a loopback-scale change is not "±0 ms"
    assert _signed_ms(-0.25) == "-0.2 ms"
    assert _signed_ms(3.46) == "+3.5 ms"
    assert _signed_ms(70.4) == "+70 ms"
    assert _signed_ms(0.0001) == "±0 ms"


def test_the_verdict_is_in_the_language_with_the_same_figures(week_store: Store) -> None:
    from probes import i18n

    la = by_label(week_store)["raksmart/los-angeles"]
    try:
        i18n.set_language("zh_CN")
        assert la.verdict == "晚高峰 p95 +86 ms，丢包率 0.2% → 6.1%，吞吐 80 → 30 Mbit/s"
        night = Scope(since_us=utc_us(2026, 11, 3, 0), until_us=utc_us(2026, 11, 3, 6))
        quiet = {c.labels["label"]: c for c in compare_peak(week_store, night)}["raksmart/los-angeles"]
        assert quiet.verdict == "没有晚高峰样本"
        i18n.set_language("en")
        assert la.verdict == "p95 +86 ms at peak, loss 0.2% → 6.1%, throughput 80 → 30 Mbit/s"
    finally:
        i18n.set_language(None)
