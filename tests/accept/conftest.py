"""Fixture paths for the acceptance tests (see fixtures/SOURCES.md for where each file comes from)."""

from __future__ import annotations

from pathlib import Path

FIXTURES = Path(__file__).resolve().parent / "fixtures"
REAL = FIXTURES / "real"
EDGE = FIXTURES / "edge"
SCENARIOS = FIXTURES / "scenarios"
CATALOGS = FIXTURES / "catalogs"
