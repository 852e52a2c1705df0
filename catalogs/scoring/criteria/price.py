"""Money: the hourly cost of the planned cluster (whole nodes rented) and the price per BF16 TFLOP.

Both are relative criteria: the criterion returns a raw value (lower is better) and the ranking scores it
against the best among the candidates (`catalogs.scoring.scaling.relative_scores`). Prices are compared in
the needs profile's budget currency only (`catalogs.prices.in_budget_currency`); a price that cannot be
compared is unknown, and says why."""

from __future__ import annotations

from collections.abc import Mapping

from catalogs.scoring.candidates import CandidateFacts
from catalogs.scoring.judgement import Result
from catalogs.scoring.judgement import fmt as _fmt


def _not_compared(facts: CandidateFacts) -> str:
    if facts.lower_bound_gpu_hour is not None:
        return f"price {facts.compare_note}{facts.price_note}"
    listed = f"{facts.price_gpu_hour:.2f} {facts.price_currency or '(currency not stated)'}/GPU-hour"
    return f"price {facts.compare_note}: {listed}{facts.price_note}"


def price(facts: CandidateFacts, params: Mapping[str, float], explain: bool) -> Result:
    """The hourly cost of the planned cluster: price per GPU-hour × the GPUs of the whole nodes rented."""
    if facts.price_gpu_hour is None:
        return None, (f"price not stated{facts.price_note}" if explain else ""), None
    per_gpu_hour = facts.compare_gpu_hour
    if per_gpu_hour is None:
        return None, (_not_compared(facts) if explain else ""), facts.price_source
    currency = facts.needs.budget.currency
    planned = facts.planned_gpus
    if not planned:
        return None, f"{per_gpu_hour:.2f} {currency}/GPU-hour, GPU count unknown", facts.price_source
    rented = planned  # whole nodes are rented: a 1-GPU job on 2-GPU nodes pays for 2
    if facts.gpus_per_node:
        rented = -(-planned // facts.gpus_per_node) * facts.gpus_per_node
    hourly = per_gpu_hour * rented
    if not explain:
        return hourly, "", None
    per_gpu = f"{per_gpu_hour:.2f} {currency}/GPU-hour"
    if facts.compare_note:
        per_gpu += f" ({facts.compare_note})"
    whole = f" (whole nodes for {planned} planned)" if rented != planned else ""
    text = f"{per_gpu} × {rented} GPUs{whole} = {hourly:,.2f} {currency}/hour{facts.price_note}"
    return hourly, text, facts.price_source


def price_per_tflop(facts: CandidateFacts, params: Mapping[str, float], explain: bool) -> Result:
    if facts.price_gpu_hour is None:
        return None, "price not stated", None
    if facts.compare_gpu_hour is None:
        return None, (_not_compared(facts) if explain else ""), facts.price_source
    if facts.tflops is None:
        return None, "BF16 TFLOPS of this GPU not in the reference", None
    value = facts.compare_gpu_hour / facts.tflops
    if not explain:
        return value, "", None
    currency = facts.needs.budget.currency
    shown = f"{value * 1000:.2f} {currency} per 1000 TFLOP-hours ({_fmt(facts.tflops)} BF16 TFLOPS)"
    return value, shown, facts.gpu_source()
