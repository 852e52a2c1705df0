"""Answers and what is known: what the catalog says now for a question (with its provenance), a catalog
value as the workbook shows it, an answer cell turned into a catalog value (what does not convert is passed
on for the catalog's own validation to reject with its message), and the questions in the order their
answers could move the ranking."""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit

from catalogs.facts import Provenance, host_problem, url_problem
from catalogs.i18n import _
from catalogs.loader import ProviderCatalog
from catalogs.overlay import FactKey
from catalogs.questionnaire.questions import (
    Question,
    offering_questions,
    provider_questions,
    region_questions,
)
from catalogs.schema import Offering, Region

# -- what linkvet knows now ----------------------------------------------------------------------------


def _table_for(catalog: ProviderCatalog, question: Question, ident: str | None) -> tuple[Any, str] | None:
    """(the table holding the fact, the field name in it), or None when the table does not exist."""
    if question.section == "provider":
        return catalog.provider, question.path
    if question.section == "service":
        return (catalog.service, question.path) if catalog.service is not None else None
    if question.section == "region":
        region = catalog.region(ident or "")
        return (region, question.path) if region is not None else None
    offering = next((o for o in catalog.offerings if o.id == ident), None)
    if offering is None:
        return None
    if "." not in question.path:
        return offering, question.path
    table_name, field = question.path.split(".", 1)
    if table_name == "price":
        prices = offering.prices_for(None) or offering.prices
        return (prices[0], field) if prices else None
    table = getattr(offering, table_name)
    return (table, field) if table is not None else None


def known_now(
    catalog: ProviderCatalog | None, question: Question, ident: str | None
) -> tuple[Any, Provenance | None]:
    """What the catalog says now for this question (None: unknown), and where that comes from."""
    if catalog is None:
        return None, None
    found = _table_for(catalog, question, ident)
    if found is None:
        return None, None
    table, field = found
    value = getattr(table, field, None)
    if value in (None, (), []):
        return None, None
    parent = None
    if question.section == "offering" and "." in question.path:
        offering = next(o for o in catalog.offerings if o.id == ident)
        parent = offering.provenance(question.path.split(".", 1)[0])
    return value, table.provenance(field, parent)


def shown(value: Any) -> str:
    """A catalog value as the questionnaire shows it (lists comma-separated, yes/no for booleans, an
    endpoint by its address)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, list | tuple):
        return ", ".join(shown(v) for v in value)
    if isinstance(value, Mapping):
        return str(value.get("host") or value.get("url") or "")
    address = getattr(value, "host", None) or getattr(value, "url", None)
    return str(address) if address is not None else str(value)


# -- answers --------------------------------------------------------------------------------------------

_YES = {"yes", "y", "true", "是", "1"}
_NO = {"no", "n", "false", "否", "0"}


def answer_value(question: Question, given: Any) -> Any:
    """The catalog value for an answer cell: a number stays a number, "yes"/"no" a boolean, a list its items
    (split at commas), text stripped. What does not convert is passed on as given, for the catalog's own
    validation to reject with its message (text in a number, a value outside the list)."""
    if isinstance(given, dt.datetime):
        given = given.date()
    if isinstance(given, dt.date):
        given = given.isoformat()
    if isinstance(given, float) and given.is_integer() and question.kind == "integer":
        return int(given)
    if isinstance(given, bool):
        return given if question.kind == "yes-no" else shown(given)
    if isinstance(given, int | float):
        if isinstance(given, float) and not math.isfinite(given):
            return str(given)
        return given if question.kind in ("number", "integer") else shown(given)
    text = str(given).strip()
    if question.kind == "yes-no":
        lowered = text.lower()
        return True if lowered in _YES else False if lowered in _NO else text
    if question.kind in ("number", "integer"):
        try:
            number = float(text.replace(",", "")) if text else text
        except ValueError:
            return text
        if isinstance(number, float) and question.kind == "integer" and number.is_integer():
            return int(number)
        return number
    if question.kind in ("choices", "texts"):
        return [item.strip() for item in text.split(",") if item.strip()]
    if question.kind == "endpoints":
        return [_endpoint(item.strip()) for item in text.split(",") if item.strip()]
    return text


def answer_problem(question: Question, value: Any) -> tuple[str, str] | None:
    """Why the catalog value an answer became (`answer_value`) is not an answer to `question`, with what was
    expected; None when it is one. A value outside the list or range the questionnaire stated is refused here,
    whatever the catalog's own rules would allow (they know no list of currencies or billing periods, and no
    price too high); an endpoint must be an IP address, a host name or an http(s) URL."""
    expected = question.allowed_text()
    if question.kind in ("choice", "yes-no"):
        if question.kind == "yes-no" and not isinstance(value, bool):
            return _("not yes or no"), expected
        if question.kind == "choice" and (not isinstance(value, str) or value not in question.allowed):
            return _("not one of the values asked for"), expected
    elif question.kind == "choices":
        items = value if isinstance(value, list) else [value]
        wrong = [str(item) for item in items if item not in question.allowed]
        if wrong:
            return _("{values}: not among the values asked for").format(
                values=", ".join(wrong)[:200]
            ), expected
    elif question.kind in ("number", "integer"):
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            return _("not a number"), expected
        if question.kind == "integer" and not float(value).is_integer():
            return _("not a whole number"), expected
        low = -math.inf if question.minimum is None else question.minimum
        high = math.inf if question.maximum is None else question.maximum
        if not low <= value <= high:
            return _("{value:g} is outside the range asked for").format(value=value), expected
    elif question.kind == "endpoints":
        for item in value if isinstance(value, list) else []:
            address = item.get("url") or item.get("host") or ""
            problem = url_problem(address) if "url" in item else host_problem(address)
            if problem is not None:
                shown_address = repr(address[:80]) + ("…" if len(address) > 80 else "")
                return _("{address}: {problem}").format(address=shown_address, problem=problem), expected
    return None


# A URL whose last path segment ends in one of these is a page for people, not a file to download.
_PAGE_SUFFIXES = (".html", ".htm", ".shtml", ".php", ".asp", ".aspx", ".jsp", ".cgi")


def _endpoint(text: str) -> dict[str, Any]:
    """A test address as a catalog endpoint: a URL (anything with `scheme:`, checked as a URL) naming a file
    (`…/100MB.test`, `…/large.bin`: its last path segment has an extension, not a web page's) is a test file
    that linkvet downloads; any other URL a looking-glass page; anything else a ping target."""
    if "://" in text or text.lower().startswith(("javascript:", "file:", "data:", "mailto:", "vbscript:")):
        try:
            name = urlsplit(text).path.rsplit("/", 1)[-1].lower()
        except ValueError:  # not a URL at all: the answer's check says why
            name = ""
        stem, dot, suffix = name.rpartition(".")
        is_file = bool(dot and stem and suffix) and not name.endswith(_PAGE_SUFFIXES)
        return {"kind": "http_file" if is_file else "looking_glass", "url": text}
    return {"kind": "ping", "host": text}


def question_for(key: str, questions: Iterable[Question]) -> Question | None:
    """The question a fact key answers (any id), or None."""
    parsed = FactKey.parse(key)
    if parsed is None:
        return None
    path = f"{parsed.table}.{parsed.field}" if parsed.table else parsed.field
    return next((q for q in questions if q.section == parsed.section and q.path == path), None)


def all_questions(catalog: ProviderCatalog | None) -> list[Question]:
    regions = [r.id for r in catalog.regions] if catalog is not None else []
    return [*provider_questions(), *region_questions(), *offering_questions(regions)]


def regions_of(catalog: ProviderCatalog | None) -> list[Region]:
    return list(catalog.regions) if catalog is not None else []


def offerings_of(
    catalog: ProviderCatalog | None, wanted: Sequence[str] = ()
) -> list[tuple[str, Offering | None]]:
    """The offerings a questionnaire asks about: `wanted` ids (a new id asks about an offering the catalog
    does not have yet), else every offering of the provider."""
    known = {o.id: o for o in catalog.offerings} if catalog is not None else {}
    if wanted:
        return [(ident, known.get(ident)) for ident in wanted]
    return list(known.items())


def order_by_swing(questions: Sequence[Question], swing: Mapping[str, float]) -> list[Question]:
    """`questions` in the order their answers could move the ranking most (the largest swing of the
    criteria they feed), the rest after in their own order."""

    def weight(question: Question) -> float:
        return max((swing.get(c, 0.0) for c in question.criteria), default=0.0)

    indexed = list(enumerate(questions))
    indexed.sort(key=lambda pair: (-weight(pair[1]), pair[0]))
    return [question for _position, question in indexed]
