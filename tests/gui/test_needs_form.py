"""The needs form keeps every field of a loaded needs file: the scorecard ranks the profile `linkvet score
--needs FILE` ranks, and the form edits only what the user changes."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtWidgets import QFileDialog

from catalogs.loader import load_catalogs
from catalogs.needs import EXAMPLE_NEEDS, load_needs
from catalogs.scoring import rank_offerings
from desktop.usecases.sizing import size_on

# Fields the form has no widget for (model shape, LoRA share, MFU, memory reserve) beside ones it has
# only since this file was written (data location, monthly budget, target step time).
RICH_NEEDS = """\
format_version = 1
name = "rich"
[model]
params = 70e9
layers = 80
hidden_size = 8192
attention_heads = 64
[training]
mode = "lora"
lora_fraction = 0.05
activation_checkpointing = false
target_step_seconds = 5.0
mfu = 0.3
[cluster]
memory_reserve = 0.2
[location]
data = "Frankfurt"
[budget]
month_max = 1000.0
"""


@pytest.fixture
def score(window, qtbot):  # type: ignore[no-untyped-def]
    screen = window.go_to("score")
    qtbot.waitUntil(lambda: screen.ranking is not None and not screen.busy, timeout=20_000)
    return screen


def load_through_the_button(screen, qtbot, monkeypatch, path: Path) -> None:  # type: ignore[no-untyped-def]
    """Click "Load a needs file…" and pick `path` in the file dialog."""
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *args, **kwargs: (str(path), ""))
    before = screen.ranking
    screen.load_button.click()
    qtbot.waitUntil(lambda: screen.ranking is not before and not screen.busy, timeout=20_000)


@pytest.mark.parametrize("source", ["rich", "example"])
def test_a_loaded_needs_file_is_ranked_whole(score, qtbot, monkeypatch, tmp_path: Path, source: str) -> None:
    path = tmp_path / "needs.toml"
    path.write_text(RICH_NEEDS if source == "rich" else EXAMPLE_NEEDS.read_text(encoding="utf-8"))
    load_through_the_button(score, qtbot, monkeypatch, path)
    expected = load_needs(path)
    assert score.form.profile() == expected
    assert score.ranked is not None and score.ranked.needs == expected
    ranking = rank_offerings(expected, load_catalogs(), weights=score.weights())
    assert [e.label for e in score.ranking.entries] == [e.label for e in ranking.entries]
    assert [round(e.total, 9) for e in score.ranking.entries] == [round(e.total, 9) for e in ranking.entries]
    # The live sizing is the loaded profile's too.
    sizing = size_on(expected, score.sizing.gpu.currentText(), score.sizing.per_node.value())
    assert score.sizing.sizing_text.text() == score.sizing.describe_sizing(*sizing)
    if source == "example":
        assert "Memory per GPU: 41.5 GB" in score.sizing.sizing_text.text()  # `linkvet size` says 41.5 too
    if source == "rich":
        # The fields without a widget are shown, so nothing counts unseen.
        for shown in ("model.layers = 80", "training.mfu = 0.3", "cluster.memory_reserve = 0.2"):
            assert shown in score.form.kept.text()
        assert score.form.data_location.text() == "Frankfurt"
        assert score.form.month_max.value() == 1000.0
        assert score.form.target_step_s.value() == 5.0


def test_an_edit_overlays_the_loaded_profile(score, qtbot, monkeypatch, tmp_path: Path) -> None:
    path = tmp_path / "needs.toml"
    path.write_text(RICH_NEEDS)
    load_through_the_button(score, qtbot, monkeypatch, path)
    score.form.month_max.setValue(2500)
    score.form.data_location.setText("Singapore")
    score.form.target_step_s.setValue(0)  # back to "estimated from the GPU"
    profile = score.form.profile()
    loaded = load_needs(path)
    assert profile.budget.month_max == 2500 and profile.location.data == "Singapore"
    assert profile.training.target_step_seconds is None
    # Everything not edited is the file's.
    assert profile.training.mfu == loaded.training.mfu and profile.model.layers == 80
    assert profile.cluster.memory_reserve == loaded.cluster.memory_reserve
    # A new parameter count drops the shape that described the old model (sizing estimates it again).
    score.form.params_b.setValue(7)
    assert score.form.profile().model.layers is None
    assert "model.layers" not in score.form.kept.text()
    # The example button brings back the bundled example (without a vantage: the app's probes record none).
    score.reset_needs.click()
    example = load_needs(EXAMPLE_NEEDS)
    assert score.form.profile() == example.model_copy(
        update={"location": example.location.model_copy(update={"vantage": None})}
    )
