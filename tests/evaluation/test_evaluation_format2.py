"""The evaluation document's format 2: its own cadence and alert rules (as in a plan file, plus `offices`),
written only when used (a format-1 reader still reads every other evaluation), read strictly with the file,
line and field of each problem, and carried into the office's plan."""

from __future__ import annotations

from dataclasses import replace

import pytest

from catalogs.errors import EvaluationError
from catalogs.evaluation.model import (
    EXAMPLE_EVALUATION,
    Office,
    document_version,
    parse_evaluation,
    read_evaluation_file,
    to_toml,
)
from desktop.usecases.evaluation_plan import evaluation_plan
from desktop.usecases.offerings import load_catalog_set
from probes.errors import PlanError

EXAMPLE = EXAMPLE_EVALUATION.read_text(encoding="utf-8")
V2 = EXAMPLE.replace(
    'format_version = 1\nname = "example"',
    'format_version = 2\nname = "example"\nevery = "2m"\npeak_every = "30s"',
    1,
).replace(
    "[needs]\n",
    """[[alerts]]
name = "peak-loss"
when = "loss"
above = 2.0
peak_only = true
offices = 2
notify = ["team"]

[notifiers.team]
type = "webhook"
url_env = "LINKVET_TEAM_WEBHOOK"

[[offices]]
name = "shanghai"
carrier = "ct"

[[offices]]
name = "beijing"

[needs]
""",
    1,
)


def test_a_format_2_document_reads_back_as_written_and_into_the_plan() -> None:
    evaluation = parse_evaluation(V2, "q.toml")
    assert (evaluation.schedule.every_s, evaluation.schedule.peak_every_s) == (120.0, 30.0)
    assert evaluation.schedule.alerts[0]["offices"] == 2 and "team" in evaluation.schedule.notifiers
    assert document_version(evaluation) == 2 and "format_version = 2" in to_toml(evaluation)
    assert parse_evaluation(to_toml(evaluation)) == evaluation
    plan = evaluation_plan(evaluation, load_catalog_set(include_user=False), "shanghai")
    assert (plan.every_s, plan.peak_every_s) == (120.0, 30.0)
    assert plan.alerting is not None and plan.alerting.rules[0].offices == 2
    assert plan.alerting.rules[0].windows == evaluation.peak_windows
    without = evaluation_plan(evaluation, load_catalog_set(include_user=False), "shanghai", alerts=False)
    assert without.alerting is None


def test_a_document_without_format_2_fields_is_written_as_format_1() -> None:
    example = read_evaluation_file(EXAMPLE_EVALUATION)
    assert document_version(example) == 1 and "format_version = 1\n" in to_toml(example)
    only_every = replace(example, schedule=replace(example.schedule, every_s=30.0))
    plan = evaluation_plan(only_every, load_catalog_set(include_user=False), None)
    assert plan.every_s == plan.peak_every_s == 30.0  # the peak is never slower than the rest of the day


@pytest.mark.parametrize(
    ("change", "where", "words"),
    [
        (("format_version = 2", "format_version = 1"), "every", "every needs format_version = 2"),
        (('every = "2m"', 'every = "soon"'), "every", "is not a duration"),
        (('peak_every = "30s"', 'peak_every = "5m"'), "peak_every", "is longer than every"),
        (("offices = 2", "offices = 3"), "alerts[0].offices", "the evaluation has 2 offices"),
        (('notify = ["team"]', 'notify = ["tea"]'), "alerts[0].notify[0]", "no notifier 'tea'"),
        (("above = 2.0", "above = 2.0\nbelow = 1"), "alerts[0].below", "unknown field"),
        (('type = "webhook"', 'type = "pager"'), "notifiers.team.type", "pager"),
        (("format_version = 2", "format_version = 3"), "format_version", "newer than this linkvet"),
    ],
)
def test_a_bad_format_2_document_names_the_line_and_field(
    change: tuple[str, str], where: str, words: str
) -> None:
    text = V2.replace(*change, 1)
    with pytest.raises(EvaluationError) as refused:
        parse_evaluation(text, "q.toml")
    assert refused.value.field == where and words in str(refused.value), str(refused.value)
    assert refused.value.line is not None and str(refused.value).startswith("q.toml:")


def test_a_rule_that_selects_no_target_is_refused_where_the_plan_is_built() -> None:
    evaluation = parse_evaluation(V2.replace("offices = 2", 'provider = "nobody"\noffices = 2', 1), "q.toml")
    with pytest.raises(PlanError, match="selects no target"):
        evaluation_plan(evaluation, load_catalog_set(include_user=False), "shanghai")
    evaluation = replace(evaluation, offices=(Office("shanghai"), Office("beijing")))
    assert evaluation_plan(evaluation, load_catalog_set(include_user=False), "shanghai", alerts=False).targets
