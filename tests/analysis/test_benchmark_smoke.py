"""The benchmark scripts still run (at a tiny size; the figures come from running them at full size)."""

from __future__ import annotations

import pytest

from tests.benchmarks import analysis_vs_sql, store_insert_vs_executemany


def test_analysis_benchmark_runs(capsys: pytest.CaptureFixture[str]) -> None:
    assert analysis_vs_sql.main(["--samples", "20000", "--days", "2", "--regions", "4"]) == 0
    out = capsys.readouterr().out
    assert "hour_of_day, Asia/Kolkata (quarter-hour rollups)" in out and "ratio SQLite / hour_of_day" in out


def test_store_insert_benchmark_runs(capsys: pytest.CaptureFixture[str]) -> None:
    assert store_insert_vs_executemany.main(["--samples", "5000", "--targets", "5", "--attempts", "10"]) == 0
    out = capsys.readouterr().out
    assert "bare executemany, by target and time" in out and "by run and position (the store's shape)" in out


def test_store_insert_benchmark_runs_on_postgres(
    capsys: pytest.CaptureFixture[str], postgres_url: str
) -> None:
    args = ["--samples", "2000", "--targets", "5", "--attempts", "100", "--backend", "postgres"]
    assert store_insert_vs_executemany.main([*args, "--url", postgres_url]) == 0
    out = capsys.readouterr().out
    assert "store insert (postgres)" in out and "by run and position (the store's shape)" in out


def test_export_benchmark_runs(capsys: pytest.CaptureFixture[str]) -> None:
    from tests.benchmarks import export_scale

    args = ["--providers", "2", "--offerings", "5", "--regions", "4", "--days", "1", "--attempts", "3"]
    assert export_scale.main(args) == 0
    out = capsys.readouterr().out
    assert "linkvet export --format xlsx" in out and "ratio linkvet / pandas" in out


def test_offices_benchmark_runs(capsys: pytest.CaptureFixture[str], postgres_url: str) -> None:
    from tests.benchmarks import offices_vs_sql

    assert (
        offices_vs_sql.main(["--samples", "3000", "--days", "1", "--repeat", "2", "--url", postgres_url]) == 0
    )
    out = capsys.readouterr().out
    assert "ratio ours: link summaries, peak / off-peak / SQL [postgres]" in out
    assert out.rstrip().endswith("yes")  # the summaries count what SQL counts, on both backends


def test_evaluation_benchmark_runs(capsys: pytest.CaptureFixture[str], postgres_url: str) -> None:
    from tests.benchmarks import evaluation_vs_sql

    assert (
        evaluation_vs_sql.main(["--samples", "3000", "--days", "1", "--repeat", "1", "--url", postgres_url])
        == 0
    )
    out = capsys.readouterr().out
    assert "ratio eval show (evidence table) / SQL [postgres]" in out and "score --eval" in out
    assert out.rstrip().endswith("yes")  # the evidence counts what SQL counts, on both backends
