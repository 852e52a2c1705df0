"""LinkSummary: the contract's shape in and out, and clear errors for anything else."""

from __future__ import annotations

import copy
import datetime as dt
from typing import Any

import pytest

from catalogs.errors import LinkSummaryError
from catalogs.link_quality import LinkSummary

CONTRACT_EXAMPLE: dict[str, Any] = {
    "provider": "raksmart",
    "region": "los-angeles",
    "vantage": "shanghai-office",
    "period_start": "2026-11-01T00:00:00Z",
    "period_end": "2026-11-30T00:00:00Z",
    "peak_windows": ["20:00-23:00 Asia/Shanghai"],
    "peak": {
        "rtt_median_ms": 152.1,
        "rtt_p95_ms": 171.0,
        "loss": 0.004,
        "jitter_ms": 2.1,
        "throughput_mbps": 84.0,
        "samples": 12345,
        "hours": 90,
        "loaded_rtt_increase_ms": 48.5,
        "rpm": 302.0,
        "load_tests": 12,
    },
    "offpeak": {
        "rtt_median_ms": 140.0,
        "rtt_p95_ms": 150.0,
        "loss": 0.0,
        "jitter_ms": 1.0,
        "throughput_mbps": None,
        "samples": 20000,
        "hours": 300,
        "loaded_rtt_increase_ms": -0.2,
        "rpm": None,
        "load_tests": 30,
    },
    "route": {
        "claimed_line_type": "cn2-gia",
        "measured_class": "cn2-gt",
        "agrees": False,
        "traces": 8,
        "agreeing_traces": 2,
        "evidence": "traced via 202.97 (163) on 6 of 8 traces",
    },
}


def test_round_trip_of_the_contract_example() -> None:
    summary = LinkSummary.from_dict(CONTRACT_EXAMPLE)
    assert summary.period_start == dt.datetime(2026, 11, 1, tzinfo=dt.UTC)
    assert summary.peak is not None and summary.peak.samples == 12345 and summary.peak.hours == 90.0
    assert summary.offpeak is not None and summary.offpeak.throughput_mbps is None
    assert summary.route is not None and summary.route.agrees is False
    assert summary.peak.loaded_rtt_increase_ms == 48.5 and summary.peak.load_tests == 12
    assert summary.offpeak.loaded_rtt_increase_ms == -0.2  # a difference: no queue and a little noise
    # the time measured (minutes, evenings) and whether the throughput is only a lower bound are optional: a
    # summary without them writes them as null
    unsaid = {"minutes": None, "evenings": None, "throughput_lower_bound": None}
    assert summary.as_dict() == {
        **CONTRACT_EXAMPLE,
        "peak": {**CONTRACT_EXAMPLE["peak"], "hours": 90.0, **unsaid},
        "offpeak": {**CONTRACT_EXAMPLE["offpeak"], "hours": 300.0, **unsaid},
    }


def test_everything_but_the_ids_may_be_null() -> None:
    summary = LinkSummary.from_dict(
        {
            "provider": "aws",
            "region": "us-east-1",
            "vantage": None,
            "period_start": None,
            "period_end": None,
            "peak_windows": [],
            "peak": None,
            "offpeak": None,
            "route": None,
        }
    )
    assert summary.peak is None and summary.as_dict()["route"] is None
    nulls = LinkSummary.from_dict(
        {"provider": "aws", "region": "x", "peak": dict.fromkeys(CONTRACT_EXAMPLE["peak"])}
    )
    assert nulls.peak is not None and not nulls.peak.measured


@pytest.mark.parametrize(
    ("path", "value", "words"),
    [
        (("provider",), None, "provider: expected text"),
        (("peak", "loss"), 4.0, "fraction 0..1, got 4.0 (percent?)"),
        (("peak", "rtt_median_ms"), "152", "expected a number"),
        (("peak", "rtt_median_ms"), float("nan"), "finite"),
        (("peak", "samples"), 12.5, "whole number"),
        (("peak", "jitter_ms"), -1, "≥ 0"),
        (("period_start",), "2026-11-01T00:00:00", "no time zone"),
        (("period_end",), "yesterday", "ISO-8601"),
        (("route", "agrees"), "yes", "true, false or null"),
        (("peak_windows",), "20:00-23:00", "list of text"),
        (("peak", "rtt_mean"), 1.0, "unknown key rtt_mean"),
        (("peak",), [], "expected an object"),
    ],
)
def test_bad_summaries_name_the_key(path: tuple[str, ...], value: Any, words: str) -> None:
    data = copy.deepcopy(CONTRACT_EXAMPLE)
    target = data
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    with pytest.raises(LinkSummaryError) as caught:
        LinkSummary.from_dict(data, where="[3]")
    assert words in str(caught.value)
    assert str(caught.value).startswith("[3]")


def test_latency_under_load_must_be_a_number() -> None:
    data = copy.deepcopy(CONTRACT_EXAMPLE)
    data["peak"]["loaded_rtt_increase_ms"] = "48 ms"
    with pytest.raises(
        LinkSummaryError, match=r"summary\.peak\.loaded_rtt_increase_ms: expected a finite number"
    ):
        LinkSummary.from_dict(data)
    data["peak"]["loaded_rtt_increase_ms"] = 48.0
    data["peak"]["load_tests"] = 1.5
    with pytest.raises(LinkSummaryError, match=r"summary\.peak\.load_tests: expected a whole number"):
        LinkSummary.from_dict(data)
