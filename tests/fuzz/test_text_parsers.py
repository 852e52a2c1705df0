"""Property-based tests of the parsers of one piece of text (issue 12): targets, durations, times and the
numbers a flag or a plan takes. Any text gives a valid value or the package's own error; a value, once
read, reads back the same (normalised before comparing)."""

from __future__ import annotations

import math
from datetime import UTC, datetime

from hypothesis import example, given
from hypothesis import strategies as st

from probes import limits
from probes.errors import TargetError
from probes.target import URL_METHODS, parse_target
from tests.fuzz.strategies import FUZZ

ADDRESSY = st.one_of(
    st.text(max_size=60),
    st.text(alphabet="0123456789.:[]%abcdefx-/@?#", max_size=40),
    st.builds(
        lambda scheme, host, rest: f"{scheme}://{host}{rest}",
        st.sampled_from(["http", "https", "ftp", "HTTP"]),
        st.text(alphabet="0123456789.:[]%abcdef-", max_size=30),
        st.text(alphabet="/:?#@ab0\n", max_size=10),
    ),
)


@FUZZ
@given(ADDRESSY)
@example("[::1")
@example("[::1]junk")
@example("127.0.0\x00.1")
@example("\ufeff127.0.0.1")
@example("127.000.000.001")
@example("http://[::1]junk/")
@example("http://[fe80::1%25lo]:8080/x")
@example("host:" + "9" * 5000)
def test_a_target_is_read_strictly_and_normalised(text: str) -> None:
    try:
        target = parse_target(text)
    except TargetError:
        return
    assert target.host and all(c.isprintable() and not c.isspace() for c in target.host)
    again = parse_target(target.url if target.method in URL_METHODS else target.default_name())
    assert again.key == target.key  # what was read reads back as the same target


DURATION_TEXT = st.one_of(
    st.text(max_size=30),
    st.text(alphabet="0123456789.wdhms ", max_size=20),
    st.floats(),
    st.integers(min_value=-(10**30), max_value=10**30),
)


@FUZZ
@given(DURATION_TEXT, st.sampled_from([limits.CADENCE, limits.INTERVAL, limits.AGE, limits.GRACE]))
@example("1e999s", limits.CADENCE)
@example("99999999999w", limits.AGE)
@example(float("nan"), limits.CADENCE)
def test_a_duration_is_within_its_limit_or_a_value_error(value: object, limit: limits.Limit) -> None:
    try:
        seconds = limits.parse_duration(value, limit)
    except ValueError as exc:
        assert str(exc)
        return
    assert math.isfinite(seconds) and limit.low <= seconds <= limit.high


@FUZZ
@given(
    st.one_of(
        st.text(max_size=40),
        st.text(alphabet="0123456789-:T+Z.wdhms ", max_size=30),
        st.datetimes(timezones=st.sampled_from([UTC, None])).map(lambda d: d.isoformat()),
    )
)
@example("9999999d")
@example("9999-12-31T23:59:59-14:00")
@example("0001-01-01T00:00:00+14:00")
def test_a_time_is_in_the_range_linkvet_reads_or_a_value_error(text: str) -> None:
    now = datetime(2026, 12, 1, tzinfo=UTC)
    try:
        moment = limits.parse_time(text, now)
    except ValueError as exc:
        assert str(exc)
        return
    assert moment.tzinfo is not None and limits.EARLIEST <= moment < limits.LATEST


ALL_LIMITS = [value for value in vars(limits).values() if isinstance(value, limits.Limit)]


@FUZZ
@given(
    st.one_of(st.text(max_size=50), st.integers().map(str), st.floats().map(repr)),
    st.sampled_from(ALL_LIMITS),
)
@example("99999999999999", limits.COUNT)
@example("1e12", limits.INTERVAL)
@example("1e12", limits.GAP_MS)
@example("nan", limits.TIMEOUT)
@example("9" * 5000, limits.COUNT)
def test_a_flag_is_within_its_limit_or_a_value_error(text: str, limit: limits.Limit) -> None:
    try:
        value = limit.parse(text)
    except ValueError as exc:
        assert str(exc)
        return
    assert math.isfinite(value) and limit.low <= value <= limit.high
    assert not limit.integer or isinstance(value, int)
    assert limit.check(value) == value  # a flag and a plan's field accept the same values
