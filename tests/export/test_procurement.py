"""The procurement sheets (Ranking, Score breakdown, GPU offerings, Sizing) built on the catalogs' ranking with
the measured line quality, read back and checked against the scoring and sizing they come from."""

from __future__ import annotations

from pathlib import Path

import openpyxl
import pandas as pd
import pytest

from catalogs.checklist import default_checklist
from catalogs.link_quality import LinkSummary
from catalogs.loader import load_catalogs
from catalogs.needs import load_needs
from catalogs.scoring import rank_offerings
from catalogs.sizing import size
from desktop.export import ExportRequest, Workbook, build_workbook, write_xlsx
from probes.analysis import link_summaries
from probes.store import Store
from tests.export.catalog_fixtures import write_catalogs, write_needs
from tests.export.conftest import EXPORTED_AT

SHEETS = ["Ranking", "Score breakdown", "Link quality", "Hour-of-day", "GPU offerings", "Sizing", "Method"]


def test_sheet_order_and_layout(procurement_export: tuple[Workbook, Path, Path, Path]) -> None:
    _workbook, xlsx, folder, _out = procurement_export
    book = openpyxl.load_workbook(xlsx)
    assert book.sheetnames == SHEETS
    assert book["Ranking"].freeze_panes == "C2"
    assert book["Score breakdown"].freeze_panes == "E2"
    assert len(list(folder.iterdir())) == len(SHEETS)


def test_ranking_is_the_catalogs_ranking_with_the_measured_lines(
    procurement_export: tuple[Workbook, Path, Path, Path], export_store: Store
) -> None:
    _workbook, xlsx, _folder, out = procurement_export
    # The same ranking, computed here straight from the analysis's result in its JSON shape.
    summaries = [LinkSummary.from_dict(link.as_dict()) for link in link_summaries(export_store)]
    expected = rank_offerings(
        load_needs(out / "needs.toml"), load_catalogs(out / "catalogs"), summaries, weights={"price": 20}
    )
    sheet = pd.read_excel(xlsx, sheet_name="Ranking")
    assert list(sheet["Rank"]) == [e.rank for e in expected.entries]
    assert sheet["Score"].tolist() == pytest.approx([e.total for e in expected.entries])
    assert list(sheet["Region"]) == [e.region for e in expected.entries]
    rows = sheet.set_index("Region")
    la = rows.loc["los-angeles"]
    entry = next(e for e in expected.entries if e.region == "los-angeles")
    assert la["Line quality score"] == pytest.approx(entry.judgement("line_quality").score)
    assert "peak" in entry.judgement("line_quality").reason  # measured, not "not measured"
    assert la["Price per GPU-hour"] == pytest.approx(2.10)
    assert la["Currency"] == "USD"
    assert la["Planned GPUs"] == entry.planned_gpus
    assert la["Cost per month"] == pytest.approx(2.10 * entry.planned_gpus * 730)
    assert la["Gates"].startswith("pass")
    assert la["Reason"] and "\n" not in la["Reason"]
    # Lambda prices per node-hour: per GPU-hour derived by scoring.
    assert rows.loc["us-west-1", "Price per GPU-hour"] == pytest.approx(23.92 / 8)


def test_score_breakdown_has_every_criterion_and_the_weights(
    procurement_export: tuple[Workbook, Path, Path, Path],
) -> None:
    workbook, xlsx, _folder, _out = procurement_export
    ranking_rows = workbook.sheet("Ranking").rows
    sheet = pd.read_excel(xlsx, sheet_name="Score breakdown")
    price_column = next(c for c in sheet.columns if c.startswith("Price of the planned cluster"))
    total_weight = sum(w for w in _weights(xlsx).values())
    assert price_column.endswith(f"(weight {20 / total_weight:.0%})")
    assert len(sheet) == len(ranking_rows)
    gates = [c for c in sheet.columns if c.startswith("Gate: ")]
    assert len(gates) == 3 and set(sheet[gates[0]]) <= {"pass", "fail", "unknown", "n/a"}
    assert sheet["Score"].tolist() == pytest.approx([r["score"] for r in ranking_rows])


def _weights(xlsx: Path) -> dict[str, float]:
    method = pd.read_excel(xlsx, sheet_name="Method").set_index("Item")["Value"]
    return {k.split(": ", 1)[1]: float(v.split()[0]) for k, v in method.items() if k.startswith("Weight: ")}


def test_method_records_weights_needs_and_catalogs(
    procurement_export: tuple[Workbook, Path, Path, Path],
) -> None:
    _workbook, xlsx, _folder, out = procurement_export
    weights = _weights(xlsx)  # named by the criteria's titles, as every sentence of the workbook names them
    price = default_checklist().get("price").title
    assert weights[price] == 20.0 and len(weights) == len(default_checklist().weighted)
    method = pd.read_excel(xlsx, sheet_name="Method").set_index("Item")
    assert method.loc["Needs profile", "Note"] == str(out / "needs.toml")
    assert method.loc["Scoring method", "Value"] == "weighted sum"
    assert method.loc["Ranking order", "Value"].startswith("the score at worst")
    assert {"Catalog: raksmart", "Catalog: lambda"} <= set(method.index)


def test_gpu_offerings_are_the_catalog_rows(procurement_export: tuple[Workbook, Path, Path, Path]) -> None:
    _workbook, xlsx, _folder, _out = procurement_export
    sheet = pd.read_excel(xlsx, sheet_name="GPU offerings").set_index("Offering")
    assert set(sheet.index) == {"h100-8x", "gpu-8x-h100"}
    raksmart = sheet.loc["h100-8x"]
    assert (raksmart["GPU"], raksmart["GPUs per node"], raksmart["Fabric (Gbit/s)"]) == ("H100 SXM", 8, 3200)
    assert (raksmart["Source"], raksmart["As of"]) == ("test fixture", "2026-11")
    assert sheet.loc["gpu-8x-h100", "Prices"] == "23.92/node-hour"
    assert sheet.loc[
        "gpu-8x-h100", "Lowest price per GPU-hour (USD)" if False else "Lowest price per GPU-hour"
    ] == pytest.approx(2.99)


def test_sizing_shows_the_needs_and_what_sizing_derived(
    procurement_export: tuple[Workbook, Path, Path, Path],
) -> None:
    _workbook, xlsx, _folder, out = procurement_export
    sheet = pd.read_excel(xlsx, sheet_name="Sizing")
    needs_rows = sheet.loc[sheet["Section"] == "Needs profile (needs.toml)"].set_index("Item")["Value"]
    assert float(needs_rows["model.params"]) == 70e9
    assert needs_rows["training.strategy"] == "zero3"
    derived = sheet.loc[sheet["Section"].str.startswith("On H100 SXM")].set_index("Item")["Value"]
    expected = size(load_needs(out / "needs.toml"), 80.0, 8, 989.0)
    assert int(derived["planned GPUs"]) == expected.planned_gpus
    assert int(derived["nodes"]) == expected.nodes
    assert float(derived["weights alone"]) == pytest.approx(expected.weights_gb)
    book = openpyxl.load_workbook(xlsx)["Sizing"]
    formats = {book.cell(r, 2).value: book.cell(r, 3).number_format for r in range(2, book.max_row + 1)}
    assert formats["planned GPUs"] == "#,##0" and formats["weights alone"] in ("#,##0", "#,##0.0")


def test_ranking_without_measurements_says_not_measured(tmp_path: Path) -> None:
    catalogs = load_catalogs(write_catalogs(tmp_path / "catalogs"))
    needs = load_needs(write_needs(tmp_path))
    workbook = build_workbook(None, ExportRequest(needs=needs, catalogs=catalogs), exported_at=EXPORTED_AT)
    assert [s.name for s in workbook.sheets] == [
        "Ranking",
        "Score breakdown",
        "GPU offerings",
        "Sizing",
        "Method",
    ]
    assert all(row["line_quality"] is None for row in workbook.sheet("Ranking").rows)


def test_sizing_sheet_shows_the_exchange_rates_of_the_needs_profile(tmp_path: Path) -> None:
    catalogs = load_catalogs(write_catalogs(tmp_path / "catalogs"))
    needs_path = write_needs(tmp_path)
    needs_path.write_text(
        needs_path.read_text(encoding="utf-8") + "\n[budget.exchange_rates]\nCNY = 0.14\nEUR = 1.08\n",
        encoding="utf-8",
    )
    needs = load_needs(needs_path)
    workbook = build_workbook(None, ExportRequest(needs=needs, catalogs=catalogs), exported_at=EXPORTED_AT)
    write_xlsx(workbook, tmp_path / "comparison.xlsx")
    sheet = pd.read_excel(tmp_path / "comparison.xlsx", sheet_name="Sizing").set_index("Item")["Value"]
    assert sheet["budget.exchange_rates"] == "CNY = 0.14, EUR = 1.08"


def test_ranking_sheet_marks_a_gpus_only_price_as_a_lower_bound(tmp_path: Path) -> None:
    from tests.catalogs._builders import catalog_text, offering, region

    folder = tmp_path / "catalogs"
    folder.mkdir()
    body = region("r1") + offering(
        "gpu-only",
        '["r1"]',
        gpu='"H100 SXM"',
        gpus_per_node="8",
        currency='"USD"',
        prices='[{ gpu_hour = 1.0, covers = "gpus-only" }]',
    )
    body += offering(
        "whole",
        '["r1"]',
        gpu='"H100 SXM"',
        gpus_per_node="8",
        currency='"USD"',
        prices="[{ gpu_hour = 2.0 }]",
    )
    (folder / "acme.toml").write_text(catalog_text("acme", body), encoding="utf-8")
    needs = load_needs(write_needs(tmp_path))
    workbook = build_workbook(
        None, ExportRequest(needs=needs, catalogs=load_catalogs(folder)), exported_at=EXPORTED_AT
    )
    rows = {r["offering"]: r for r in workbook.sheet("Ranking").rows}
    assert rows["gpu-only"]["price_basis"] == "GPUs only (lower bound)"
    assert rows["whole"]["price_basis"] == "whole node"


def test_sizing_sheet_explains_a_gpu_count_below_the_documents_table(tmp_path: Path) -> None:
    catalogs = load_catalogs(write_catalogs(tmp_path / "catalogs"))
    needs_path = tmp_path / "needs.toml"
    needs_path.write_text(
        'format_version = 1\n[model]\nparams = 7e9\n[training]\nmode = "full"\nstrategy = "zero3"\n'
        'offload_optimizer = "cpu"\n',
        encoding="utf-8",
    )
    needs = load_needs(needs_path)
    workbook = build_workbook(
        None, ExportRequest(needs=needs, needs_path=needs_path, catalogs=catalogs), exported_at=EXPORTED_AT
    )
    rows = [r for r in workbook.sheet("Sizing").rows if r["section"].startswith("On H100 SXM")]
    items = {r["item"]: r["value"] for r in rows}
    assert "throughput minimum, not a memory one" in items["against the documents' scale table"]
    assert items["offloaded to host RAM"] > 0


def test_ranking_and_score_breakdown_say_why_line_quality_is_empty(
    export_store_path: Path, tmp_path: Path
) -> None:
    # A needs profile that asks for another vantage point than the store's: line quality is "not measured",
    # and the workbook (not only `linkvet score`) says why.
    catalogs = load_catalogs(write_catalogs(tmp_path / "catalogs"))
    needs_path = write_needs(tmp_path, vantage="shanghai-office")
    request = ExportRequest(
        store_path=export_store_path, needs=load_needs(needs_path), needs_path=needs_path, catalogs=catalogs
    )
    with Store(export_store_path, readonly=True) as store:
        workbook = build_workbook(store, request, exported_at=EXPORTED_AT)
    write_xlsx(workbook, tmp_path / "comparison.xlsx")
    ranking = pd.read_excel(tmp_path / "comparison.xlsx", sheet_name="Ranking").set_index("Region")
    la = ranking.loc["los-angeles"]
    assert pd.isna(la["Line quality score"])
    assert la["Line quality: measured, or why not"] == (
        "not measured (measured only from this machine, not from shanghai-office)"
    )
    breakdown = pd.read_excel(tmp_path / "comparison.xlsx", sheet_name="Score breakdown").set_index("Region")
    why = breakdown.loc["los-angeles", "Unknown or not measured: why"]
    assert (
        "Line quality from the team's office (measured, peak hours): not measured (measured only from this "
        "machine, not from shanghai-office)"
    ) in why
    # any vantage (the bundled examples leave it unset): measured, and the column shows the figures
    anywhere = ExportRequest(
        store_path=export_store_path,
        needs=load_needs(write_needs(tmp_path)),
        catalogs=catalogs,
    )
    with Store(export_store_path, readonly=True) as store:
        rows = build_workbook(store, anywhere, exported_at=EXPORTED_AT).sheet("Ranking").rows
    measured = next(r for r in rows if r["region"] == "los-angeles")
    assert measured["line_quality"] is not None and measured["line_quality_why"].startswith("peak")
