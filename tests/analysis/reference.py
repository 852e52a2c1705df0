"""Reference figures computed straight from the raw samples with pandas and numpy (exact percentiles, no
rollups, no histograms): what the analysis must agree with."""

from __future__ import annotations

import numpy as np
import pandas as pd

from probes.store import Store


def labelled_samples(
    store: Store, tz: str = "UTC", methods: tuple[str, ...] = ("icmp", "tcp")
) -> pd.DataFrame:
    """Every raw sample of the RTT methods with its target's labels, local hour and date in `tz`, and its
    jitter difference (|RTT − previous received RTT of the same run|, on the later sample; NaN when none).
    Download and HTTP samples time requests, not round trips: the analysis leaves them out of RTT."""
    samples = store.samples_frame()
    targets = pd.DataFrame(
        [(t.id, t.provider, t.region, t.line_type, t.method) for t in store.series()],
        columns=["series_id", "provider", "region", "line_type", "method"],
    )
    frame = samples.merge(targets, on="series_id")
    frame = frame.loc[frame["method"].isin(methods)].sort_values(["result_id", "seq"]).reset_index(drop=True)
    local = pd.to_datetime(frame["ts_us"], unit="us", utc=True).dt.tz_convert(tz)
    frame["hour"] = local.dt.hour
    frame["date"] = local.dt.date
    got = frame.loc[frame["rtt_ms"].notna()]
    previous = got.groupby("result_id")["rtt_ms"].shift()
    frame["jitter_diff"] = (got["rtt_ms"] - previous).abs().reindex(frame.index)
    return frame


def figures(frame: pd.DataFrame) -> dict[str, float | int | None]:
    """sent, received, loss, median, p95, mean and jitter of a set of labelled samples."""
    rtt = frame["rtt_ms"].dropna().to_numpy()
    diffs = frame["jitter_diff"].dropna().to_numpy()
    sent = len(frame)
    return {
        "sent": sent,
        "received": int(rtt.size),
        "loss": None if sent == 0 else (sent - rtt.size) / sent,
        "rtt_median_ms": float(np.percentile(rtt, 50)) if rtt.size else None,
        "rtt_p95_ms": float(np.percentile(rtt, 95)) if rtt.size else None,
        "rtt_mean_ms": float(rtt.mean()) if rtt.size else None,
        "jitter_ms": float(diffs.mean()) if diffs.size else None,
    }
