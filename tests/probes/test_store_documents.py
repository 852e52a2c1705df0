"""Evaluation documents and office agents' health in the store (schema 10), on SQLite and PostgreSQL alike:
written, replaced, listed, read and deleted by name, bodies kept byte for byte, measurements untouched, and
what the tables cannot hold refused with a clear error."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from probes.errors import StoreError
from probes.store import AgentHealth, EvaluationDocument, Store
from probes.target import Method, Target
from tests.probes.test_store import T0, synthetic_result
from tests.rounds import save_round

BODY = """format_version = 1
# 三家候选：北京、上海两个办公室
name = "gpu-2027 % ? %s"
[[candidates]]
provider = "raksmart"
"""


@pytest.fixture(params=["sqlite", "postgres"])
def location(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return str(tmp_path / "s.sqlite3")
    return str(request.getfixturevalue("postgres_url"))


@pytest.fixture
def store(location: str) -> Iterator[Store]:
    with Store(location) as opened:
        yield opened


def test_evaluations_are_written_replaced_listed_read_and_deleted_by_name(store: Store) -> None:
    assert store.evaluations() == [] and store.evaluation("gpu-2027") is None
    first = store.put_evaluation("gpu-2027", BODY, format=1, updated_by="lin@beijing", updated_us=T0)
    assert first == EvaluationDocument("gpu-2027", 1, BODY, T0, "lin@beijing")
    store.put_evaluation("a-trial", "format_version = 1\n", format=1)
    assert [d.name for d in store.evaluations()] == ["a-trial", "gpu-2027"]
    assert store.evaluation("gpu-2027") == first  # the body byte for byte: Chinese, %, ? and all
    replaced = store.put_evaluation("gpu-2027", BODY + "[[offices]]\n", format=2, updated_us=T0 + 1)
    assert store.evaluation("gpu-2027") == replaced and replaced.updated_by is None and replaced.format == 2
    assert len(store.evaluations()) == 2
    assert store.delete_evaluation("gpu-2027") is True and store.delete_evaluation("gpu-2027") is False
    assert [d.name for d in store.evaluations()] == ["a-trial"]


def test_deleting_an_evaluation_deletes_no_measurement(store: Store) -> None:
    target = Target(Method.ICMP, host="198.18.3.1", provider="raksmart", region="los-angeles")
    save_round(
        store, [synthetic_result(target, T0, [150.0, 151.0])], started_us=T0, finished_us=T0, source="t"
    )
    before = store.counts()
    store.put_evaluation("gpu-2027", BODY, format=1)
    store.delete_evaluation("gpu-2027")
    assert store.counts() == before and len(store.results_frame()) == 1


@pytest.mark.parametrize(
    ("name", "format_", "body", "problem"),
    [
        ("", 1, BODY, "needs a name"),
        ("  ", 1, BODY, "needs a name"),
        ("x", 0, BODY, "is not a version"),
        ("x", True, BODY, "is not a version"),
        ("x", 1, b"bytes", "not text"),
    ],
)
def test_what_the_table_cannot_hold_is_refused(
    store: Store, name: str, format_: int, body: str, problem: str
) -> None:
    with pytest.raises(ValueError, match=problem):
        store.put_evaluation(name, body, format=format_)
    assert store.evaluations() == []


def test_agents_report_their_health_one_row_per_vantage_point_and_evaluation(store: Store) -> None:
    beijing = AgentHealth("beijing", "gpu-2027", "bj-01", 4242, "0.9.0", None, 0, T0)
    store.put_agent(beijing)
    store.put_agent(AgentHealth("shanghai", "gpu-2027", "sh-01", 77, "0.9.0", T0 - 60_000_000, 3, T0 + 5))
    store.put_agent(AgentHealth("beijing", "office-plan", "bj-01", 4243, "0.9.0", T0, 0, T0 + 7))
    later = AgentHealth("beijing", "gpu-2027", "bj-02", 9, "0.9.1", T0 + 60_000_000, 1, T0 + 60_000_001)
    store.put_agent(later)  # the same office and evaluation: its newest report replaces the last
    assert store.agents(evaluation_or_plan="gpu-2027") == [
        later,
        AgentHealth("shanghai", "gpu-2027", "sh-01", 77, "0.9.0", T0 - 60_000_000, 3, T0 + 5),
    ]
    assert [(a.evaluation_or_plan, a.vantage) for a in store.agents(vantage="beijing")] == [
        ("gpu-2027", "beijing"),
        ("office-plan", "beijing"),
    ]
    assert len(store.agents()) == 3
    with pytest.raises(ValueError, match="needs a vantage point"):
        store.put_agent(AgentHealth("", "gpu-2027", "h", None, None, None, 0, T0))
    with pytest.raises(ValueError, match="rounds in its spool"):
        store.put_agent(AgentHealth("beijing", "gpu-2027", "h", None, None, None, -1, T0))


def test_a_read_only_store_reads_documents_and_refuses_to_write_them(location: str) -> None:
    with Store(location) as writer:
        writer.put_evaluation("gpu-2027", BODY, format=1)
    with Store(location, readonly=True) as reader:
        assert [d.name for d in reader.evaluations()] == ["gpu-2027"]
        with pytest.raises(StoreError, match="could not save the evaluation"):
            reader.put_evaluation("other", BODY, format=1)
        with pytest.raises(StoreError, match="could not save the agent's state"):
            reader.put_agent(AgentHealth("beijing", "gpu-2027", "h", None, None, None, 0, T0))
