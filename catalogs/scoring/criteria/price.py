"""Money: the hourly cost of the planned cluster (whole nodes rented) and the price per BF16 TFLOP.

Both are relative criteria: the criterion returns a raw value (lower is better) and the ranking scores it
against the best among the candidates (`catalogs.scoring.scaling.relative_scores`). Prices are compared in
the needs profile's budget currency only (`catalogs.prices.in_budget_currency`); a price that cannot be
compared is unknown, and says why."""

from __future__ import annotations

from collections.abc import Mapping

from catalogs.i18n import _
from catalogs.scoring.candidates import CandidateFacts
from catalogs.scoring.judgement import Result
from catalogs.scoring.judgement import fmt as _fmt


def _with_note(text: str, note: str) -> str:
    """`text` with how the price was derived, when it was ("2.50 USD/GPU-hour (derived: …)")."""
    return _("{text} ({note})").format(text=text, note=note) if note else text


def _per_gpu_hour(price: float, currency: str) -> str:
    return _("{price:.2f} {currency}/GPU-hour").format(price=price, currency=currency)


def _not_compared(facts: CandidateFacts) -> str:
    if facts.lower_bound_gpu_hour is not None:
        text = _("price unknown for ranking: {why}").format(why=facts.compare_note)
        return _with_note(text, facts.price_note)
    if facts.price_currency:
        listed = _per_gpu_hour(facts.price_gpu_hour or 0.0, facts.price_currency)
    else:
        listed = _("{price:.2f}/GPU-hour (currency not stated)").format(price=facts.price_gpu_hour or 0.0)
    text = _("price unknown ({why}): {listed}").format(why=facts.compare_note, listed=listed)
    return _with_note(text, facts.price_note)


def price(facts: CandidateFacts, params: Mapping[str, float], explain: bool) -> Result:
    """The hourly cost of the planned cluster: price per GPU-hour × the GPUs of the whole nodes rented."""
    if facts.price_gpu_hour is None:
        return None, (_with_note(_("price not stated"), facts.price_note) if explain else ""), None
    per_gpu_hour = facts.compare_gpu_hour
    if per_gpu_hour is None:
        return None, (_not_compared(facts) if explain else ""), facts.price_source
    currency = facts.needs.budget.currency
    planned = facts.planned_gpus
    if not planned:
        text = _("{price:.2f} {currency}/GPU-hour, GPU count unknown").format(
            price=per_gpu_hour, currency=currency
        )
        return None, text, facts.price_source
    rented = planned  # whole nodes are rented: a 1-GPU job on 2-GPU nodes pays for 2
    if facts.gpus_per_node:
        rented = -(-planned // facts.gpus_per_node) * facts.gpus_per_node
    hourly = per_gpu_hour * rented
    if not explain:
        return hourly, "", None
    per_gpu = _per_gpu_hour(per_gpu_hour, currency)
    if facts.compare_note:
        per_gpu = _with_note(per_gpu, facts.compare_note)
    values = {
        "per_gpu": per_gpu,
        "gpus": rented,
        "planned": planned,
        "hourly": f"{hourly:,.2f}",
        "currency": currency,
    }
    if rented != planned:
        text = _("{per_gpu} × {gpus} GPUs (whole nodes for {planned} planned) = {hourly} {currency}/hour")
    else:
        text = _("{per_gpu} × {gpus} GPUs = {hourly} {currency}/hour")
    return hourly, _with_note(text.format(**values), facts.price_note), facts.price_source


def price_per_tflop(facts: CandidateFacts, params: Mapping[str, float], explain: bool) -> Result:
    if facts.price_gpu_hour is None:
        return None, _("price not stated"), None
    if facts.compare_gpu_hour is None:
        return None, (_not_compared(facts) if explain else ""), facts.price_source
    if facts.tflops is None:
        return None, _("BF16 TFLOPS of this GPU not in the reference"), None
    value = facts.compare_gpu_hour / facts.tflops
    if not explain:
        return value, "", None
    currency = facts.needs.budget.currency
    shown = _("{price:.2f} {currency} per 1000 TFLOP-hours ({tflops} BF16 TFLOPS)").format(
        price=value * 1000, currency=currency, tflops=_fmt(facts.tflops)
    )
    return value, shown, facts.gpu_source()
