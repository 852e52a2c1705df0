"""The xlsx opened by LibreOffice headless: it converts to PDF, and the figures it reads are ours."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from desktop.export import Workbook
from tests.export.libreoffice import ALL_SHEETS_CSV, convert


def test_libreoffice_opens_the_workbook_and_prints_it(
    exported: tuple[Workbook, Path, Path], tmp_path: Path
) -> None:
    _workbook, xlsx, _csv = exported
    done = convert(xlsx, "pdf", tmp_path, tmp_path / "profile")
    assert done.returncode == 0, done.stderr
    pdf = tmp_path / "comparison.pdf"
    assert pdf.read_bytes().startswith(b"%PDF")
    assert pdf.stat().st_size > 10_000


def test_libreoffice_reads_our_figures(exported: tuple[Workbook, Path, Path], tmp_path: Path) -> None:
    workbook, xlsx, _csv = exported
    done = convert(xlsx, ALL_SHEETS_CSV, tmp_path, tmp_path / "profile")
    assert done.returncode == 0, done.stderr
    read = pd.read_csv(tmp_path / "comparison-Link quality.csv")
    ours = workbook.sheet("Link quality").rows
    assert list(read["Region"]) == [row["region"] for row in ours]
    for (_, row), mine in zip(read.iterrows(), ours, strict=True):
        assert row["Peak samples"] == mine["peak_samples"]
        assert row["Peak p95 RTT (ms)"] == pytest.approx(mine["peak_rtt_p95_ms"], rel=1e-12)
        # Percent cells come out as LibreOffice shows their value: "6.07142857142857%".
        assert float(row["Peak loss (%)"].rstrip("%")) / 100 == pytest.approx(mine["peak_loss"], rel=1e-12)
        assert row["Verdict"] == mine["verdict"]
    hours = pd.read_csv(tmp_path / "comparison-Hour-of-day.csv")
    assert len(hours) == 48
