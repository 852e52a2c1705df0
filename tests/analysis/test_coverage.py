"""The time each side of a peak comparison covers (`probes.analysis.coverage`): the minutes measured, not the
hours touched, and the evenings a peak rests on (a window that crosses midnight is one evening)."""

from __future__ import annotations

from pathlib import Path

from probes.analysis import link_summaries
from probes.peak import PeakWindow
from probes.store import Store
from tests.analysis.synthetic import Series, StepModel, utc_us, write_series
from tests.analysis.week import LA


def _peak(store: Store, window: str) -> dict[str, object]:
    (link,) = link_summaries(store, windows=(PeakWindow.parse(window),))
    return link.as_dict()["peak"]


def test_a_quarter_hour_peak_window_measured_on_three_evenings_is_45_minutes(tmp_path: Path) -> None:
    # Rounds every 5 minutes for three days; the peak is 20:00-20:15 in Shanghai (12:00-12:15 UTC). The hour
    # that holds it has samples at peak, but the peak measured is its quarter hour, not the hour.
    with Store(tmp_path / "s.sqlite3") as store:
        write_series(store, [Series(LA, StepModel(150.0, 150.0))], utc_us(2026, 11, 2), 72, runs_per_hour=12)
        peak = _peak(store, "20:00-20:15 Asia/Shanghai")
        assert peak["hours"] == 3  # three UTC hours hold peak samples
        assert peak["minutes"] == 3 * 15 and peak["evenings"] == 3
        assert peak["samples"] == 3 * 3 * 30  # three rounds of 30 attempts in each quarter hour


def test_a_window_across_midnight_is_one_evening(tmp_path: Path) -> None:
    # 22:00-02:00 Shanghai over 48 hours from 16:00 UTC on 2 Nov (00:00 on 3 Nov in Shanghai): the first
    # night's 00:00-02:00 belongs to the evening of 2 Nov, then 3 Nov's evening runs 22:00-02:00, and the
    # last night's 22:00-24:00 opens 4 Nov's: three evenings, 2 + 4 + 2 hours.
    with Store(tmp_path / "s.sqlite3") as store:
        write_series(store, [Series(LA, StepModel(150.0, 150.0))], utc_us(2026, 11, 2, 16), 48)
        peak = _peak(store, "22:00-02:00 Asia/Shanghai")
        assert peak["evenings"] == 3
        assert peak["minutes"] == (2 + 4 + 2) * 60
