"""The words a packet method's result carries about its attempts (`probes.methods._attempts`), in English and
in Chinese: one message per sentence (no English fragment glued on), the error kinds as their enumerated
values, who reported the errors inside the same sentence."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from probes.errors import ErrorKind
from probes.i18n import set_language
from probes.methods._attempts import describe_losses
from probes.results import Sample

SAMPLES = (
    Sample(0, 0, 12.5),
    Sample(1, 1, None, ErrorKind.TIMEOUT),
    Sample(2, 2, None, ErrorKind.UNREACHABLE),
    Sample(3, 3, None, ErrorKind.TIMEOUT),
    Sample(4, 4, None, ErrorKind.SEND_FAILED),  # not sent: neither counted as sent nor as lost
)


@pytest.fixture
def chinese() -> Iterator[None]:
    set_language("zh_CN")
    try:
        yield
    finally:
        set_language(None)


def test_losses_in_english() -> None:
    assert describe_losses(SAMPLES, "echoes") == "3 of 4 echoes lost: 2 timeout, 1 unreachable"
    assert (
        describe_losses(SAMPLES, "echoes", ["198.18.0.1"])
        == "3 of 4 echoes lost: 2 timeout, 1 unreachable (reported by 198.18.0.1)"
    )
    assert describe_losses(SAMPLES[:1], "connects") is None


def test_losses_in_chinese(chinese: None) -> None:
    assert describe_losses(SAMPLES, "echoes") == "4 个回显请求中丢失 3 个：2 timeout、1 unreachable"
    assert (
        describe_losses(SAMPLES, "echoes", ["198.18.0.1", "198.18.0.2"])
        == "4 个回显请求中丢失 3 个：2 timeout、1 unreachable（由 198.18.0.1、198.18.0.2 报告）"
    )
    refused = (Sample(0, 0, 0.1, ErrorKind.REFUSED), Sample(1, 1, 0.2))
    assert describe_losses(refused, "connects") == "2 次连接中有 1 次出错：1 refused"


def test_several_notes_are_one_sentence_of_clauses(chinese: None) -> None:
    """Losses, a late reply, an unsent attempt and user-space timing together: in Chinese the clauses join
    with ；, the lists inside them with 、."""
    from probes.methods._attempts import attempt_notes
    from probes.timestamps import TimestampSource

    notes = attempt_notes(
        SAMPLES,
        "echoes",
        timeout_s=1.0,
        late_ms=[1200.0],
        sources=[TimestampSource.KERNEL, TimestampSource.USER],
    )
    assert notes.message is not None
    clauses = notes.message.split("；")
    assert len(clauses) == 4, notes.message  # the losses, the late reply, the unsent attempt, the timing
    assert clauses[0] == "4 个回显请求中丢失 3 个：2 timeout、1 unreachable"
    assert "; " not in notes.message and ", " not in notes.message
