"""The figures of a `responsiveness` test, from its latency probes alone (pure functions: the method
computes them when it measures, analysis can compute them again from the stored samples).

A test probes the line while it is idle, then while a capped download (and, where the server takes one,
an upload) keeps it busy. Every probe is a `Sample` whose `phase` says what the line was doing when it was
sent:

    idle            before any load
    download-ramp   the first `RAMP_S` of the download (TCP slow start: the queue is still filling)
    download        the rest of the download
    upload-ramp     the first `RAMP_S` of the upload
    upload          the rest of the upload
    idle-icmp       ICMP echoes of an idle phase none of which was answered, when the test went on with TCP
                    connects (kept as samples; they count in no figure)

Figures (RTTs in ms; medians and percentiles as `probes.stats.percentile`; lost probes have no RTT and
count in the losses; probes this machine could not send, `Sample.local_failure`, count in no figure, as
they count nowhere else):

    idle_rtt_median_ms          the idle probes' median RTT
    download_rtt_median_ms      the median RTT of the probes sent during the download (ramp left out)
    download_rtt_increase_ms    download_rtt_median_ms − idle_rtt_median_ms (upload_… likewise)
    loaded_rtt_median_ms        the median RTT of every probe sent under load (both directions, no ramp)
    loaded_rtt_p90_ms           their 90th percentile
    loaded_rtt_increase_ms      the mean of the directions' increases: DSLReports' "(average(uplift during
                                upload) + average(uplift during download)) / 2", with medians for averages;
                                with a download only, download_rtt_increase_ms
    rpm                         round trips per minute under load, as draft-ietf-ippm-responsiveness-06
                                §"Aggregating the Measurements" defines it: 60000 / the single-sided trimmed
                                mean (TMP = 95%) of the round trips measured in the last MAD = 4 intervals of
                                ID = 1 s (`RPM_WINDOW_S`) of each loaded phase. The only round trips measured
                                here are the probes to the server: ICMP echoes, or TCP handshakes (the draft's
                                `tcp_f`) where ICMP is not permitted; so this is the draft's foreign
                                responsiveness on one of its three parts, without its TLS and HTTP parts and
                                without the self probes on the load-generating connections (`http_l`)
    grade                       the DSLReports bufferbloat grade of loaded_rtt_increase_ms (`GRADES`)
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Final

from probes.results import MetricValue, Sample
from probes.stats import percentile

PHASES: Final = ("idle", "download-ramp", "download", "upload-ramp", "upload", "idle-icmp")
ABANDONED: Final = "idle-icmp"
LOADED_PHASES: Final = ("download", "upload")
RAMP_S: Final = 1.0  # as the download method's warm-up: the first second of a load is TCP slow start
RPM_WINDOW_S: Final = 4.0  # the draft's MAD (4) × ID (1 s)
TRIMMED_MEAN_PERCENT: Final = 95.0  # the draft's TMP

# DSLReports' bufferbloat grades: the added delay under load below which each grade is given; 400 ms or
# more is an F ("there is no E grade"). https://www.dslreports.com/faq/17930 ("Bufferbloat Grades").
GRADES: Final[tuple[tuple[str, float], ...]] = (
    ("A+", 5.0),
    ("A", 30.0),
    ("B", 60.0),
    ("C", 200.0),
    ("D", 400.0),
)
GRADE_SOURCE: Final = (
    "DSLReports speed test FAQ 17930, Bufferbloat Grades (https://www.dslreports.com/faq/17930)"
)
RPM_SOURCE: Final = (
    "draft-ietf-ippm-responsiveness-06, Aggregating the Measurements (network-quality/"
    "draft-ietf-ippm-responsiveness on GitHub)"
)

FIGURE_KEYS: Final = (
    "idle_rtt_median_ms",
    "idle_loss",
    "idle_probes",
    "download_rtt_median_ms",
    "download_rtt_increase_ms",
    "upload_rtt_median_ms",
    "upload_rtt_increase_ms",
    "loaded_rtt_median_ms",
    "loaded_rtt_p90_ms",
    "loaded_rtt_increase_ms",
    "loaded_loss",
    "loaded_probes",
    "rpm",
    "rpm_round_trips",
    "grade",
)


def grade(increase_ms: float | None) -> str | None:
    """The DSLReports bufferbloat grade of an added delay (A+ … F); None when it was not measured."""
    if increase_ms is None:
        return None
    for name, below in GRADES:
        if increase_ms < below:
            return name
    return "F"


def trimmed_mean(values: Iterable[float], percent: float = TRIMMED_MEAN_PERCENT) -> float | None:
    """The single-sided trimmed mean: the mean of the values at or below their `percent` percentile."""
    ordered = sorted(values)
    if not ordered:
        return None
    cut = percentile(ordered, percent)
    assert cut is not None
    kept = [v for v in ordered if v <= cut]
    return math.fsum(kept) / len(kept)


def rpm(rtts_ms: Iterable[float]) -> float | None:
    """Round trips per minute: 60000 / the trimmed mean RTT in ms (None without round trips)."""
    mean = trimmed_mean(rtts_ms)
    return None if mean is None or mean <= 0 else 60000.0 / mean


def rpm_window(samples: Sequence[Sample]) -> list[Sample]:
    """The probes the RPM is computed on: those sent in the last `RPM_WINDOW_S` of each run of a loaded
    phase (a run: consecutive probes, in send order, of one phase)."""
    ordered = sorted(samples, key=lambda s: (s.sent_at_us, s.seq))
    runs: list[list[Sample]] = []
    for sample in ordered:
        if runs and runs[-1][-1].phase == sample.phase:
            runs[-1].append(sample)
        else:
            runs.append([sample])
    window: list[Sample] = []
    for run in runs:
        if run[0].phase not in LOADED_PHASES:
            continue
        end = run[-1].sent_at_us
        window.extend(s for s in run if s.sent_at_us >= end - RPM_WINDOW_S * 1e6)
    return window


def figures(samples: Sequence[Sample]) -> dict[str, MetricValue]:
    """Every figure of the module docstring from a test's probes (None where not measured)."""
    by_phase: dict[str, list[Sample]] = {phase: [] for phase in PHASES}
    for sample in samples:
        if sample.phase in by_phase and not sample.local_failure:
            by_phase[sample.phase].append(sample)
    idle = by_phase["idle"]
    idle_median = _median(idle)
    out: dict[str, MetricValue] = {
        "idle_rtt_median_ms": idle_median,
        "idle_loss": _loss(idle),
        "idle_probes": len(idle),
    }
    increases = []
    for direction in LOADED_PHASES:
        median = _median(by_phase[direction])
        increase = None if median is None or idle_median is None else median - idle_median
        out[f"{direction}_rtt_median_ms"] = median
        out[f"{direction}_rtt_increase_ms"] = increase
        if increase is not None:
            increases.append(increase)
    loaded = [s for direction in LOADED_PHASES for s in by_phase[direction]]
    received = sorted(s.rtt_ms for s in loaded if s.rtt_ms is not None)
    increase = math.fsum(increases) / len(increases) if increases else None
    window = [s.rtt_ms for s in rpm_window(loaded) if s.rtt_ms is not None]
    out |= {
        "loaded_rtt_median_ms": percentile(received, 50),
        "loaded_rtt_p90_ms": percentile(received, 90),
        "loaded_rtt_increase_ms": increase,
        "loaded_loss": _loss(loaded),
        "loaded_probes": len(loaded),
        "rpm": rpm(window),
        "rpm_round_trips": len(window),
        "grade": grade(increase),
    }
    return out


def _median(samples: Sequence[Sample]) -> float | None:
    return percentile(sorted(s.rtt_ms for s in samples if s.rtt_ms is not None), 50)


def _loss(samples: Sequence[Sample]) -> float | None:
    if not samples:
        return None
    return sum(1 for s in samples if s.rtt_ms is None) / len(samples)
