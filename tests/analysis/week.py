"""The canonical synthetic week: two regions with known behaviour at the Shanghai evening peak."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from probes import histogram
from probes.results import ProbeResult
from probes.target import Method, Target
from tests.analysis.synthetic import HOUR_US, StepModel, shanghai_evening, utc_us

WEEK_START = utc_us(2026, 11, 2)  # a Monday, 00:00 UTC
WEEK_HOURS = 7 * 24
# RTTs at histogram bucket midpoints, so percentiles read from the rollups are exact.
OFFPEAK_MS = float(histogram.bucket_value(histogram.bucket_of(150.0)))
PEAK_MS = float(histogram.bucket_value(histogram.bucket_of(234.0)))

LA = Target(
    method=Method.ICMP, host="127.0.0.1", provider="raksmart", region="los-angeles", line_type="cn2-gia"
)
LA_DOWNLOAD = Target(
    method=Method.DOWNLOAD,
    url="http://127.0.0.1:8080/100MB.bin",
    provider="raksmart",
    region="los-angeles",
    line_type="cn2-gia",
)
SJC = Target(
    method=Method.TCP, host="127.0.0.2", port=22, provider="lambda", region="us-west-1", line_type="bgp"
)


def la_model() -> StepModel:
    """Known peak: +(PEAK_MS − OFFPEAK_MS) ms and loss 2‰ → 61‰ at 20:00-23:00 Shanghai."""
    return StepModel(OFFPEAK_MS, PEAK_MS, offpeak_loss_per_mille=2, peak_loss_per_mille=61)


def sjc_model() -> StepModel:
    """A noisy line with a small evening rise (+5 ms)."""
    return StepModel(170.0, 175.0, offpeak_loss_per_mille=1, peak_loss_per_mille=1, noise_sd_ms=6.0)


def download_at(begin_us: int) -> list[ProbeResult]:
    """Once an hour, a download from LA: 80 Mbit/s off-peak, 30 at peak."""
    if begin_us % HOUR_US:
        return []
    rate = 30.0 if shanghai_evening(np.array([begin_us]))[0] else 80.0
    return [
        ProbeResult(
            LA_DOWNLOAD,
            begin_us,
            begin_us + 13_000_000,
            # long enough to leave slow start (`probes.analysis.data.SHORT_TRANSFER_S`)
            metrics={"throughput_mbps": rate, "bytes": int(rate * 1e6 / 8 * 12), "seconds": 12.0},
        )
    ]


def write_week(path: Path) -> Path:
    """A store at `path` holding the synthetic week of both regions (and hourly downloads)."""
    from probes.store import Store
    from tests.analysis.synthetic import Series, write_series

    with Store(path) as store:
        write_series(
            store,
            [Series(LA, la_model()), Series(SJC, sjc_model())],
            WEEK_START,
            WEEK_HOURS,
            extra=download_at,
        )
    return path
