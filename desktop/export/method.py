"""The Method sheet: how the figures were made (format version, tool version, when, from what, time zone,
peak windows, thresholds, definitions), so that a reader months later can interpret them."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from desktop.export.model import WORKBOOK_FORMAT_VERSION, Column, Sheet
from desktop.i18n import _, vantage_name
from probes import __version__, histogram
from probes.store_location import StoreLocation
from probes.timestamps import iso_utc


def method_columns() -> tuple[Column, ...]:
    return (
        Column("item", _("Item"), width=28),
        Column("value", _("Value"), width=70),
        Column("note", _("Note"), width=70),
    )


def definitions() -> tuple[tuple[str, str], ...]:
    """(term, definition) of the figures, in the current language."""
    return (
        (_("Loss"), _("lost attempts / attempts sent, any reason (timeout, unreachable, …)")),
        (
            _("Route check"),
            _(
                "each region's stored traceroutes classified by their hops with the network table (bundled, "
                "plus the user's route-networks.toml), the class most traces show compared with the claimed "
                "line type"
            ),
        ),
        (
            _("RTT percentiles"),
            _(
                "median and p95 ranked as linear interpolation between closest ranks, read from per-hour "
                "histograms with ±{resolution:.1%} resolution"
            ).format(resolution=histogram.RELATIVE_ERROR),
        ),
        (
            _("Jitter"),
            _(
                "mean absolute difference between consecutive received RTTs of a run (RFC 3550 |D|, unsmoothed)"
            ),
        ),
        (
            _("Throughput"),
            _("median over download / iperf3 transfers (Mbit/s, body bytes × 8 / transfer time)"),
        ),
        (
            _("RTT methods"),
            _("ICMP echo and TCP connect (SYN → SYN-ACK); HTTP timings are not counted as RTT"),
        ),
        (
            _("p95 change CI"),
            _("cluster bootstrap over clock hours (hours resampled, not samples), percentile method"),
        ),
        (
            _("Loss change CI"),
            _("Newcombe's hybrid score interval from two Wilson intervals (assumes independent attempts)"),
        ),
        (
            _("Hours breaching"),
            _(
                "clock hours (≥ min attempts) with loss over the threshold or p95 over the off-peak p95 plus "
                "the margin"
            ),
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
    """`sheets`: (shown name, what it holds) of every sheet; `extra`: (item, value, note) rows."""
    since, until = period
    everything = _("all stored data")
    rows: list[dict[str, Any]] = [
        {
            "item": _("Workbook format version"),
            "value": str(WORKBOOK_FORMAT_VERSION),
            "note": _("changes when a sheet's columns change meaning"),
        },
        {"item": _("Tool"), "value": f"linkvet {__version__}"},
        {"item": _("Exported at"), "value": iso_utc(int(exported_at.timestamp() * 1_000_000))},
        {
            "item": _("Result store"),
            "value": str(store_path) if store_path else _("none (no measurements)"),
        },
        {"item": _("Period start"), "value": everything if since is None else iso_utc(since)},
        {
            "item": _("Period end"),
            "value": everything if until is None else iso_utc(until),
            "note": _("exclusive"),
        },
        {"item": _("Hour-of-day time zone"), "value": tz},
        {"item": _("Peak windows"), "value": "; ".join(peak_windows)},
        {
            "item": _("Vantage points"),
            "value": ", ".join(vantage_name(v) for v in vantages) or _("none"),
        },
        {"item": _("Confidence level"), "value": f"{confidence:.0%}"},
        {"item": _("Breach thresholds"), "value": ", ".join(f"{k} = {v}" for k, v in thresholds.items())},
    ]
    rows.extend({"item": item, "value": value, "note": note} for item, value, note in extra)
    rows.extend(
        {"item": _("Definition: {term}").format(term=name), "value": text} for name, text in definitions()
    )
    rows.extend({"item": _("Sheet: {name}").format(name=name), "value": text} for name, text in sheets)
    return Sheet("Method", method_columns(), rows, title=_("Method"))
