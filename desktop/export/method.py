"""The Method sheet: how the figures were made (format version, tool version, when, from what, time zone,
peak windows, thresholds, definitions), so that a reader months later can interpret them."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from desktop.export.model import WORKBOOK_FORMAT_VERSION, Column, Sheet
from probes import __version__, histogram
from probes.store_location import StoreLocation
from probes.timestamps import iso_utc

METHOD_COLUMNS = (
    Column("item", "Item", width=28),
    Column("value", "Value", width=70),
    Column("note", "Note", width=70),
)

DEFINITIONS: tuple[tuple[str, str], ...] = (
    ("Loss", "lost attempts / attempts sent, any reason (timeout, unreachable, …)"),
    (
        "Route check",
        "each region's stored traceroutes classified by their hops with the network table (bundled, plus "
        "the user's route-networks.toml), the class most traces show compared with the claimed line type",
    ),
    (
        "RTT percentiles",
        "median and p95 ranked as linear interpolation between closest ranks, read from "
        f"per-hour histograms with ±{histogram.RELATIVE_ERROR:.1%} resolution",
    ),
    (
        "Jitter",
        "mean absolute difference between consecutive received RTTs of a run (RFC 3550 |D|, unsmoothed)",
    ),
    ("Throughput", "median over download / iperf3 transfers (Mbit/s, body bytes × 8 / transfer time)"),
    ("RTT methods", "ICMP echo and TCP connect (SYN → SYN-ACK); HTTP timings are not counted as RTT"),
    ("p95 change CI", "cluster bootstrap over clock hours (hours resampled, not samples), percentile method"),
    (
        "Loss change CI",
        "Newcombe's hybrid score interval from two Wilson intervals (assumes independent attempts)",
    ),
    (
        "Hours breaching",
        "clock hours (≥ min attempts) with loss over the threshold or p95 over the off-peak "
        "p95 plus the margin",
    ),
)


def method_sheet(
    *,
    exported_at: datetime,
    store_path: StoreLocation | None,
    period: tuple[int | None, int | None],
    tz: str,
    peak_windows: Sequence[str],
    vantages: Sequence[str | None],
    confidence: float,
    thresholds: dict[str, Any],
    sheets: Sequence[tuple[str, str]],
    extra: Sequence[tuple[str, str, str]] = (),
) -> Sheet:
    since, until = period
    rows: list[dict[str, Any]] = [
        {
            "item": "Workbook format version",
            "value": str(WORKBOOK_FORMAT_VERSION),
            "note": "changes when a sheet's columns change meaning",
        },
        {"item": "Tool", "value": f"linkvet {__version__}"},
        {"item": "Exported at", "value": iso_utc(int(exported_at.timestamp() * 1_000_000))},
        {"item": "Result store", "value": str(store_path) if store_path else "none (no measurements)"},
        {"item": "Period start", "value": "all stored data" if since is None else iso_utc(since)},
        {
            "item": "Period end",
            "value": "all stored data" if until is None else iso_utc(until),
            "note": "exclusive",
        },
        {"item": "Hour-of-day time zone", "value": tz},
        {"item": "Peak windows", "value": "; ".join(peak_windows)},
        {"item": "Vantage points", "value": ", ".join(v or "(not recorded)" for v in vantages) or "none"},
        {"item": "Confidence level", "value": f"{confidence:.0%}"},
        {"item": "Breach thresholds", "value": ", ".join(f"{k} = {v}" for k, v in thresholds.items())},
    ]
    rows.extend({"item": item, "value": value, "note": note} for item, value, note in extra)
    rows.extend({"item": f"Definition: {name}", "value": text} for name, text in DEFINITIONS)
    rows.extend({"item": f"Sheet: {name}", "value": text} for name, text in sheets)
    return Sheet("Method", METHOD_COLUMNS, rows)
