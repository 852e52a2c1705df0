"""A day with a peak hour, compressed into seconds: the lab's link to region r2 runs off-peak (150 ms, no
loss), then peak (260 ms, 8% bursty loss each way), then off-peak again, while `linkvet schedule` measures it
from the office every 2 s into a store. The stored data must show the peak's higher latency and loss, at the
right times, and agree with the truth sample by sample."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from tests.lab import truth
from tests.lab.accuracy import compare
from tests.lab.netlab import Lab
from tests.lab.profiles import Profile, symmetric_segment

pytestmark = pytest.mark.lab

SEGMENT_S = 12.0
OFF_PEAK_RTT, PEAK_RTT = 150.0, 260.0
PROFILE = Profile(
    (
        symmetric_segment(SEGMENT_S, OFF_PEAK_RTT, jitter_ms=1.0, label="off-peak"),
        symmetric_segment(SEGMENT_S, PEAK_RTT, jitter_ms=3.0, burst_loss=0.08, mean_burst=2.0, label="peak"),
        symmetric_segment(SEGMENT_S, OFF_PEAK_RTT, jitter_ms=1.0, label="off-peak"),
    )
)
TIMEOUT_S = 0.9
PLAN = """\
version = 1
name = "lab-peak"
vantage = "lab-office"

[schedule]
every = "2s"
peak_windows = []

[defaults]
count = 20
interval = 0.05
timeout = {timeout}

[[targets]]
name = "lab-r2"
host = "{host}"
methods = ["icmp"]
provider = "lab"
region = "r2"
line_type = "cn2-gia"
"""


def test_schedule_stores_the_peak_segment_at_the_right_times(lab: Lab, tmp_path: Path) -> None:
    region = lab.region("r2")
    plan = tmp_path / "plan.toml"
    plan.write_text(PLAN.format(host=region.address, timeout=TIMEOUT_S))
    db = tmp_path / "lab.sqlite3"
    home = tmp_path / "home"
    home.mkdir()
    epoch = lab.set_profile(PROFILE, region="r2")
    since = time.monotonic_ns()
    daemon = subprocess.Popen(
        lab.office_command(
            [
                sys.executable,
                "-m",
                "desktop.cli",
                "schedule",
                "--plan",
                str(plan),
                "--db",
                str(db),
                "--log-file",
                str(tmp_path / "schedule.log"),
            ]
        ),
        env=lab.linkvet_env(home),
        cwd=home,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        time.sleep(3 * SEGMENT_S + 1)
    finally:
        daemon.send_signal(signal.SIGTERM)
        _, err = daemon.communicate(timeout=30)
    until = time.monotonic_ns()
    assert daemon.returncode == 0, err

    from probes.store import Store

    with Store(db, readonly=True) as store:
        samples = store.samples_frame()
        rounds = store.results_frame()
    assert len(rounds) >= 12, f"only {len(rounds)} rounds stored: {err[-2000:]}"

    # Every stored attempt against the truth of the same echo (paired in send order).
    exchanges = truth.icmp_echoes(
        lab.packets(since), region.address, since_ns=since, until_ns=until, timeout_s=TIMEOUT_S
    )
    measured = [None if np.isnan(r) else float(r) for r in samples["rtt_ms"]]
    cmp = compare("linkvet schedule", measured, exchanges, TIMEOUT_S)
    assert len(exchanges) >= len(measured), cmp.describe()
    # A round cut short by the stop is not stored: its echoes are the last in the log.
    cmp = compare("linkvet schedule", measured, exchanges[: len(measured)], TIMEOUT_S)
    assert abs(cmp.lost_measured - cmp.lost_true) <= cmp.allowed_loss_difference, cmp.describe()
    errors = np.abs(cmp.sample_errors_ms)
    assert float(np.median(errors)) < 1.0 and float(np.percentile(errors, 95)) < 2.0, cmp.describe()

    # The stored send times place each attempt in the segment the link was in when it was sent.
    offset_ns = truth.wall_minus_monotonic_ns()
    sent_mono = samples["ts_us"].to_numpy() * 1000 - offset_ns
    elapsed = (sent_mono - epoch) / 1e9
    stored_segment = np.array([PROFILE.index_at(t) for t in elapsed])
    true_segment = np.array([e.segment for e in cmp.true])
    clear = np.array([0.3 < t % SEGMENT_S < SEGMENT_S - 0.3 for t in elapsed])  # away from the switches
    assert (stored_segment[clear] == true_segment[clear]).all()

    rtt = samples["rtt_ms"].to_numpy()
    for index, expected_rtt in ((0, OFF_PEAK_RTT), (1, PEAK_RTT), (2, OFF_PEAK_RTT)):
        in_segment = clear & (stored_segment == index)
        assert in_segment.sum() >= 60, f"segment {index}: {in_segment.sum()} attempts"
        seg_rtt = rtt[in_segment]
        assert float(np.nanmedian(seg_rtt)) == pytest.approx(expected_rtt, abs=2.0)
        seg_loss = float(np.isnan(seg_rtt).mean())
        true_loss = float(np.mean([cmp.true[i].lost for i in np.flatnonzero(in_segment)]))
        assert seg_loss == pytest.approx(true_loss, abs=1.5 / in_segment.sum())
        if index == 1:
            assert seg_loss >= 0.04, f"peak loss {seg_loss:.1%}"
        else:
            assert seg_loss == 0.0

    # The per-round summaries (what `linkvet history` shows) rise and fall with the peak.
    started = (rounds["started_us"].to_numpy() * 1000 - offset_ns - epoch) / 1e9
    peak_rounds = rounds[(started > SEGMENT_S + 0.3) & (started < 2 * SEGMENT_S - 2)]
    calm_rounds = rounds[(started > 0.3) & (started < SEGMENT_S - 2)]
    assert len(peak_rounds) >= 3 and len(calm_rounds) >= 3
    assert (peak_rounds["rtt_median_ms"] > PEAK_RTT - 5).all()
    assert (calm_rounds["rtt_median_ms"] < OFF_PEAK_RTT + 5).all()
    assert calm_rounds["loss"].max() == 0.0
    assert peak_rounds["loss"].sum() > 0
