"""Money: the hourly cost of the planned cluster (whole nodes rented) and the price per BF16 TFLOP.

Both are scored on a fixed scale, never against the other offerings loaded, so an offering's score is the same
on every printout whatever else is ranked beside it. Each is compared with a published reference price
(the checklist's `params`, in US dollars, converted with the needs profile's exchange rate when its budget is
in another currency): at or below the reference a price scores 1, twice it 0.5 (reference / value, at most 1).

- `price`: the planned cluster's hourly cost against what the same job costs on the reference cluster: the
  GPUs the sizing plans for this needs profile on `reference_gpu_memory_gb` GPUs, `reference_gpus_per_node`
  to a node (an H100/H200-class node), at `reference_usd_per_gpu_hour` each. A job that needs more GPUs on an
  offering (smaller GPU memory) or rents whole nodes it does not fill costs more than the reference.
- `price_per_tflop`: the price per GPU-hour per dense BF16 TFLOPS against `reference_usd_per_1000_tflop_hours`.

Prices are compared in the needs profile's budget currency only (`catalogs.prices.in_budget_currency`); a
price that cannot be compared is unknown, and says why."""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

from catalogs.i18n import _
from catalogs.scoring.candidates import CandidateFacts
from catalogs.scoring.judgement import Result
from catalogs.scoring.judgement import fmt as _fmt

REFERENCE_CURRENCY = "USD"  # the checklist's reference prices are in US dollars (the catalogs' currency)


def reference_score(value: float, reference: float) -> float | None:
    """reference / value, at most 1, for a cost where lower is better; None when either is not a positive
    number (a price of 0 is not a price)."""
    if not value > 0 or not reference > 0:
        return None
    return min(1.0, reference / value)


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


def in_reference_currency(facts: CandidateFacts, usd: float) -> float | None:
    """A reference amount in US dollars, in the needs profile's budget currency (None: no exchange rate)."""
    return facts.needs.budget.in_budget_currency(usd, REFERENCE_CURRENCY)


def _no_rate() -> str:
    return _(
        "not scored: the reference price is in {reference} and the needs profile gives no exchange rate for it "
        "(add {reference} under [budget.exchange_rates])"
    ).format(reference=REFERENCE_CURRENCY)


class ReferenceCluster(NamedTuple):
    """What the job costs per hour on the reference cluster, in the budget currency, and how it is made up."""

    hourly: float
    gpus: int
    per_gpu_hour: float
    memory_gb: float
    per_node: int
    own_plan: bool  # the job does not fit the reference GPUs: the offering's own plan is the reference


def reference_cluster(facts: CandidateFacts, params: Mapping[str, float]) -> ReferenceCluster | None:
    """The reference the planned cluster's hourly cost is scored against (None: no exchange rate for the
    reference currency, or no GPU count to price)."""
    per_gpu_hour = in_reference_currency(facts, params["reference_usd_per_gpu_hour"])
    if per_gpu_hour is None:
        return None
    memory, per_node = params["reference_gpu_memory_gb"], int(params["reference_gpus_per_node"])
    planned = facts.references.planned(memory, per_node)
    own = planned is None
    gpus = facts.planned_gpus if planned is None else planned
    if not gpus:
        return None
    return ReferenceCluster(per_gpu_hour * gpus, gpus, per_gpu_hour, memory, per_node, own)


def _reference_text(reference: ReferenceCluster, currency: str) -> str:
    values = {
        "hourly": f"{reference.hourly:,.2f}",
        "currency": currency,
        "gpus": reference.gpus,
        "memory": _fmt(reference.memory_gb),
        "per_node": reference.per_node,
        "price": reference.per_gpu_hour,
    }
    if reference.own_plan:
        return _(
            "the reference {hourly} {currency}/hour ({gpus} GPUs as planned here at {price:.2f} {currency}/GPU-hour; "
            "the job does not fit {memory} GB reference GPUs)"
        ).format(**values)
    return _(
        "the reference {hourly} {currency}/hour (the job on {gpus} GPUs of {memory} GB, {per_node} to a node, at "
        "{price:.2f} {currency}/GPU-hour)"
    ).format(**values)


def price(facts: CandidateFacts, params: Mapping[str, float], explain: bool) -> Result:
    """The hourly cost of the planned cluster (price per GPU-hour × the GPUs of the whole nodes rented)
    against the same job on the reference cluster."""
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
    reference = reference_cluster(facts, params)
    score = None if reference is None else reference_score(hourly, reference.hourly)
    if not explain:
        return score, "", None
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
    text = text.format(**values)
    if reference is None:
        text = _("{cost}; {why}").format(cost=text, why=_no_rate())
    else:
        text = _("{cost} against {reference}").format(
            cost=text, reference=_reference_text(reference, currency)
        )
    return score, _with_note(text, facts.price_note), facts.price_source


def price_per_tflop(facts: CandidateFacts, params: Mapping[str, float], explain: bool) -> Result:
    """The price per GPU-hour per dense BF16 TFLOPS against the reference price of 1000 TFLOP-hours."""
    if facts.price_gpu_hour is None:
        return None, _("price not stated"), None
    if facts.compare_gpu_hour is None:
        return None, (_not_compared(facts) if explain else ""), facts.price_source
    if facts.tflops is None:
        return None, _("BF16 TFLOPS of this GPU not in the reference"), None
    value = facts.compare_gpu_hour / facts.tflops * 1000  # per 1000 TFLOP-hours
    reference = in_reference_currency(facts, params["reference_usd_per_1000_tflop_hours"])
    score = None if reference is None else reference_score(value, reference)
    if not explain:
        return score, "", None
    currency = facts.needs.budget.currency
    shown = _("{price:.2f} {currency} per 1000 TFLOP-hours ({tflops} BF16 TFLOPS)").format(
        price=value, currency=currency, tflops=_fmt(facts.tflops)
    )
    if reference is None:
        shown = _("{cost}; {why}").format(cost=shown, why=_no_rate())
    else:
        shown = _("{cost} against the reference {reference:.2f}").format(cost=shown, reference=reference)
    return score, shown, facts.gpu_source()
