"""The workbook in Chinese (`linkvet export --lang zh_CN`, or a Chinese locale): sheet names, headers,
reasons and the Method sheet in Chinese; the same figures, filters, frozen panes and number formats as the
English one; columns sized by display width; LibreOffice opens it."""

from __future__ import annotations

import math
import re
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import openpyxl
import pandas as pd
import pytest

from catalogs.loader import load_catalogs
from catalogs.needs import load_needs
from desktop.export import Column, ExportRequest, Sheet, Workbook, build_workbook, write_csv, write_xlsx
from desktop.export.model import FORMATS
from desktop.export.xlsx import display_width
from desktop.i18n import language
from probes.store import Store
from tests.conftest import cli_env
from tests.export.catalog_fixtures import write_catalogs, write_needs
from tests.export.conftest import EXPORTED_AT
from tests.export.libreoffice import ALL_SHEETS_CSV, convert
from tests.export.test_layout import column_widths
from tests.raw_ids import raw_ids

CJK = re.compile(r"[\u4e00-\u9fff]")
SHEETS_ZH = ["排名", "得分明细", "线路质量", "分时统计", "GPU 产品", "容量估算", "方法说明"]
Exported = tuple[Workbook, Path]


def _export(store_path: Path, out: Path, lang: str) -> Exported:
    catalogs = load_catalogs(write_catalogs(out / "catalogs"))
    needs_path = write_needs(out)
    request = ExportRequest(
        store_path=store_path, needs=load_needs(needs_path), needs_path=needs_path, catalogs=catalogs
    )
    with language(lang), Store(store_path, readonly=True) as store:
        workbook = build_workbook(store, request, exported_at=EXPORTED_AT)
        write_xlsx(workbook, out / "comparison.xlsx")
        write_csv(workbook, out / "csv")
    return workbook, out / "comparison.xlsx"


@pytest.fixture(scope="module")
def both(export_store_path: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Exported, Exported]:
    """The same export in English and in Chinese."""
    english = _export(export_store_path, tmp_path_factory.mktemp("english"), "en")
    chinese = _export(export_store_path, tmp_path_factory.mktemp("chinese"), "zh_CN")
    return english, chinese


def _figures(row: Mapping[str, Any]) -> dict[str, Any]:
    """A row's numbers (and empty cells), the part that must not depend on the language."""
    return {
        key: (None if isinstance(value, float) and math.isnan(value) else value)
        for key, value in row.items()
        if key != FORMATS and (value is None or isinstance(value, int | float))
    }


def test_sheets_are_named_in_chinese_with_the_same_figures(both: tuple[Exported, Exported]) -> None:
    (english, _english_xlsx), (chinese, chinese_xlsx) = both
    assert openpyxl.load_workbook(chinese_xlsx).sheetnames == SHEETS_ZH
    assert [s.name for s in chinese.sheets] == [
        s.name for s in english.sheets
    ]  # the same sheets, keyed alike
    for mine, theirs in zip(english.sheets, chinese.sheets, strict=True):
        assert [c.key for c in mine.columns] == [c.key for c in theirs.columns], mine.name
        assert [c.kind for c in mine.columns] == [c.kind for c in theirs.columns], mine.name
        if mine.name == "Method":
            continue  # its numbers are words beside the items (versions, weights), compared below
        assert len(mine.rows) == len(theirs.rows), mine.name
        for a, b in zip(mine.rows, theirs.rows, strict=True):
            assert _figures(a) == _figures(b), mine.name


def test_filters_frozen_headers_and_formats_are_unchanged(both: tuple[Exported, Exported]) -> None:
    (_english, english_xlsx), (_chinese, chinese_xlsx) = both
    books = [openpyxl.load_workbook(path) for path in (english_xlsx, chinese_xlsx)]
    for english, chinese in zip(*(book.worksheets for book in books), strict=True):
        assert chinese.freeze_panes == english.freeze_panes, english.title
        assert chinese.auto_filter.ref == english.auto_filter.ref, english.title
        assert chinese.max_row == english.max_row and chinese.max_column == english.max_column
        # the same formats; only the unit they append is in the language (" ms" is " 毫秒")
        formats = [
            [c.number_format.replace('" ms"', '" 毫秒"') for c in row]
            for row in english.iter_rows(min_row=2, max_row=3)
        ]
        assert [[c.number_format for c in row] for row in chinese.iter_rows(min_row=2, max_row=3)] == formats
        colour = [str(r.sqref) for r in english.conditional_formatting]
        assert [str(r.sqref) for r in chinese.conditional_formatting] == colour, english.title


def test_headers_reasons_and_method_are_chinese(both: tuple[Exported, Exported]) -> None:
    _english, (_chinese, chinese_xlsx) = both
    book = openpyxl.load_workbook(chinese_xlsx)
    quality = [c.value for c in book["线路质量"][1]]
    p95 = book["线路质量"].cell(2, quality.index("晚高峰 p95 RTT（毫秒）") + 1)
    assert p95.number_format == '0.000" 毫秒"'
    assert "晚高峰丢包率（%）" in quality and "晚高峰抖动（毫秒）" in quality and "判定" in quality
    verdicts = [book["线路质量"].cell(r, quality.index("判定") + 1).value for r in (2, 3)]
    assert "晚高峰 p95 +86 ms，丢包率 0.2% → 6.1%，吞吐 80 → 30 Mbit/s" in verdicts, verdicts
    ranking = book["排名"]
    headers = [c.value for c in ranking[1]]
    reasons = [ranking.cell(r, headers.index("理由") + 1).value for r in range(2, ranking.max_row + 1)]
    assert reasons and all(CJK.search(text) for text in reasons), reasons
    gates = {ranking.cell(r, headers.index("门槛项") + 1).value for r in range(2, ranking.max_row + 1)}
    assert gates <= {"通过"} | {g for g in gates if g.startswith(("未通过：", "通过（未检查："))}
    method = {row[0].value: row[1].value for row in book["方法说明"].iter_rows(min_row=2)}
    assert "定义：抖动" in method and "工作表：线路质量" in method and method["工作簿格式版本"] == "1"
    english = [label for label in method if not CJK.search(str(label))]
    assert not english, english  # every row's label reads in Chinese
    assert "探测后端" in method  # who timed the RTTs
    assert "未记录：" in method["探测后端"] and "unrecorded" not in method["探测后端"], method["探测后端"]
    breakdown = [c.value for c in book["得分明细"][1]]
    assert "门槛：显存满足任务需求" in breakdown  # the checklist's titles too


def test_columns_are_as_wide_as_their_chinese_text(both: tuple[Exported, Exported], tmp_path: Path) -> None:
    _english, (_chinese, chinese_xlsx) = both
    for ws in openpyxl.load_workbook(chinese_xlsx):
        widths = column_widths(ws)
        for cell in ws[1]:
            # a line breaks between words and after any Chinese character: the widest such piece must fit
            pieces = re.findall(r"[A-Za-z0-9%/().:,+×\-]+|\S", cell.value)
            widest = max(display_width(piece) for piece in pieces)
            assert widths[cell.column] >= widest + 1, (ws.title, cell.value, widths[cell.column])
            assert cell.alignment.wrap_text
            lines = math.ceil(display_width(cell.value) / (widths[cell.column] - 1))
            assert (ws.row_dimensions[1].height or 15.0) >= 15.0 * min(lines, 6), (ws.title, cell.value)
    # a text column fitted to Chinese cells: two columns per character, not one
    names = ["洛杉矶-CN2线路", "LA-CN2"]
    sheet = Sheet("Targets", [Column("name", "目标")], [{"name": n} for n in names], title="目标")
    write_xlsx(Workbook([sheet]), tmp_path / "targets.xlsx")
    width = openpyxl.load_workbook(tmp_path / "targets.xlsx")["目标"].column_dimensions["A"].width
    assert display_width("洛杉矶-CN2线路") == 14
    assert width >= 14 + 2


def test_libreoffice_opens_the_chinese_workbook(both: tuple[Exported, Exported], tmp_path: Path) -> None:
    _english, (chinese, chinese_xlsx) = both
    done = convert(chinese_xlsx, "pdf", tmp_path, tmp_path / "profile")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "comparison.pdf").read_bytes().startswith(b"%PDF")
    done = convert(chinese_xlsx, ALL_SHEETS_CSV, tmp_path, tmp_path / "profile")
    assert done.returncode == 0, done.stderr
    for name in SHEETS_ZH:
        assert (tmp_path / f"comparison-{name}.csv").exists(), sorted(p.name for p in tmp_path.iterdir())
    read = pd.read_csv(tmp_path / "comparison-线路质量.csv")
    ours = chinese.sheet("Link quality").rows
    assert list(read["区域"]) == [row["region"] for row in ours]
    for (_, row), mine in zip(read.iterrows(), ours, strict=True):
        assert row["晚高峰样本数"] == mine["peak_samples"]
        assert row["晚高峰 p95 RTT（毫秒）"] == pytest.approx(mine["peak_rtt_p95_ms"], rel=1e-12)
        assert float(row["晚高峰丢包率（%）"].rstrip("%")) / 100 == pytest.approx(
            mine["peak_loss"], rel=1e-12
        )


def _linkvet(tmp_path: Path, lang: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in cli_env(tmp_path).items() if k not in ("LANGUAGE", "LC_ALL", "LC_MESSAGES")}
    env["LANG"] = lang
    return subprocess.run(
        [sys.executable, "-m", "desktop.cli", *args],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_linkvet_export_writes_chinese_with_lang_or_a_chinese_locale(
    export_store_path: Path, tmp_path: Path
) -> None:
    catalogs = write_catalogs(tmp_path / "catalogs")
    needs = write_needs(tmp_path)
    common = ("export", "--db", str(export_store_path), "--needs", str(needs), "--catalogs", str(catalogs))
    chosen = _linkvet(tmp_path, "C.UTF-8", *common, "--lang", "zh_CN", "--out", str(tmp_path / "a.xlsx"))
    assert chosen.returncode == 0, chosen.stderr
    assert openpyxl.load_workbook(tmp_path / "a.xlsx").sheetnames == SHEETS_ZH
    by_locale = _linkvet(tmp_path, "zh_CN.UTF-8", *common, "--out", str(tmp_path / "b.xlsx"))
    assert by_locale.returncode == 0, by_locale.stderr
    assert openpyxl.load_workbook(tmp_path / "b.xlsx").sheetnames == SHEETS_ZH
    english = _linkvet(tmp_path, "zh_CN.UTF-8", *common, "--lang", "en", "--out", str(tmp_path / "c.xlsx"))
    assert english.returncode == 0, english.stderr
    assert openpyxl.load_workbook(tmp_path / "c.xlsx").sheetnames[0] == "Ranking"
    # csv: Chinese headers, the file names the same in every language
    folder = tmp_path / "csv"
    done = _linkvet(tmp_path, "C.UTF-8", *common, "--lang", "zh_CN", "--format", "csv", "--out", str(folder))
    assert done.returncode == 0, done.stderr
    quality = next(folder.glob("*-link-quality.csv"))
    header = quality.read_text(encoding="utf-8-sig").splitlines()[0]
    assert "晚高峰丢包率（比例 0-1）" in header and "服务商" in header


def _sheet_words(workbook: Workbook) -> list[tuple[str, str]]:
    """(sheet, text) of every header, header note, title and text cell of every sheet."""
    found = []
    for sheet in workbook.sheets:
        found.append((sheet.name, str(sheet.title or "")))
        for column in sheet.columns:
            found.append((sheet.name, f"{column.header} {column.note or ''}"))
        for row in sheet.rows:
            found += [(sheet.name, value) for value in row.values() if isinstance(value, str)]
    return found


def test_no_sentence_of_the_workbook_names_a_raw_criterion_or_method_id(
    both: tuple[Exported, Exported],
) -> None:
    """The Ranking, Score breakdown and Method sheets name criteria by their titles and the method and order
    in words (`linkvet score --json` keeps the ids), in both languages."""
    (english, _), (chinese, _) = both
    for workbook, is_chinese in ((english, False), (chinese, True)):
        hits = [(sheet, text) for sheet, text in _sheet_words(workbook) if raw_ids(text, chinese=is_chinese)]
        assert hits == []
    words = "\n".join(text for _, text in _sheet_words(english))
    assert "Weight: NVLink/NVSwitch between the GPUs of a node" in words
    assert "weighted sum" in words and "(orders the ranking)" in words
