"""The Export screen writes the same workbook `linkvet export` writes, from the store and the needs, weights
and method of the Needs & score screen; and scoring in the app uses the store's measured line quality."""

from __future__ import annotations

import csv
from pathlib import Path

import openpyxl
import pytest

from desktop.app.needs_form import DEFAULTS
from tests.gui.synthetic import write_history

REGIONS = 4  # the synthetic lines' (provider, region) pairs


@pytest.fixture
def measured(window):  # type: ignore[no-untyped-def]
    write_history(window.context.settings.db_path, days=2, every_s=1800, attempts=10)
    window.context.store_events.changed.emit()
    return window


def test_export_writes_the_workbook_and_finds_the_file(measured, qtbot, tmp_path: Path, run_linkvet) -> None:
    screen = measured.go_to("export")
    out = tmp_path / "exports" / "comparison.xlsx"
    screen.out.setText(str(out))
    screen.export_button.click()
    qtbot.waitUntil(lambda: not screen.running, timeout=120_000)
    assert screen.result is not None, screen.status.text()
    assert out.is_file() and screen.result.written == [out] and screen.result.folder == out.parent
    assert screen.open_folder.isEnabled()
    book = openpyxl.load_workbook(out, read_only=True)
    assert {
        "Ranking",
        "Score breakdown",
        "Link quality",
        "Hour-of-day",
        "GPU offerings",
        "Sizing",
        "Method",
    } <= set(book.sheetnames)
    assert screen.result.regions == REGIONS and screen.result.ranked and screen.result.ranked > 100
    # The CLI, on the same store with the same needs profile, writes the same sheets with the same rows.
    needs = tmp_path / "needs.toml"
    needs.write_text(
        (Path(__file__).resolve().parents[2] / "catalogs/needs/example-70b-full.toml").read_text()
    )
    cli_out = tmp_path / "cli.xlsx"
    done = run_linkvet(
        "export",
        "--db",
        str(measured.context.settings.db_path),
        "--needs",
        str(needs),
        "--out",
        str(cli_out),
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    cli_book = openpyxl.load_workbook(cli_out, read_only=True)
    for name in ("Link quality", "Ranking"):
        assert book[name].max_row == cli_book[name].max_row, name
    assert "Wrote" in screen.status.text() and str(out) in screen.status.text()
    assert DEFAULTS["model"]["params"] == 70e9  # the form's default profile is the bundled 70B example


def test_export_as_csv_writes_one_file_per_sheet(measured, qtbot, tmp_path: Path) -> None:
    screen = measured.go_to("export")
    screen.file_format.setCurrentIndex(screen.file_format.findData("csv"))
    folder = tmp_path / "csv"
    screen.out.setText(str(folder))
    screen.with_ranking.setChecked(False)
    screen.export_button.click()
    qtbot.waitUntil(lambda: not screen.running, timeout=120_000)
    written = screen.result.written
    assert len(written) == len(screen.result.sheets) and all(p.parent == folder for p in written)
    link = next(p for p in written if "link" in p.name.lower())
    with link.open(encoding="utf-8-sig") as handle:
        assert len(list(csv.reader(handle))) == REGIONS + 1
    assert screen.result.ranked is None


def test_the_scorecard_uses_the_measured_line_quality(measured, qtbot) -> None:
    score = measured.go_to("score")
    qtbot.waitUntil(
        lambda: score.summaries is not None and score.ranking is not None and not score.busy, timeout=30_000
    )
    assert len(score.summaries) == REGIONS
    measured_entry = next(
        e for e in score.ranking.entries if e.provider == "lambda" and e.region == "us-west-1"
    )
    assert measured_entry.judgement("line_quality").score is not None
    other = next(e for e in score.ranking.entries if e.provider == "lambda" and e.region == "us-east-1")
    assert other.judgement("line_quality").score is None
    assert "measured for 4 region" in score.scorecard.status.text()


def test_the_export_is_in_the_windows_language(measured, qtbot, tmp_path: Path) -> None:
    measured.set_language("zh_CN")
    try:
        screen = measured.go_to("export")
        screen.file_format.setCurrentIndex(screen.file_format.findData("csv"))
        folder = tmp_path / "csv"
        screen.out.setText(str(folder))
        screen.with_ranking.setChecked(False)
        screen.export_button.click()
        qtbot.waitUntil(lambda: not screen.running, timeout=120_000)
        link = next(p for p in screen.result.written if "link" in p.name.lower())  # file names stay English
        with link.open(encoding="utf-8-sig") as handle:
            header = next(csv.reader(handle))
        assert "服务商" in header and "晚高峰丢包率（比例 0-1）" in header, header
    finally:
        measured.set_language("en")


def test_in_chinese_the_export_says_what_it_wrote_in_chinese(measured, qtbot, tmp_path: Path) -> None:
    """The workbook is written in the window's language, and the screen names its sheets as the workbook
    shows them, in Chinese sentences."""
    measured.set_language("zh_CN")
    screen = measured.go_to("export")
    qtbot.waitUntil(lambda: screen.title.text() == "导出")
    out = tmp_path / "zh.xlsx"
    screen.out.setText(str(out))
    screen.with_ranking.setChecked(False)
    screen.export_button.click()
    qtbot.waitUntil(lambda: not screen.running, timeout=120_000)
    assert screen.result is not None, screen.status.text()
    book = openpyxl.load_workbook(out, read_only=True)
    status = screen.status.text()
    assert f"工作表：{'、'.join(book.sheetnames)}。" in status, status
    assert "线路质量" in book.sheetnames and "Link quality" not in status
    assert ". " not in status and f"{REGIONS} 个已测区域。" in status


def test_the_report_section_writes_an_evaluations_report(window, qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """The Export screen's report section lists the store's evaluations and writes the report `linkvet report`
    writes (HTML here; the PDF path is the CLI's tests')."""
    from tests.report.lab_store import make_evaluation

    make_evaluation(window.context.settings.db_path, days=1, every_min=60)
    window.context.store_events.changed.emit()
    screen = window.go_to("export")
    panel = screen.report
    assert panel.evaluation.currentText() == "q1" and panel.write_button.isEnabled()
    panel.file_format.setCurrentIndex(panel.file_format.findData("html"))
    out = tmp_path / "report.html"
    panel.out.setText(str(out))
    panel.write_button.click()
    qtbot.waitUntil(lambda: not panel.running, timeout=120_000)
    assert panel.written is not None, panel.status.text()
    assert out.is_file() and "lambda/gpu_8x_h100_sxm5" in out.read_text(encoding="utf-8")
    assert panel.open_button.isEnabled() and str(out) in panel.status.text()
