"""Hypothesis strategies for hostile input, and the settings every property test here runs with.

Each parser of untrusted input is fed (a) a valid document with one value anywhere in it replaced by any
other value — numbers huge, NaN, infinite, negative, text, lists, tables — (b) the valid text with a random
splice (bytes cut out, text put in), (c) documents of random keys and values, and (d) any text at all.
The property is always the same: the input parses to a valid object, or raises the package's own error
naming the file; never another exception, never a hang (the deadline).
"""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import tomli_w
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

# Bounded, so the suite stays fast; no example database (the tree stays clean); a deadline far above a
# parse's time, so that only a hang (or a blow-up) trips it, even on a loaded machine.
FUZZ = settings(
    max_examples=200,
    deadline=timedelta(seconds=30),
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

WORDS = st.sampled_from(
    [
        "version",
        "format_version",
        "name",
        "vantage",
        "schedule",
        "every",
        "peak_every",
        "peak_windows",
        "defaults",
        "count",
        "interval",
        "timeout",
        "targets",
        "host",
        "url",
        "methods",
        "port",
        "provider",
        "region",
        "line_type",
        "model",
        "params",
        "training",
        "cluster",
        "budget",
        "asn",
        "prefix",
        "cidr",
        "backbone",
        "source",
        "as_of",
        "id",
        "regions",
        "offerings",
        "gpu",
        "gpus_per_node",
        "prices",
        "peak",
        "offpeak",
        "route",
        "loss",
        "samples",
        "hours",
        "period_start",
        "format",
        "checks",
        "verdict",
        "enabled",
        "origin",
        "method",
    ]
)
KEYS = st.one_of(WORDS, st.text(min_size=1, max_size=8))
SCALARS = st.one_of(
    st.integers(),
    st.integers(min_value=-(10**400), max_value=10**400),
    st.floats(),
    st.booleans(),
    st.text(max_size=30),
    st.sampled_from(
        [
            "5m",
            "1h",
            "0s",
            "inf",
            "127.0.0.1",
            "[::1",
            "::1",
            "127.000.000.001",
            "https://x.example/",
            "20:00-23:00 Asia/Shanghai",
            "icmp",
            "tcp",
            "http",
            "\x1b[2J",
            "a\nb",
            "\ufeffx",
            "\x00",
            "9999-12-31T23:59:59-14:00",
            "2026-11-30T20:00Z",
            "H100",
            "cn2-gia",
            "1e999",
        ]
    ),
)
VALUES = st.recursive(
    SCALARS,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(KEYS, children, max_size=4),
    max_leaves=12,
)


def leaves(data: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path into nested dicts and lists (the containers too)."""
    found = [path]
    if isinstance(data, dict):
        for key, value in data.items():
            found += leaves(value, (*path, key))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            found += leaves(value, (*path, index))
    return found


def replaced(data: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    head, rest = path[0], path[1:]
    if isinstance(data, dict):
        return {**data, head: replaced(data[head], rest, value)}
    copy = list(data)
    copy[head] = replaced(copy[head], rest, value)
    return copy


@st.composite
def one_value_changed(draw: st.DrawFn, valid: Any) -> Any:
    """`valid` with the value at one path (anywhere) replaced by any value."""
    path = draw(st.sampled_from(leaves(valid)))
    return replaced(valid, path, draw(VALUES))


@st.composite
def spliced(draw: st.DrawFn, text: str) -> str:
    """`text` with a stretch cut out and any text put in its place."""
    start = draw(st.integers(0, len(text)))
    cut = draw(st.integers(0, 40))
    return text[:start] + draw(st.text(max_size=40)) + text[start + cut :]


def _toml(data: Any) -> str | None:
    try:
        return tomli_w.dumps(data) if isinstance(data, dict) else None
    except (TypeError, ValueError):
        return None


def toml_documents(valid: dict[str, Any], valid_text: str) -> st.SearchStrategy[str]:
    """Hostile TOML around a valid document (see the module's docstring)."""
    return st.one_of(
        one_value_changed(valid).map(_toml).filter(lambda t: t is not None),  # type: ignore[arg-type]
        spliced(valid_text),
        st.dictionaries(KEYS, VALUES, max_size=6).map(_toml).filter(lambda t: t is not None),  # type: ignore[arg-type]
        st.text(max_size=300),
    )


def _json(data: Any) -> str:
    return json.dumps(data)  # NaN and Infinity written as JSON's extension: refused by our reader


def json_documents(valid: Any) -> st.SearchStrategy[str]:
    """Hostile JSON around a valid document."""
    text = json.dumps(valid, indent=1)
    return st.one_of(
        one_value_changed(valid).map(_json),
        spliced(text),
        VALUES.map(_json),
        st.text(max_size=300),
    )
