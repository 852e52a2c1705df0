"""The price-per-GPU-hour rule (`catalogs.prices`): one rule for scoring, the budget gate, `linkvet catalog
list` and the export, checked on hand-computed cases."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from catalogs.needs import BudgetSpec
from catalogs.prices import (
    HOURS_PER_MONTH,
    cost_per_month,
    in_budget_currency,
    lowest_gpu_hour,
    offering_price,
    per_gpu_hour,
)
from tests.catalogs._builders import catalog, catalog_text, offering, region

PRICED = offering(
    "priced",
    '["r1", "r2"]',
    gpu='"H100 SXM"',
    gpus_per_node="8",
    currency='"USD"',
    prices='[{ region = "r1", node_hour = 20.0 }, { node_month = 11680.0 }, { gpu_hour = 2.5, region = "r2" }]',
)


def test_each_price_form_becomes_a_price_per_gpu_hour() -> None:
    (node_hour, node_month, gpu_hour) = (
        catalog("acme", region("r1") + region("r2") + PRICED).offerings[0].prices
    )
    assert per_gpu_hour(node_hour, 8) == pytest.approx(2.5)  # 20 / 8
    assert per_gpu_hour(node_month, 8) == pytest.approx(11680 / 730 / 8)  # = 2.0
    assert per_gpu_hour(gpu_hour, None) == 2.5  # stated per GPU-hour: GPUs per node not needed
    assert per_gpu_hour(node_hour, None) is None and per_gpu_hour(node_month, None) is None
    assert HOURS_PER_MONTH == 730
    assert cost_per_month(2.0, 32) == pytest.approx(2.0 * 32 * 730)


def test_the_price_of_an_offering_in_a_region_says_how_it_was_derived() -> None:
    item = catalog("acme", region("r1") + region("r2") + PRICED).offerings[0]
    in_r1 = offering_price(item, "r1", 8)  # the region's own price first
    assert in_r1.gpu_hour == pytest.approx(2.5) and in_r1.currency == "USD" and not in_r1.gpus_only
    assert in_r1.note == "derived: 20/node-hour ÷ 8 GPUs"
    elsewhere = offering_price(item, "r3", 8)  # no price for r3: the price for every region
    assert elsewhere.gpu_hour == pytest.approx(2.0)
    assert elsewhere.note == "derived: 11680/month ÷ 730 h ÷ 8 GPUs"
    unknown_nodes = offering_price(item, "r1", None)
    assert unknown_nodes.gpu_hour is None and unknown_nodes.note == "node price, but GPUs per node unknown"
    assert lowest_gpu_hour(item) == pytest.approx(2.0)  # the monthly price is the lowest of the three


def test_prices_compare_in_the_budget_currency_only() -> None:
    budget = BudgetSpec(currency="USD", exchange_rates={"CNY": 0.14})
    assert in_budget_currency(budget, 2.0, "USD") == (2.0, "")
    converted, note = in_budget_currency(budget, 15.0, "CNY")
    assert converted == pytest.approx(2.1)
    assert note == "15.00 CNY at 0.14 USD/CNY, the needs profile's exchange rate"
    assert in_budget_currency(budget, 2.0, "EUR") == (None, "currency EUR, no exchange rate given")
    assert in_budget_currency(budget, 2.0, None)[0] is None
    assert in_budget_currency(budget, None, "USD") == (None, "")


def test_catalog_list_derives_a_monthly_price_per_gpu_hour(
    run_linkvet: Callable[..., Any], tmp_path: Path
) -> None:
    # `linkvet catalog list` used to derive node-hour prices only: a node priced per month showed '?'.
    monthly = offering(
        "monthly",
        '["r1"]',
        gpu='"H100 SXM"',
        gpus_per_node="8",
        currency='"USD"',
        prices="[{ node_month = 11680.0 }]",
    )
    path = tmp_path / "acme.toml"
    path.write_text(catalog_text("acme", region("r1") + monthly), encoding="utf-8")
    result = run_linkvet("catalog", "list", "--catalogs", str(path), "--json")
    assert result.returncode == 0, result.stderr
    (row,) = json.loads(result.stdout)
    assert row["min_gpu_hour"] == pytest.approx(2.0)
