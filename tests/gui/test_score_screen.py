"""The Needs & score screen says what `linkvet size` and `linkvet score` say: the gradient sync volume is per
node (over its inter-node links), a gate that could not be checked is not shown as a plain pass, and every
text names criteria and the method in words, never by id, in both languages."""

from __future__ import annotations

import re

import pytest
from PySide6.QtCore import Qt

from desktop.app.models.ranking import RankingModel
from desktop.export.procurement import gates_text
from tests.raw_ids import raw_ids


@pytest.fixture
def score(window, qtbot):  # type: ignore[no-untyped-def]
    screen = window.go_to("score")
    qtbot.waitUntil(lambda: screen.ranking is not None and not screen.busy, timeout=20_000)
    return screen


def sync_line(screen) -> str:  # type: ignore[no-untyped-def]
    return next(
        line
        for line in screen.sizing.sizing_text.text().splitlines()
        if line.startswith(("Gradient sync", "每步梯度同步"))
    )


def test_gradient_sync_is_per_node(score, window, qtbot) -> None:
    # The example spans 4 nodes of 8 H100: `linkvet size` says "… GB over each node's inter-node links".
    line = sync_line(score)
    assert line.endswith("GB over each node's inter-node links") and "per GPU" not in line
    window.set_language("zh_CN")
    qtbot.waitUntil(lambda: score.title.text() == "需求与评分")
    assert "每个节点" in sync_line(score) and "每卡" not in sync_line(score)


def test_gates_column_matches_linkvet_score_and_the_workbook(score, window, qtbot) -> None:
    model = score.scorecard.model
    shown = [model.index(row, RankingModel.GATES).data() for row in range(model.rowCount())]
    assert shown == [gates_text(entry) for entry in model.entries()]
    assert any(text.startswith("pass (unchecked: ") for text in shown)  # the example leaves some unknown
    assert "pass" in shown or any(text.startswith("fail: ") for text in shown)
    unchecked = shown.index(next(t for t in shown if t.startswith("pass (unchecked: ")))
    window.set_language("zh_CN")
    qtbot.waitUntil(lambda: score.title.text() == "需求与评分")
    assert model.index(unchecked, RankingModel.GATES).data().startswith("通过（未核实：")


def test_the_ranking_status_and_explanation_read_as_chinese_sentences(score, window, qtbot) -> None:
    """The status under the needs (candidates, sensitivity, regions measured) and the selected entry's
    explanation end their Chinese sentences with 。 and join clauses with ；, not in English's way."""
    assert score.scorecard.status.text().rstrip().endswith(".")
    window.set_language("zh_CN")
    qtbot.waitUntil(lambda: score.title.text() == "需求与评分")
    qtbot.waitUntil(lambda: "已实测" in score.scorecard.status.text(), timeout=20_000)
    status = score.scorecard.status.text()
    explanation = score.scorecard.explanation.toPlainText()
    for text in (status, explanation):
        assert re.search(r"[\u4e00-\u9fff）][.;,]|[。；] ", text) is None, text
    assert status.rstrip().endswith("。") and "第 1 名" in explanation and "；" in explanation


def _screen_words(score) -> str:  # type: ignore[no-untyped-def]
    """Every text the score screen shows: the status, the ranking table (headers and cells), and for a few
    candidates (the first ones, and one that fails a gate) the breakdown and the explanation in words."""
    card = score.scorecard
    model = card.model
    texts = [card.status.text()]
    texts += [str(model.headerData(c, Qt.Orientation.Horizontal)) for c in range(model.columnCount())]
    rows = list(range(min(5, model.rowCount())))
    rows += [r for r in range(model.rowCount()) if not model.entry(r).eligible][:1]
    for row in range(model.rowCount()):
        texts += [str(model.index(row, c).data()) for c in range(model.columnCount())]
    for row in rows:
        card.table.selectRow(row)
        breakdown = card.breakdown
        texts += [
            str(breakdown.headerData(c, Qt.Orientation.Horizontal)) for c in range(breakdown.columnCount())
        ]
        for r in range(breakdown.rowCount()):
            texts += [str(breakdown.index(r, c).data()) for c in range(breakdown.columnCount())]
        texts.append(card.explanation.toPlainText())
    texts.append(card.sensitivity.toPlainText())
    texts += [label.text() for label in score.weights_panel.slider_labels.values()]
    return "\n".join(texts)


def test_the_score_screen_names_criteria_and_the_method_in_words_in_both_languages(
    score, window, qtbot
) -> None:
    """No human sentence of the window's score screen holds a raw criterion or method id (`intra_node`,
    `bmc_ipmi`, "weighted-sum"), in English or in Chinese; the sliders, the breakdown and the explanation name
    the same titles."""
    english = _screen_words(score)
    assert "Out-of-band management (BMC/IPMI)" in english and "weighted sum" in english
    assert raw_ids(english) == []
    window.set_language("zh_CN")
    qtbot.waitUntil(lambda: score.title.text() == "需求与评分")
    qtbot.waitUntil(lambda: "已实测" in score.scorecard.status.text(), timeout=20_000)
    qtbot.waitUntil(lambda: not score.busy, timeout=20_000)
    chinese = _screen_words(score)
    assert "带外管理（BMC/IPMI）" in chinese
    assert raw_ids(chinese, chinese=True) == []
    # ranked again in the new language: the reasons (prices, their derivation) are Chinese too
    assert "GPU-hour" not in chinese and "derived:" not in chinese and "GPU 小时" in chinese
