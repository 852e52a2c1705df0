"""Prices per GPU-hour: the one place the rule is written.

A catalog states a price the way its source does (`catalogs.schema.Price`): per GPU-hour, per node-hour or
per node-month. Everything that shows, compares or totals a price per GPU-hour (scoring and its budget gate,
`linkvet catalog list`, the desktop's catalog screen, the export's sheets) derives it here:

    per GPU-hour = gpu_hour, else node_hour ÷ GPUs per node, else node_month ÷ 730 h ÷ GPUs per node

A month is `HOURS_PER_MONTH` (730) hours, both ways (`cost_per_month`). A GPUs-only price (`covers =
"gpus-only"`: the host VM is billed on top) is a lower bound of the node's price, and says so. Prices are
compared only in the needs profile's budget currency (`in_budget_currency`): another currency is converted
with the profile's own exchange rate, or not compared at all.
"""

from __future__ import annotations

from typing import NamedTuple

from catalogs.facts import Provenance
from catalogs.i18n import _, clauses
from catalogs.needs import BudgetSpec
from catalogs.schema import Offering, Price

HOURS_PER_MONTH = 730


def _derive(price: Price, gpus_per_node: int | None) -> tuple[float | None, str]:
    """(price per GPU-hour, how it was derived: "" when stated as such); None when it cannot be derived."""
    if price.gpu_hour is not None:
        return price.gpu_hour, ""
    if price.node_hour is not None and gpus_per_node:
        note = _("derived: {price:g}/node-hour ÷ {gpus} GPUs").format(
            price=price.node_hour, gpus=gpus_per_node
        )
        return price.node_hour / gpus_per_node, note
    if price.node_month is not None and gpus_per_node:
        note = _("derived: {price:g}/month ÷ {hours} h ÷ {gpus} GPUs").format(
            price=price.node_month, hours=HOURS_PER_MONTH, gpus=gpus_per_node
        )
        return price.node_month / HOURS_PER_MONTH / gpus_per_node, note
    return None, ""


def per_gpu_hour(price: Price, gpus_per_node: int | None) -> float | None:
    """The price per GPU-hour, as listed (in the price's currency); None for a node price when the GPUs per
    node are not stated."""
    return _derive(price, gpus_per_node)[0]


def lowest_gpu_hour(offering: Offering) -> float | None:
    """The lowest price per GPU-hour among all the offering's prices (any region), None when none is known."""
    per_node = offering.gpus_per_node
    return min((v for p in offering.prices if (v := per_gpu_hour(p, per_node)) is not None), default=None)


def cost_per_month(gpu_hour: float, gpus: int) -> float:
    """What `gpus` GPUs cost in a month of `HOURS_PER_MONTH` hours at `gpu_hour` per GPU-hour."""
    return gpu_hour * gpus * HOURS_PER_MONTH


class OfferingPrice(NamedTuple):
    """The price per GPU-hour that applies to an offering in one region, with how it was found.
    (A NamedTuple: scoring asks for one per candidate.)"""

    gpu_hour: float | None  # as listed, in `currency`; None: not stated, or not derivable (`note` says why)
    currency: str | None
    note: str  # how it was derived (whole clauses joined by "; "), "" when listed per GPU-hour
    source: Provenance | None
    gpus_only: bool  # the price covers the GPUs only: the host (VM, CPU, RAM) is billed on top


def offering_price(offering: Offering, region_id: str | None, gpus_per_node: int | None) -> OfferingPrice:
    """The offering's price per GPU-hour in `region_id` (None: the catalog does not say where it is offered,
    so the lowest listed price, and the note says so); derived from a node price when needed."""
    prices = offering.prices_for(region_id)
    if not prices and region_id is None and offering.prices:
        prices = tuple(sorted(offering.prices, key=lambda q: q.node_hour or q.gpu_hour or 0.0))[:1]
    if not prices:
        return OfferingPrice(None, None, "", None, False)
    price = prices[0]
    currency = price.currency or offering.currency
    value, note = _derive(price, gpus_per_node)
    if value is None:
        return OfferingPrice(None, currency, _("node price, but GPUs per node unknown"), None, False)
    if region_id is None:
        note = clauses(n for n in (note, _("lowest listed price, region not stated")) if n)
    return OfferingPrice(value, currency, note, offering.fact("prices"), price.covers == "gpus-only")


def in_budget_currency(
    budget: BudgetSpec, gpu_hour: float | None, currency: str | None
) -> tuple[float | None, str]:
    """The price per GPU-hour in the budget's currency and the conversion used ("" when none was needed);
    or None and why it is not compared (a clause: "currency CNY, no exchange rate given")."""
    if gpu_hour is None:
        return None, ""
    if currency is None:
        return None, _("currency not stated, so not compared with {currency} prices").format(
            currency=budget.currency
        )
    converted = budget.in_budget_currency(gpu_hour, currency)
    if converted is None:
        return None, _("currency {currency}, no exchange rate given").format(currency=currency)
    if currency == budget.currency:
        return converted, ""
    rate = budget.exchange_rates[currency]
    return converted, _(
        "{price:.2f} {currency} at {rate:g} {budget}/{currency}, the needs profile's exchange rate"
    ).format(price=gpu_hour, currency=currency, rate=rate, budget=budget.currency)
