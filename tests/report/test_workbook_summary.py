"""`linkvet export --eval`: the workbook opens with the decision. Its first sheet is the Summary (摘要) with the
report's recommendation, the candidates' table and two native charts (XlsxWriter charts whose data are the
sheet's cells, not pictures), which LibreOffice keeps when it converts the workbook; only the evaluation's
candidates are ranked (`--market` adds the bundled offerings beside them)."""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

import openpyxl
import pytest

from tests.export.libreoffice import convert


def _ok(done) -> str:  # type: ignore[no-untyped-def]
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    return str(done.stdout)


@pytest.mark.parametrize(
    ("lang", "title", "recommended"), [("en", "Summary", "Recommended: "), ("zh_CN", "摘要", "推荐：")]
)
def test_the_summary_sheet_opens_the_workbook_with_native_charts(
    run_linkvet, measured_db: Path, tmp_path: Path, lang: str, title: str, recommended: str
) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "q1.xlsx"
    _ok(
        run_linkvet(
            "export", "--eval", "q1", "--out", str(out), "--db", str(measured_db), "--lang", lang, timeout=300
        )
    )
    book = openpyxl.load_workbook(out)
    sheet = book.worksheets[0]
    assert sheet.title == title
    lead = [row[0] for row in sheet.iter_rows(min_row=1, max_row=8, max_col=1, values_only=True)]
    assert any(str(line).startswith(recommended + "lambda/gpu_8x_h100_sxm5") for line in lead if line)
    labels = [row[1] for row in sheet.iter_rows(values_only=True) if row[1] and "/" in str(row[1])]
    assert sorted(labels) == sorted(
        [
            "lambda/asia-northeast-1/gpu_8x_h100_sxm5",
            "gcp/asia-northeast1/h100-x8",
            "aws/ap-northeast-1/p5.48xlarge",
        ]
    )
    ranking = book.worksheets[1]
    assert ranking.max_row == 1 + 3  # the candidates alone: three offerings ranked
    with zipfile.ZipFile(out) as archive:
        charts = [n for n in archive.namelist() if re.match(r"xl/charts/chart\d+\.xml$", n)]
        kinds = " ".join(archive.read(n).decode() for n in charts)
    assert "<c:barChart>" in kinds and "<c:errBars>" in kinds  # the score with its bounds
    assert kinds.count("<c:ser>") >= 1 + 4  # and p95 off-peak and at peak from two offices
    # LibreOffice opens it and keeps the charts (their data are the sheet's cells).
    converted = tmp_path / "converted"
    done = convert(out, "xlsx:Calc MS Excel 2007 XML", converted, tmp_path / "lo-profile")
    assert done.returncode == 0, done.stderr
    with zipfile.ZipFile(converted / "q1.xlsx") as archive:
        kept = [n for n in archive.namelist() if re.match(r"xl/charts/chart\d+\.xml$", n)]
        again = " ".join(archive.read(n).decode() for n in kept)
    assert len(kept) >= 2 and "errBars" in again


def test_market_ranks_the_bundled_offerings_beside_the_candidates(
    run_linkvet, measured_db: Path, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "market.xlsx"
    _ok(
        run_linkvet(
            "export", "--eval", "q1", "--market", "--out", str(out), "--db", str(measured_db), timeout=300
        )
    )
    book = openpyxl.load_workbook(out, read_only=True)
    assert book.sheetnames[0] == "Summary"
    assert book["Ranking"].max_row > 100
    refused = run_linkvet("export", "--market", "--out", str(tmp_path / "x.xlsx"), "--db", str(measured_db))
    assert refused.returncode == 2 and "--market goes with --eval" in refused.stderr
