"""`linkvet export`, `linkvet score` and `linkvet vantages` with `--db postgresql://…` give what they give on
SQLite: the same rounds (three offices, tests/analysis/test_vantages.py) written to a SQLite file and to a real
PostgreSQL server, every sheet and the ranking compared."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from subprocess import CompletedProcess

import openpyxl
import pandas as pd

from probes.store import Store
from tests.analysis.test_vantages import write_offices
from tests.export.catalog_fixtures import write_catalogs, write_needs

Run = Callable[..., CompletedProcess[str]]


def _both(tmp_path: Path, url: str) -> dict[str, str]:
    db = tmp_path / "offices.sqlite3"
    for location in (str(db), url):
        with Store(location) as store:
            write_offices(store)
    return {"sqlite": str(db), "postgres": url}


def test_export_score_and_vantages_are_the_same_on_postgres(
    run_linkvet: Run, tmp_path: Path, postgres_url: str
) -> None:
    stores = _both(tmp_path, postgres_url)
    catalogs = str(write_catalogs(tmp_path / "catalogs"))
    needs = str(write_needs(tmp_path, vantage="beijing"))
    books = {}
    for name, location in stores.items():
        out = tmp_path / f"{name}.xlsx"
        done = run_linkvet(
            "export", "--db", location, "--needs", needs, "--catalogs", catalogs, "--out", str(out)
        )
        assert done.returncode == 0, done.stderr
        books[name] = out
    names = openpyxl.load_workbook(books["sqlite"]).sheetnames
    assert names == openpyxl.load_workbook(books["postgres"]).sheetnames and "Vantage points" in names
    for sheet in names:
        if sheet == "Method":  # names the store and the time of the export
            continue
        pd.testing.assert_frame_equal(
            pd.read_excel(books["sqlite"], sheet_name=sheet),
            pd.read_excel(books["postgres"], sheet_name=sheet),
        )
    method = pd.read_excel(books["postgres"], sheet_name="Method").astype(str).to_string()
    assert "postgresql://" in method
    scores = {
        name: json.loads(
            run_linkvet("score", "--needs", needs, "--catalogs", catalogs, "--db", location, "--json").stdout
        )
        for name, location in stores.items()
    }
    assert scores["sqlite"] == scores["postgres"]
    vantages = {
        name: run_linkvet("vantages", "--db", location, "--json").stdout for name, location in stores.items()
    }
    assert vantages["sqlite"] == vantages["postgres"] and '"worst_peak": "beijing"' in vantages["postgres"]
