"""The synthetic week exported once per session (xlsx and csv), and with the test catalogs and needs profile
(`procurement_export`, the procurement sheets too)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from catalogs.loader import load_catalogs
from catalogs.needs import load_needs
from desktop.export import ExportRequest, Workbook, build_workbook, write_csv, write_xlsx
from probes.store import Store
from tests.analysis.week import write_week
from tests.export.catalog_fixtures import write_catalogs, write_needs

EXPORTED_AT = datetime(2026, 11, 30, 9, 15, tzinfo=UTC)


@pytest.fixture(scope="session")
def export_store_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_week(tmp_path_factory.mktemp("export") / "week.sqlite3")


@pytest.fixture
def export_store(export_store_path: Path) -> Iterator[Store]:
    with Store(export_store_path, readonly=True) as store:
        yield store


@pytest.fixture(scope="session")
def exported(
    export_store_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Workbook, Path, Path]:
    """(workbook, xlsx path, csv folder) of the week."""
    out = tmp_path_factory.mktemp("exported")
    with Store(export_store_path, readonly=True) as store:
        workbook = build_workbook(store, ExportRequest(store_path=export_store_path), exported_at=EXPORTED_AT)
    write_xlsx(workbook, out / "comparison.xlsx")
    write_csv(workbook, out / "csv")
    return workbook, out / "comparison.xlsx", out / "csv"


@pytest.fixture(scope="session")
def procurement_export(
    export_store_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Workbook, Path, Path, Path]:
    out = tmp_path_factory.mktemp("procurement")
    catalogs = load_catalogs(write_catalogs(out / "catalogs"))
    needs_path = write_needs(out)
    request = ExportRequest(
        store_path=export_store_path,
        needs=load_needs(needs_path),
        needs_path=needs_path,
        catalogs=catalogs,
        weights={"price": 20},
    )
    with Store(export_store_path, readonly=True) as store:
        workbook = build_workbook(store, request, exported_at=EXPORTED_AT)
    write_xlsx(workbook, out / "comparison.xlsx")
    write_csv(workbook, out / "csv")
    return workbook, out / "comparison.xlsx", out / "csv", out
