"""Editing the user's own catalogs in the Catalog screen (issue 13 §2), driven through the real widgets: a new
offering typed into the form shows in the list and in the scorecard without a restart; a fact and its
source are edited; an offering of one's own is deleted (a bundled one is copied instead); an answered
questionnaire is previewed, a conflict decided and the result written into the user's catalog folder; a bad
answers file is reported with sheet, row and key and nothing is written. Every test writes into its own
temporary LINKVET_CATALOG_DIR (`tests/conftest.py`)."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from desktop.app.models.offerings import OfferingsModel
from desktop.usecases.offerings import load_catalog_set
from desktop.usecases.questionnaire import import_questionnaire
from tests.usecases.test_questionnaire import OFFERING, answer_everything, export

NEW = "gpu-h200-8x"


def user_dir() -> Path:
    return Path(os.environ["LINKVET_CATALOG_DIR"])


def overlay_facts(provider: str = "raksmart") -> dict[str, dict[str, Any]]:
    data = tomllib.loads((user_dir() / f"{provider}.overlay.toml").read_text(encoding="utf-8"))
    return {fact["key"]: fact for fact in data["facts"]}


@pytest.fixture
def catalog(window, qtbot):  # type: ignore[no-untyped-def]
    screen = window.go_to("catalog")
    qtbot.waitUntil(lambda: screen.model.rowCount() > 0 and not screen.loading, timeout=20_000)
    return screen


@pytest.fixture
def score(window, qtbot):  # type: ignore[no-untyped-def]
    screen = window.go_to("score")
    qtbot.waitUntil(lambda: screen.ranking is not None and not screen.busy, timeout=20_000)
    return screen


def type_into(qtbot, editor, text: str) -> None:  # type: ignore[no-untyped-def]
    """Type as a user does: select what is there, then the keys."""
    line = editor.lineEdit() if hasattr(editor, "lineEdit") else editor
    line.selectAll()
    qtbot.keyClick(line, Qt.Key.Key_Delete)
    qtbot.keyClicks(line, text)


def choose(editor, value: str) -> None:  # type: ignore[no-untyped-def]
    index = editor.findData(value)
    assert index >= 0, value
    editor.setCurrentIndex(index)


def settle(qtbot, form) -> None:  # type: ignore[no-untyped-def]
    qtbot.waitUntil(lambda: not form.busy, timeout=10_000)


def ranked(score, provider: str) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    return {e.offering: e for e in score.ranking.entries if e.provider == provider} if score.ranking else {}


def new_offering(catalog, qtbot):  # type: ignore[no-untyped-def]
    catalog.provider.setCurrentIndex(catalog.provider.findData("raksmart"))
    form = catalog.edit_bar.new_offering()
    assert form.windowTitle() == "New offering" and form.provider.currentData() == "raksmart"
    type_into(qtbot, form.offering, NEW)
    type_into(qtbot, form.source, "quote from Li Wei, sales, 2026-12-03")
    type_into(qtbot, form.as_of, "2026-12-03")
    choose(form.rows["gpu"].editor, "H200 SXM")
    type_into(qtbot, form.rows["gpus_per_node"].editor, "8")
    choose(form.rows["intra_node.kind"].editor, "nvswitch")
    choose(form.rows["inter_node.fabric"].editor, "infiniband")
    type_into(qtbot, form.rows["inter_node.bandwidth_gbit_s"].editor, "3200")
    type_into(qtbot, form.rows["price.gpu_hour"].editor, "2.95")
    choose(form.rows["currency"].editor, "USD")
    form.rows["regions"].editor.set_checked("san-jose")
    settle(qtbot, form)
    return form


def test_a_new_offering_typed_into_the_form_is_listed_and_ranked_at_once(
    window, catalog, score, qtbot
) -> None:
    assert NEW not in ranked(score, "raksmart")
    window.go_to("catalog")
    form = new_offering(catalog, qtbot)
    assert form.problems == [] and form.save_button.isEnabled(), form.status.text()
    assert "8 changed value(s)" in form.status.text()
    assert form.rows["inter_node.bandwidth_gbit_s"].unit.text() == "Gbit/s"
    assert form.rows["storage.local_nvme_tb"].editor.text_value() is None  # left unknown
    form.save_button.click()
    qtbot.waitUntil(lambda: not form.isVisible(), timeout=10_000)
    facts = overlay_facts()
    assert facts[f"offering[{NEW}].gpu"]["value"] == "H200 SXM"
    assert facts[f"offering[{NEW}].inter_node.bandwidth_gbit_s"]["value"] == 3200
    assert {f["source"] for f in facts.values()} == {"quote from Li Wei, sales, 2026-12-03"}
    assert {f["as_of"] for f in facts.values()} == {"2026-12-03"}
    assert not any(k.endswith("storage.local_nvme_tb") for k in facts)  # unknown stays unknown
    # the list shows it, selected, and Delete applies to it
    qtbot.waitUntil(
        lambda: not catalog.loading and (catalog.selected_row() or {}).get("id") == NEW, timeout=20_000
    )
    assert not catalog.edit_bar.delete_button.isHidden() and catalog.edit_bar.copy_button.isHidden()
    assert "quote from Li Wei" in catalog.detail.toPlainText()
    # the scorecard, already open, ranks it without a restart
    qtbot.waitUntil(lambda: NEW in ranked(score, "raksmart") and not score.busy, timeout=20_000)
    entry = ranked(score, "raksmart")[NEW]
    assert entry.gpu == "H200 SXM" and entry.gpus_per_node == 8
    assert entry.judgement("inter_node_fabric").source.source == "quote from Li Wei, sales, 2026-12-03"
    labels = [score.scorecard.model.entry(r).offering for r in range(score.scorecard.model.rowCount())]
    assert NEW in labels


def test_the_form_checks_as_typed_with_the_loaders_messages_beside_the_field(catalog, qtbot) -> None:
    form = new_offering(catalog, qtbot)
    bandwidth = form.rows["inter_node.bandwidth_gbit_s"]
    type_into(qtbot, bandwidth.editor, "-5")
    settle(qtbot, form)
    assert not bandwidth.message.isHidden() and bandwidth.message.text()
    assert not form.save_button.isEnabled()
    type_into(qtbot, form.rows["gpus_per_node"].editor, "eight")
    type_into(qtbot, form.offering, "raksmart offering!")  # not an id
    settle(qtbot, form)
    fields = {p.field for p in form.problems}
    assert {"inter_node.bandwidth_gbit_s", "id"} <= fields
    assert not form.offering_message.isHidden() and "not an offering id" in form.offering_message.text()
    type_into(qtbot, form.offering, "high-defence-gpu-server")  # taken
    settle(qtbot, form)
    assert "already has an offering" in form.offering_message.text()
    type_into(qtbot, form.offering, NEW)
    type_into(qtbot, bandwidth.editor, "3200")
    type_into(qtbot, form.rows["gpus_per_node"].editor, "8")
    type_into(qtbot, form.source, "")
    settle(qtbot, form)
    assert (
        not form.source_message.isHidden()
        and "say where these values come from" in form.source_message.text()
    )
    type_into(qtbot, form.source, "quote")
    settle(qtbot, form)
    assert form.problems == [] and form.save_button.isEnabled()
    form.reject()
    assert not (user_dir() / "raksmart.overlay.toml").exists()  # nothing saved: nothing written


def test_editing_a_fact_and_its_source_keeps_the_earlier_value(catalog, score, qtbot) -> None:
    form = new_offering(catalog, qtbot)
    form.save_button.click()
    qtbot.waitUntil(
        lambda: (catalog.selected_row() or {}).get("id") == NEW and not catalog.loading, timeout=20_000
    )
    edit = catalog.edit_bar.edit_selected()
    assert edit.windowTitle() == f"Edit raksmart/{NEW}" and edit.offering.isReadOnly()
    bandwidth = edit.rows["inter_node.bandwidth_gbit_s"]
    assert bandwidth.editor.text_value() == "3200"
    assert "quote from Li Wei" in bandwidth.origin.text() and "as of 2026-12-03" in bandwidth.origin.text()
    type_into(qtbot, bandwidth.editor, "1600")
    type_into(qtbot, edit.source, "RakSmart spec sheet rev 4")
    type_into(qtbot, edit.as_of, "2026-12-08")
    settle(qtbot, edit)
    assert edit.values() == {"inter_node.bandwidth_gbit_s": "1600"} and edit.save_button.isEnabled()
    edit.save_button.click()
    qtbot.waitUntil(lambda: not edit.isVisible(), timeout=10_000)
    fact = overlay_facts()[f"offering[{NEW}].inter_node.bandwidth_gbit_s"]
    assert (fact["value"], fact["source"], fact["as_of"]) == (1600, "RakSmart spec sheet rev 4", "2026-12-08")
    assert [h["value"] for h in fact["history"]] == [3200]
    assert overlay_facts()[f"offering[{NEW}].gpu"]["source"] == "quote from Li Wei, sales, 2026-12-03"
    qtbot.waitUntil(
        lambda: (
            NEW in ranked(score, "raksmart")
            and ranked(score, "raksmart")[NEW].judgement("inter_node_bandwidth").source.source
            == "RakSmart spec sheet rev 4"
        ),
        timeout=20_000,
    )
    # a fact of one's own cleared is taken out again: unknown, as before it was typed
    qtbot.waitUntil(lambda: not catalog.loading, timeout=20_000)
    assert catalog.select("raksmart", NEW)
    again = catalog.edit_bar.edit_selected()
    price = again.rows["price.gpu_hour"]
    assert price.editor.text_value() == "2.95"
    type_into(qtbot, price.editor, "")
    settle(qtbot, again)
    assert again.forgotten() == ("price.gpu_hour",) and again.save_button.isEnabled()
    assert "taken out of your catalogs" in price.message.text()
    again.save_button.click()
    qtbot.waitUntil(lambda: not again.isVisible(), timeout=10_000)
    assert f"offering[{NEW}].price.gpu_hour" not in overlay_facts()
    assert f"offering[{NEW}].gpu" in overlay_facts()
    qtbot.waitUntil(
        lambda: NEW in ranked(score, "raksmart") and ranked(score, "raksmart")[NEW].price_gpu_hour is None,
        timeout=20_000,
    )


def test_clearing_a_bundled_fact_changes_nothing(catalog, qtbot) -> None:
    assert catalog.select("lambda", "1-click-cluster-h100-sxm")
    form = catalog.edit_bar.edit_selected()
    fabric = form.rows["inter_node.fabric"]
    assert fabric.editor.text_value() == "infiniband" and form.own == set()
    fabric.editor.setCurrentIndex(0)  # not stated
    settle(qtbot, form)
    assert "what the catalog says stays" in fabric.message.text()
    assert form.values() == {"inter_node.fabric": None} and not form.save_button.isEnabled()
    form.reject()


def test_delete_removes_an_offering_of_ones_own_and_a_bundled_one_is_copied(catalog, score, qtbot) -> None:
    form = new_offering(catalog, qtbot)
    form.save_button.click()
    qtbot.waitUntil(
        lambda: (catalog.selected_row() or {}).get("id") == NEW and not catalog.loading, timeout=20_000
    )
    qtbot.waitUntil(lambda: NEW in ranked(score, "raksmart"), timeout=20_000)
    box = catalog.edit_bar.delete_selected()
    assert f"raksmart/{NEW}" in box.text()
    box.button(box.StandardButton.Yes).click()
    qtbot.waitUntil(
        lambda: (
            not catalog.loading
            and all(catalog.model.row(r)["id"] != NEW for r in range(catalog.model.rowCount()))
        ),
        timeout=20_000,
    )
    assert not any(k.startswith(f"offering[{NEW}]") for k in overlay_facts())
    qtbot.waitUntil(lambda: NEW not in ranked(score, "raksmart"), timeout=20_000)
    # a bundled offering: no Delete, Copy to my catalogs
    assert catalog.select("raksmart", OFFERING)
    assert catalog.edit_bar.delete_button.isHidden() and catalog.edit_bar.copy_button.isEnabled()
    assert catalog.edit_bar.delete_selected() is None
    errors: list[str] = []
    catalog.context.reporter.fatal.connect(lambda title, message: errors.append(f"{title}: {message}"))
    dialog = catalog.edit_bar.copy_selected()
    dialog.setTextValue("hd-mine")
    dialog.accept()
    qtbot.waitUntil(
        lambda: errors or ((catalog.selected_row() or {}).get("id") == "hd-mine" and not catalog.loading),
        timeout=20_000,
    )
    assert not errors
    assert not catalog.edit_bar.delete_button.isHidden()
    assert any(k.startswith("offering[hd-mine]") for k in overlay_facts())
    names = {
        catalog.model.row(r)["id"]: catalog.model.index(r, OfferingsModel.OFFERING).data()
        for r in range(catalog.model.rowCount())
        if catalog.model.row(r)["provider"] == "raksmart"
    }
    assert names["hd-mine"] == f"{names[OFFERING]} (my copy)"  # the copy is marked as one in the table


def import_dialog(catalog, path: Path):  # type: ignore[no-untyped-def]
    assert catalog.select("raksmart", OFFERING)
    dialog = catalog.edit_bar.import_questionnaire()
    assert dialog.provider.currentData() == "raksmart" and not dialog.import_button.isEnabled()
    dialog.file.setText(str(path))
    return dialog


def test_an_answered_questionnaire_is_previewed_a_conflict_chosen_and_written(
    catalog, score, qtbot, tmp_path: Path
) -> None:
    before = ranked(score, "raksmart")[OFFERING]
    # what the user knew already: a quote for the GPU and the price
    first = tmp_path / "first.xlsx"
    answer_everything(export(tmp_path, needs=False), first)
    import_questionnaire(first, load_catalog_set(), "raksmart")
    catalog.reload()
    qtbot.waitUntil(lambda: not catalog.loading, timeout=20_000)
    gpu, price = f"offering[{OFFERING}].gpu", f"offering[{OFFERING}].price.gpu_hour"
    revised = tmp_path / "revised.xlsx"
    answer_everything(
        export(tmp_path, needs=False),
        revised,
        {gpu: "H200 SXM", price: 1.9, "meta.answered_on": "2026-12-10"},
    )
    dialog = import_dialog(catalog, revised)
    dialog.preview_button.click()
    qtbot.waitUntil(lambda: not dialog.running, timeout=20_000)
    assert dialog.preview is not None and dialog.import_button.isEnabled(), dialog.status.text()
    assert "2 that contradict it" in dialog.status.text()
    assert (
        not (user_dir() / "raksmart.overlay.toml").read_text(encoding="utf-8").count("2026-12-10")
    )  # nothing yet
    rows = {
        dialog.changes.item(r, dialog.KEY).text(): [dialog.changes.item(r, c).text() for c in range(5)]
        for r in range(dialog.changes.rowCount())
    }
    assert (
        rows[price][dialog.NOW].startswith("2.2 per GPU-hour — ") and "first.xlsx" in rows[price][dialog.NOW]
    )
    assert (
        rows[price][dialog.ANSWER] == "1.9 per GPU-hour" and rows[price][dialog.CHOICE] == "take the answer"
    )
    assert rows[gpu][dialog.NOW].startswith("H100 SXM")
    assert dialog.taken() == [gpu, price] or set(dialog.taken()) == {gpu, price}
    dialog.set_taken(gpu, False)  # keep the GPU the catalog says; take the new price
    assert dialog.taken() == [price]
    dialog.import_button.click()
    qtbot.waitUntil(lambda: dialog.imported is not None, timeout=20_000)
    assert "1 kept as the catalog says" in dialog.status.text()
    facts = overlay_facts()
    assert facts[price]["value"] == 1.9 and facts[price]["as_of"] == "2026-12-10"
    assert [h["value"] for h in facts[price]["history"]] == [2.2]
    assert facts[gpu]["value"] == "H100 SXM" and facts[gpu]["as_of"] == "2026-12-03"
    # the scorecard re-ranks: RakSmart's offering now has its answers
    qtbot.waitUntil(
        lambda: (
            ranked(score, "raksmart")[OFFERING].coverage > before.coverage
            and ranked(score, "raksmart")[OFFERING].price_gpu_hour == 1.9
        ),
        timeout=20_000,
    )


def test_a_bad_answers_file_is_reported_with_sheet_row_and_key_and_nothing_is_written(
    catalog, qtbot, tmp_path: Path
) -> None:
    bad = tmp_path / "bad.xlsx"
    answer_everything(
        export(tmp_path, needs=False),
        bad,
        {f"offering[{OFFERING}].gpus_per_node": "eight", f"offering[{OFFERING}].price.gpu_hour": -2.5},
    )
    dialog = import_dialog(catalog, bad)
    dialog.preview_button.click()
    qtbot.waitUntil(lambda: not dialog.running, timeout=20_000)
    assert dialog.preview is None and not dialog.import_button.isEnabled()
    assert "2 answer(s) not valid: nothing can be imported" in dialog.status.text()
    problems = {row[dialog.PROBLEM_KEY]: row for row in dialog.problem_rows()}
    per_node = problems[f"offering[{OFFERING}].gpus_per_node"]
    assert per_node[dialog.SHEET] == "Offerings" and int(per_node[dialog.ROW]) > 2
    assert per_node[dialog.GIVEN] == "eight" and per_node[dialog.EXPECTED] == "a whole number from 1 to 72"
    assert (
        "-2.5 is outside the range asked for"
        in problems[f"offering[{OFFERING}].price.gpu_hour"][dialog.PROBLEM]
    )
    assert not (user_dir() / "raksmart.overlay.toml").exists()
    # skipping the invalid answers: the rest previewed and written, the two listed and left out
    dialog.skip_invalid.setChecked(True)
    dialog.preview_button.click()
    qtbot.waitUntil(lambda: not dialog.running, timeout=20_000)
    assert dialog.preview is not None and dialog.import_button.isEnabled()
    assert "2 invalid answer(s) will be skipped" in dialog.status.text() and len(dialog.problem_rows()) == 2
    dialog.skip_invalid.setChecked(False)  # changed after the preview: preview again first
    assert not dialog.import_button.isEnabled() and "Preview again" in dialog.status.text()
    dialog.skip_invalid.setChecked(True)
    dialog.preview_button.click()
    qtbot.waitUntil(lambda: not dialog.running, timeout=20_000)
    dialog.import_button.click()
    qtbot.waitUntil(lambda: dialog.imported is not None, timeout=20_000)
    facts = overlay_facts()
    assert f"offering[{OFFERING}].gpu" in facts
    assert (
        f"offering[{OFFERING}].gpus_per_node" not in facts
        and f"offering[{OFFERING}].price.gpu_hour" not in facts
    )
    (user_dir() / "raksmart.overlay.toml").unlink()
    # not a workbook at all: the reason, with the file, and still nothing written
    junk = tmp_path / "junk.xlsx"
    junk.write_text("not a workbook", encoding="utf-8")
    dialog.file.setText(str(junk))
    dialog.preview_button.click()
    qtbot.waitUntil(lambda: not dialog.running, timeout=20_000)
    assert "junk.xlsx" in dialog.status.text() and not dialog.import_button.isEnabled()
    assert not (user_dir() / "raksmart.overlay.toml").exists()
    # a valid zip whose sheet is damaged: said as such, not as the XML library's bare error
    from tests.usecases.test_questionnaire_held import damaged

    broken = damaged(bad, tmp_path / "broken.xlsx")
    dialog.file.setText(str(broken))
    dialog.preview_button.click()
    qtbot.waitUntil(lambda: not dialog.running, timeout=20_000)
    assert f"{broken}: the sheet " in dialog.status.text()
    assert "is damaged and cannot be read (not well-formed XML" in dialog.status.text()
    assert "Error" not in dialog.status.text() and not dialog.import_button.isEnabled()


def test_a_questionnaire_is_exported_from_the_window_in_the_chosen_language(
    catalog, qtbot, tmp_path: Path
) -> None:
    from openpyxl import load_workbook

    assert catalog.select("raksmart", OFFERING)
    dialog = catalog.edit_bar.export_questionnaire()
    assert dialog.provider.currentData() == "raksmart"
    assert dialog.chosen_offerings() == ()  # every offering
    type_into(qtbot, dialog.new_offerings, "gpu-b200-8x")
    assert dialog.chosen_offerings() == (OFFERING, "gpu-b200-8x")
    dialog.language.setCurrentIndex(dialog.language.findData("zh_CN"))
    out = tmp_path / "raksmart.xlsx"
    out.write_bytes(b"an earlier file")
    dialog.out.setText(str(out))
    dialog.start_export()
    assert dialog.replace_box is not None and "exists" in dialog.replace_box.text()  # asked, not refused
    dialog.replace_box.button(QMessageBox.StandardButton.No).click()
    assert not dialog.running and out.read_bytes() == b"an earlier file"  # not replaced unasked
    dialog.start_export()
    dialog.replace_box.button(QMessageBox.StandardButton.Yes).click()
    qtbot.waitUntil(lambda: not dialog.running, timeout=30_000)
    assert dialog.written_result is not None, dialog.status.text()
    assert dialog.written_result.offerings == (OFFERING, "gpu-b200-8x")
    book = load_workbook(out)
    offerings = book.worksheets[1]  # the sheets are named in the workbook's language
    keys = {row[0] for row in offerings.iter_rows(min_row=3, values_only=True) if row[0]}
    assert f"offering[{OFFERING}].gpu" in keys and "offering[gpu-b200-8x].gpu" in keys
    assert "回答" in [c.value for c in offerings[2]]
    # The name the dialog proposes is one it writes without asking: never a file that is there already.
    catalog.context.settings.export_dir = tmp_path
    proposed = tmp_path / "raksmart-questionnaire.xlsx"
    proposed.write_bytes(b"last week's")
    again = catalog.edit_bar.export_questionnaire()
    assert again.out.text() == str(tmp_path / "raksmart-questionnaire-2.xlsx")
    again.start_export()
    assert again.replace_box is None
    qtbot.waitUntil(lambda: not again.running, timeout=30_000)
    assert again.written_result is not None and proposed.read_bytes() == b"last week's"


def test_the_form_speaks_the_windows_language(window, catalog, qtbot) -> None:
    window.set_language("zh_CN")
    qtbot.waitUntil(lambda: catalog.edit_bar.new_button.text() == "新建产品…", timeout=5_000)
    form = catalog.edit_bar.new_offering()
    assert form.windowTitle() == "新建产品"
    assert form.rows["gpu"].label.text() == "GPU 型号"  # the questionnaire's own Chinese question
    assert form.rows["storage.local_nvme_tb"].origin.text() == "没有任何来源说明"
    window.set_language("en")
    qtbot.waitUntil(lambda: form.rows["gpu"].label.text() == "GPU model", timeout=5_000)
    form.reject()
