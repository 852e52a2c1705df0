"""The Catalog and Needs & score screens on the bundled catalogs: filtering and sorting offerings, putting a
catalog region's endpoints on the probe list, live sizing, and weights that re-rank the scorecard."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from catalogs.checklist import default_checklist
from catalogs.loader import load_catalogs
from catalogs.needs import validate_needs
from catalogs.scoring import rank_offerings
from desktop.app.models.offerings import OfferingsModel
from desktop.usecases.offerings import load_view


@pytest.fixture
def catalog(window, qtbot):  # type: ignore[no-untyped-def]
    screen = window.go_to("catalog")
    qtbot.waitUntil(lambda: screen.model.rowCount() > 0, timeout=20_000)
    return screen


@pytest.fixture
def score(window, qtbot):  # type: ignore[no-untyped-def]
    screen = window.go_to("score")
    qtbot.waitUntil(lambda: screen.ranking is not None and not screen.busy, timeout=20_000)
    return screen


def test_catalog_lists_filters_and_sorts_offerings(catalog, qtbot) -> None:
    total = catalog.model.rowCount()
    assert total == sum(len(p.offerings) for p in load_catalogs().providers)
    catalog.gpu.setCurrentText("H100")
    shown = catalog.proxy.rowCount()
    assert 0 < shown < total
    gpus = {catalog.proxy.index(r, OfferingsModel.GPU).data() for r in range(shown)}
    assert all(g.upper().startswith("H100") for g in gpus)
    catalog.table.sortByColumn(OfferingsModel.PRICE, Qt.SortOrder.AscendingOrder)
    prices = [
        catalog.proxy.index(r, OfferingsModel.PRICE).data(OfferingsModel.SortRole) for r in range(shown)
    ]
    assert prices == sorted(prices)
    catalog.search.setText("lambda")
    assert all(
        catalog.proxy.index(r, OfferingsModel.PROVIDER).data() == "lambda"
        for r in range(catalog.proxy.rowCount())
    )
    catalog.table.selectRow(0)
    assert "GPU reference" in catalog.detail.toPlainText()
    assert catalog.provider_file() is not None and catalog.provider_file().name == "lambda.toml"


def test_interconnects_and_yes_no_facts_read_as_words_in_either_language(catalog, window, qtbot) -> None:  # type: ignore[no-untyped-def]
    """The catalog's values (`nvswitch`, `infiniband`, `other`, true) are identifiers; the table and the
    detail pane show their names (NVSwitch, InfiniBand), and "other" and yes/no in the window's language."""
    model = catalog.model
    rows = range(model.rowCount())

    def column(number: int) -> set[str]:
        return {str(model.index(r, number).data()) for r in rows}

    intra, fabric = column(OfferingsModel.INTRA), column(OfferingsModel.FABRIC)
    assert any(t.startswith("NVSwitch") for t in intra) and not any(t.startswith("nvswitch") for t in intra)
    assert any(t.startswith("InfiniBand") for t in fabric) and "other" in {t.split()[0] for t in fabric}
    rdma = next(r for r in rows if (model.row(r).get("inter_node") or {}).get("rdma") is True)
    catalog.table.selectRow(catalog.proxy.mapFromSource(model.index(rdma, 0)).row())
    assert "True" not in catalog.detail.toPlainText()
    window.set_language("zh_CN")
    qtbot.waitUntil(lambda: catalog.title.text() == "服务商名录")
    assert "其他" in {t.split()[0] for t in column(OfferingsModel.FABRIC)}
    detail = catalog.detail.toPlainText()  # the selection is shown again in the new language
    assert "RDMA\n是" in detail or "RDMA 是" in detail or "RDMA\t是" in detail, detail


def test_a_catalog_region_goes_onto_the_probe_list_with_its_labels(catalog, window, qtbot) -> None:
    catalog.provider.setCurrentIndex(catalog.provider.findData("aws"))
    catalog.table.selectRow(0)
    index = catalog.region.findData("us-east-1")
    assert index >= 0
    catalog.region.setCurrentIndex(index)
    before = window.context.targets.rowCount()
    added = catalog.add_selected_region()
    assert added > 0 and window.context.targets.rowCount() == before + added
    new = window.context.targets.entries()[before:]
    assert {(e.target.provider, e.target.region, e.origin) for e in new} == {("aws", "us-east-1", "catalog")}
    assert catalog.add_selected_region() == 0  # already on the list


def test_a_broken_catalog_file_is_reported_and_the_rest_loads(tmp_path: Path) -> None:
    (tmp_path / "good.toml").write_text(
        (Path(__file__).resolve().parents[2] / "catalogs" / "providers" / "lambda.toml").read_text()
    )
    (tmp_path / "broken.toml").write_text("format_version = 1\n[provider]\nid = 'x'\n")
    view = load_view([tmp_path])
    assert [c.provider.id for c in view.catalogs.providers] == ["lambda"]
    assert view.errors and "broken.toml" in view.errors[0]
    assert len(view.rows) == len(view.catalogs.providers[0].offerings)


def test_sizing_follows_the_form_as_it_is_edited(score, qtbot) -> None:
    assert "fits from 18 GPU(s)" in score.sizing.sizing_text.text()  # 70B full fine-tune, ZeRO-3, on H100 SXM
    score.form.params_b.setValue(7)
    score.form.mode.setCurrentText("lora")
    score.form.gpus_wanted.setValue(0)
    assert (
        "fits from 1 GPU(s)" in score.sizing.sizing_text.text()
        and "one node" in score.sizing.sizing_text.text()
    )
    score.form.architecture.setCurrentText("moe")
    score.form.active_b.setValue(9)  # more active than total: the profile's own check names the field
    assert "active_params" in score.form.error.text()


def test_moving_weights_reranks_and_matches_linkvet_score(score, qtbot, window) -> None:
    first = score.top_labels(3)
    # Care only about price: the cheapest candidates that pass every gate come first.
    for key in score.weights_panel.sliders:
        score.set_weight(key, 0)
    score.set_weight("price", 40)
    qtbot.waitUntil(lambda: not score.busy and score.top_labels(3) != first, timeout=10_000)
    needs = validate_needs(score.form.values())
    expected = rank_offerings(needs, load_catalogs(), weights=score.weights())
    assert score.top_labels(10) == [e.label for e in expected.entries[:10]]
    top = score.ranking.entries[0]
    # prices are scored against a fixed reference, not the cheapest loaded: the first has the best price score
    # of those passing every gate (whether or not it reaches 1)
    best_price = max(e.judgement("price").score or 0.0 for e in score.ranking.entries if e.eligible)
    assert top.eligible and top.judgement("price").score == best_price
    # The breakdown of the selected row lists every checklist item, gates first.
    assert [j.criterion for j in score.scorecard.breakdown.judgements()] == [
        c.id for c in default_checklist().gates
    ] + [c.id for c in default_checklist().weighted]
    assert window.context.settings.score_weights["price"] == 40
    score.weights_panel.reset_all_weights()
    qtbot.waitUntil(lambda: not score.busy and score.top_labels(3) == first, timeout=10_000)


def test_scorecard_columns_carry_their_headers(score) -> None:
    from desktop.app.models.ranking import RankingModel

    model = score.scorecard.model
    header = {c: model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())}
    assert header[RankingModel.SCORE] == "Score" and header[RankingModel.GATES] == "Gates"
    top = model.entry(0)
    shown = model.index(0, RankingModel.SCORE).data()
    assert shown == f"{top.total:.3f} ({top.score_min:.2f}–{top.score_max:.2f}, {top.coverage:.0%})"
    # beside the rank, the figure that orders the ranking, and its header says which (the worst case here):
    # the order and the figure shown agree, row after row
    assert header[RankingModel.RATING] == "At worst ↓"
    ratings = [float(model.index(row, RankingModel.RATING).data()) for row in range(model.rowCount())]
    passing = [r for r, e in zip(ratings, model.entries(), strict=True) if e.eligible]
    assert passing == sorted(passing, reverse=True)
    assert ratings[0] == pytest.approx(top.score_min, abs=5e-4)
    assert model.index(0, RankingModel.PROVIDER).data() == top.provider
    assert header[RankingModel.PROVIDER] == "Provider"


def test_only_passing_hides_candidates_that_fail_a_gate(score, qtbot) -> None:
    failing = sum(1 for e in score.ranking.entries if not e.eligible)
    assert failing > 0
    score.scorecard.passing_only.setChecked(True)
    assert score.scorecard.model.rowCount() == len(score.ranking.entries) - failing
    assert all(e.eligible for e in score.scorecard.model.entries())


def test_the_weights_show_the_cores_checklist_titles_in_chinese(window, qtbot) -> None:
    """One source for the checklist's words: the window's weight labels are `Criterion.shown_title`, so
    the window says 晚高峰 where the CLI and the workbook do."""
    from desktop.i18n import current_language

    panel = window.go_to("score").weights_panel
    line_quality = default_checklist().get("line_quality")
    assert panel.slider_labels["line_quality"].text() == line_quality.title
    window.set_language("zh_CN")
    qtbot.waitUntil(lambda: current_language() == "zh_CN")
    qtbot.waitUntil(lambda: panel.slider_labels["line_quality"].text() == line_quality.shown_title)
    assert "晚高峰" in panel.slider_labels["line_quality"].text()
    for criterion in default_checklist().criterion:
        if criterion.id in panel.slider_labels:
            assert panel.slider_labels[criterion.id].text() == criterion.shown_title
    window.set_language("en")
    qtbot.waitUntil(lambda: panel.slider_labels["line_quality"].text() == line_quality.title)


def test_targets_from_the_catalog_tree_keep_their_labels(window, qtbot) -> None:
    from desktop.app.catalog_targets_dialog import CatalogTargetsDialog

    dialog = CatalogTargetsDialog(load_catalogs())
    qtbot.addWidget(dialog)
    providers = [dialog.tree.topLevelItem(i).text(0) for i in range(dialog.tree.topLevelItemCount())]
    assert "RakSmart" not in providers  # no RakSmart endpoint in any nameable source: none offered
    dialog.check_region("aws", "us-east-1")
    assert dialog.chosen_regions() == [("aws", "us-east-1")]
    # Ticking a provider ticks all its regions.
    top = next(dialog.tree.topLevelItem(i) for i in range(len(providers)) if "DigitalOcean" in providers[i])
    top.setCheckState(0, Qt.CheckState.Checked)
    assert {p for p, _ in dialog.chosen_regions()} == {"aws", "digitalocean"}
    entries, problems = dialog.entries()
    assert entries and not problems
    assert {e.target.provider for e in entries} == {"aws", "digitalocean"}
    assert all(e.origin == "catalog" and e.target.region and e.target.line_type for e in entries)
    screen = window.go_to("targets")
    before = window.context.targets.rowCount()
    assert screen.add_entries(entries) == len({e.target.key for e in entries})
    assert window.context.targets.rowCount() > before
