"""A user's overlay over a provider catalog: facts (a vendor's questionnaire answers, what an acceptance report
verified, what someone typed in the window), each with its provenance and history, merged over the bundled
catalog by key. One overlay file per provider, in the user's catalog folder (`catalogs.user`); the bundled
files are never written.

    format = "linkvet-catalog-overlay"
    format_version = 1
    provider = "raksmart"

    [[facts]]
    key = "offering[high-defence-gpu-server].inter_node.bandwidth_gbit_s"
    value = 3200
    standing = "claimed"                     # claimed | verified | contradicted
    source = "RakSmart's questionnaire answer (Li Wei, sales), raksmart-2026-12.xlsx"
    as_of = "2026-12-03"
    evidence = "spec sheet https://…"        # optional
    [[facts.history]]                        # earlier values, oldest first
    value = 1600
    standing = "claimed"
    source = "…"
    as_of = "2026-11-20"
    replaced_on = "2026-12-03"

    [[checks]]                               # acceptance checks imported (`linkvet accept import`)
    offering = "high-defence-gpu-server"
    region = "san-jose"
    host = "gpu-01"
    created_at = "2026-12-04T10:00:00Z"
    fact = "intra_node.kind"
    scope = "offering"
    verdict = "contradicted"
    claimed = "nvlink"
    measured = "pcie-only"
    evidence = "PCIe only: …"

Keys: `provider.FIELD`, `service.FIELD`, `region[ID].FIELD`, `offering[ID].FIELD`,
`offering[ID].intra_node|inter_node|storage.FIELD`, `offering[ID].price.FIELD` (an overlay price replaces
the offering's listed prices: a vendor's quote is newer). An overlay may create a region, an offering, or a
whole provider (with `provider.name`). The merged catalog is validated as any catalog file is, with the same
rules and messages; a problem names the overlay file, the line of the fact and its key.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import tomli_w
from pydantic import BaseModel, Field, ValidationError

from catalogs import _toml
from catalogs.errors import CatalogFileError, FormatVersionError
from catalogs.facts import AsOf, Standing, Text
from catalogs.i18n import _
from catalogs.loader import ProviderCatalog, check_references
from catalogs.schema import CatalogFile
from probes.files.filemodel import FileModel

OVERLAY_FORMAT = "linkvet-catalog-overlay"
OVERLAY_VERSION = 1
NESTED = ("intra_node", "inter_node", "storage", "price")
_KEY = re.compile(
    r"^(?:(?P<top>provider|service)\.(?P<top_field>[a-z_0-9]+)"
    r"|(?P<section>region|offering)\[(?P<id>[a-z0-9][a-z0-9._-]*)\]"
    r"(?:\.(?P<table>intra_node|inter_node|storage|price))?\.(?P<field>[a-z_0-9]+))$"
)

Value = str | int | float | bool | list[Any]


class EarlierValue(FileModel):
    """A value a fact had before it was replaced."""

    value: Value
    standing: Standing = "claimed"
    source: Text
    as_of: AsOf
    evidence: str | None = None
    replaced_on: AsOf


class OverlayFact(FileModel):
    key: str = Field(pattern=_KEY.pattern)
    value: Value
    standing: Standing = "claimed"
    source: Text
    as_of: AsOf
    evidence: str | None = None
    note: str | None = None
    history: tuple[EarlierValue, ...] = ()

    def same_as(self, other: OverlayFact) -> bool:
        """The same value with the same provenance (history aside)."""
        return (self.value, self.standing, self.source, self.as_of, self.evidence) == (
            other.value,
            other.standing,
            other.source,
            other.as_of,
            other.evidence,
        )


class StoredCheck(FileModel):
    """An acceptance check imported from a report (`linkvet accept import`)."""

    offering: str
    region: str | None = None
    host: str
    created_at: str
    fact: str
    scope: str
    verdict: Literal["confirmed", "contradicted", "unverified"]
    claimed: Value | None = None
    measured: Value | None = None
    evidence: str = ""
    report: str | None = None

    def identity(self) -> tuple[str, str | None, str, str, str]:
        return (self.offering, self.region, self.host, self.created_at, self.fact)


class OverlayFile(FileModel):
    format: Literal["linkvet-catalog-overlay"] = "linkvet-catalog-overlay"
    format_version: Literal[1] = 1
    provider: str = Field(pattern=r"^[a-z0-9][a-z0-9._-]*$", max_length=80)
    facts: tuple[OverlayFact, ...] = ()
    checks: tuple[StoredCheck, ...] = ()

    def fact(self, key: str) -> OverlayFact | None:
        return next((f for f in self.facts if f.key == key), None)


@dataclass(frozen=True, slots=True)
class FactKey:
    """A fact key taken apart: `section` (provider, service, region, offering), the region or offering id,
    the nested table (intra_node, inter_node, storage, price) and the field."""

    section: str
    ident: str | None
    table: str | None
    field: str

    @staticmethod
    def parse(key: str) -> FactKey | None:
        match = _KEY.match(key)
        if match is None:
            return None
        if match["top"]:
            return FactKey(match["top"], None, None, match["top_field"])
        return FactKey(match["section"], match["id"], match["table"], match["field"])

    def text(self) -> str:
        if self.ident is None:
            return f"{self.section}.{self.field}"
        table = f".{self.table}" if self.table else ""
        return f"{self.section}[{self.ident}]{table}.{self.field}"


def offering_key(offering_id: str, path: str) -> str:
    """The key of an offering's fact given as a catalog path (`inter_node.fabric`, `gpu`)."""
    return f"offering[{offering_id}].{path}"


def parse_overlay_text(
    text: str, path: Path | None = None
) -> tuple[OverlayFile | None, list[CatalogFileError]]:
    """Validate an overlay file's TOML text."""
    try:
        raw = _toml.parse(text, path)
    except CatalogFileError as exc:
        return None, [exc]
    version = raw.get("format_version")
    if isinstance(version, int) and not isinstance(version, bool) and version > OVERLAY_VERSION:
        message = _(
            "format_version {version} is newer than this linkvet understands (up to {known}); update linkvet"
        ).format(version=version, known=OVERLAY_VERSION)
        return None, [FormatVersionError(message, path=path, line=1, field="format_version")]
    try:
        return OverlayFile.model_validate(raw), []
    except ValidationError as exc:
        return None, _toml.validation_errors(exc, path, raw, _toml.LazyLines(text), OverlayFile)


def in_words(exc: ValidationError, model: type[BaseModel]) -> str:
    """A validation failure of `model` in linkvet's words (field, what was wrong, what was expected): the
    first problem, never the validation library's own text or its links."""
    errors = _toml.validation_errors(exc, None, {}, _toml.LazyLines(""), model)
    return str(errors[0]) if errors else _("not a valid value")


def is_overlay(raw: Mapping[str, Any]) -> bool:
    return raw.get("format") == OVERLAY_FORMAT


def render_overlay(overlay: OverlayFile, header: str = "") -> str:
    """The overlay as TOML text (what the user's catalog folder holds), with an optional comment header."""
    lines = [f"# {line}".rstrip() for line in header.splitlines()]
    data = overlay.model_dump(mode="json", exclude_none=True)
    for fact in data["facts"]:
        if not fact["history"]:
            del fact["history"]
    if not data["checks"]:
        del data["checks"]
    body = tomli_w.dumps(data)
    return ("\n".join(lines) + "\n\n" if lines else "") + body


# -- merging ---------------------------------------------------------------------------------------------


@dataclass
class _Merge:
    raw: dict[str, Any]
    file: str
    origin: dict[tuple[str | int, ...], int] = field(default_factory=dict)  # raw location → fact index

    def table(self, loc: tuple[str | int, ...], created: dict[str, Any], index: int) -> dict[str, Any]:
        self.origin.setdefault(loc, index)
        return created


def _inline(fact: OverlayFact, file: str) -> dict[str, Any]:
    value = fact.value
    inline: dict[str, Any] = {
        "value": value,
        "source": fact.source,
        "as_of": fact.as_of,
        "standing": fact.standing,
        "file": file,
    }
    note = "; ".join(x for x in (fact.note, f"evidence: {fact.evidence}" if fact.evidence else None) if x)
    if note:
        inline["note"] = note
    return inline


def _find(items: list[dict[str, Any]], ident: str) -> int | None:
    return next((i for i, item in enumerate(items) if item.get("id") == ident), None)


def merge_raw(
    base: dict[str, Any] | None, overlay: OverlayFile, file: str, files: Mapping[str, str] | None = None
) -> _Merge:
    """The catalog's raw data with every overlay fact put over it (`base` None: a provider of its own); each
    fact's provenance names `file`, or where `files` says its key was written (a team's store)."""
    raw: dict[str, Any] = (
        dict(base) if base is not None else {"format_version": 1, "provider": {"id": overlay.provider}}
    )
    merge = _Merge(raw, file)
    prices: dict[int, dict[str, Any]] = {}
    for index, fact in enumerate(overlay.facts):
        key = FactKey.parse(fact.key)
        assert key is not None  # the model's pattern
        if files is not None and fact.key in files:
            merge.file = files[fact.key]
        else:
            merge.file = file
        first = {"source": fact.source, "as_of": fact.as_of}
        if key.section == "provider":
            table = raw["provider"] = dict(raw["provider"])
            if "source" not in table:
                table.update(first)
                merge.origin.setdefault(("provider",), index)
            table[key.field] = _inline(fact, merge.file)
            merge.origin[("provider", key.field)] = index
            continue
        if key.section == "service":
            if raw.get("service") is None:
                raw["service"] = merge.table(("service",), dict(first), index)
            table = raw["service"] = dict(raw["service"])
            table[key.field] = _inline(fact, merge.file)
            merge.origin[("service", key.field)] = index
            continue
        plural = "regions" if key.section == "region" else "offerings"
        items = raw[plural] = [dict(item) for item in raw.get(plural, [])]
        position = _find(items, key.ident or "")
        if position is None:
            items.append({"id": key.ident, **first})
            position = len(items) - 1
            merge.origin.setdefault((plural, position), index)
        item = items[position]
        if key.table == "price":
            price = prices.setdefault(position, {})
            price[key.field] = _inline(fact, merge.file)
            merge.origin.setdefault((plural, position, "prices", 0), index)
            merge.origin[(plural, position, "prices", 0, key.field)] = index
            continue
        if key.table is not None:
            nested = item[key.table] = dict(item.get(key.table) or {})
            merge.origin.setdefault((plural, position, key.table), index)
            nested[key.field] = _inline(fact, merge.file)
            merge.origin[(plural, position, key.table, key.field)] = index
            continue
        if key.section == "region" and key.field == "endpoints":
            item["endpoints"] = _merged_endpoints(item.get("endpoints"), fact)
        else:
            item[key.field] = _inline(fact, merge.file)
        merge.origin[(plural, position, key.field)] = index
    for position, price in prices.items():
        raw["offerings"][position]["prices"] = [price]
    return merge


def _merged_endpoints(existing: Any, fact: OverlayFact) -> list[Any]:
    """The region's endpoints with the fact's added (an address already listed is not repeated)."""
    current = list(existing or [])
    seen = {(e.get("host"), e.get("url"), e.get("port")) for e in current if isinstance(e, dict)}
    added = fact.value if isinstance(fact.value, list) else [fact.value]
    for endpoint in added:
        if isinstance(endpoint, dict):
            entry = {"source": fact.source, "as_of": fact.as_of, **endpoint}
            if (entry.get("host"), entry.get("url"), entry.get("port")) not in seen:
                current.append(entry)
        else:
            current.append(endpoint)  # not a table: the schema reports it
    return current


def key_for_loc(raw: Mapping[str, Any], loc: Sequence[str | int]) -> str:
    """The fact key a validation error's location stands for (as near as the location goes)."""
    parts = list(loc)
    if not parts:
        return "provider"
    if parts[0] in ("provider", "service"):
        return f"{parts[0]}.{parts[1]}" if len(parts) > 1 else str(parts[0])
    if parts[0] in ("regions", "offerings") and len(parts) > 1 and isinstance(parts[1], int):
        section = "region" if parts[0] == "regions" else "offering"
        items = raw.get(parts[0]) or []
        ident = items[parts[1]].get("id", parts[1]) if parts[1] < len(items) else parts[1]
        rest = [str(p) for p in parts[2:] if not isinstance(p, int)]
        if rest[:1] == ["prices"]:
            rest = ["price", *rest[1:]]
        if rest[:1] == ["endpoints"]:
            rest = ["endpoints"]
        return f"{section}[{ident}]" + ("." + ".".join(rest) if rest else "")
    return ".".join(str(p) for p in parts)


def merge_overlay(
    base: ProviderCatalog | None,
    base_raw: dict[str, Any] | None,
    overlay: OverlayFile,
    overlay_path: Path | None,
    overlay_text: str = "",
    *,
    files: Mapping[str, str] | None = None,
    team: str | None = None,
) -> tuple[ProviderCatalog | None, list[CatalogFileError]]:
    """`overlay` merged over `base` and validated as a catalog file is; every problem names the overlay
    file, the line of the fact that caused it and its key. `files`: where each key's fact was written when
    not in the overlay file (a team's store, named `team`)."""
    file = str(overlay_path) if overlay_path is not None else "(overlay)"
    merge = merge_raw(base_raw, overlay, file, files)
    fact_lines = _toml.LazyLines(overlay_text) if overlay_text else None
    seen_locs: list[tuple[str | int, ...]] = []

    def line_of(loc: tuple[str | int, ...]) -> int | None:
        seen_locs.append(tuple(loc))
        index = _nearest_fact(merge.origin, loc)
        if index is None or fact_lines is None:
            return None
        return fact_lines(("facts", index, "value")) or fact_lines(("facts", index))

    try:
        data = CatalogFile.model_validate(merge.raw)
    except ValidationError as exc:
        errors = _toml.validation_errors(exc, overlay_path, merge.raw, line_of, CatalogFile)
        return None, _keyed(errors, seen_locs, merge.raw)
    errors = check_references(data, overlay_path, line_of)
    if errors:
        return None, _keyed(errors, seen_locs, merge.raw)
    path = base.path if base is not None else overlay_path
    checks = tuple(c.model_dump(mode="json", exclude_none=True) for c in overlay.checks)
    return ProviderCatalog(path, data, overlay=overlay_path, checks=checks, team=team), []


def _nearest_fact(origin: Mapping[tuple[str | int, ...], int], loc: tuple[str | int, ...]) -> int | None:
    for end in range(len(loc), 0, -1):
        if loc[:end] in origin:
            return origin[loc[:end]]
    return None


def _keyed(
    errors: list[CatalogFileError], locs: list[tuple[str | int, ...]], raw: Mapping[str, Any]
) -> list[CatalogFileError]:
    """The errors with their field named by fact key (the overlay's own words) rather than by position."""
    keyed: list[CatalogFileError] = [
        type(error)(
            error.message,
            path=error.path,
            line=error.line,
            field=key_for_loc(raw, loc),
            expected=error.expected,
        )
        for error, loc in zip(errors, locs, strict=False)
    ]
    return keyed + errors[len(locs) :]


# -- changing an overlay -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Change:
    """What putting a fact into an overlay did: `added`, `changed` (the earlier value kept in its
    history), `unchanged`, or `kept` (a verified value stands; the new claim was not put over it)."""

    key: str
    what: Literal["added", "changed", "unchanged", "kept"]
    before: Value | None = None
    after: Value | None = None
    standing: str = "claimed"  # the standing of the fact put in (`after`)


def put_facts(
    overlay: OverlayFile, facts: Iterable[OverlayFact], today: str | None = None
) -> tuple[OverlayFile, list[Change]]:
    """`overlay` with `facts` put in by key: a new key is added; a changed value or provenance replaces the
    fact and keeps the earlier one in its history; the same fact again changes nothing; a claim never
    replaces a verified fact (verified facts win; the claim is reported as `kept`)."""
    today = today or dt.date.today().isoformat()
    by_key = {f.key: f for f in overlay.facts}
    order = [f.key for f in overlay.facts]
    changes: list[Change] = []
    for new in facts:
        old = by_key.get(new.key)
        if old is None:
            by_key[new.key] = new
            order.append(new.key)
            changes.append(Change(new.key, "added", None, new.value, new.standing))
        elif old.same_as(new):
            changes.append(Change(new.key, "unchanged", old.value, old.value))
        elif old.standing == "verified" and new.standing == "claimed":
            changes.append(Change(new.key, "kept", old.value, new.value))
        else:
            earlier = EarlierValue(
                value=old.value,
                standing=old.standing,
                source=old.source,
                as_of=old.as_of,
                evidence=old.evidence,
                replaced_on=today,
            )
            by_key[new.key] = new.model_copy(update={"history": (*old.history, earlier)})
            changes.append(Change(new.key, "changed", old.value, new.value, new.standing))
    return overlay.model_copy(update={"facts": tuple(by_key[k] for k in order)}), changes


def without_facts(overlay: OverlayFile, prefix: str) -> OverlayFile:
    """`overlay` without the facts whose key starts with `prefix` (e.g. every fact of one offering)."""
    return overlay.model_copy(
        update={"facts": tuple(f for f in overlay.facts if not f.key.startswith(prefix))}
    )


def put_checks(overlay: OverlayFile, checks: Iterable[StoredCheck]) -> tuple[OverlayFile, int]:
    """`overlay` with acceptance checks added (one already there is not added twice); how many were new."""
    known = {c.identity() for c in overlay.checks}
    added = []
    for check in checks:
        if check.identity() not in known:
            known.add(check.identity())
            added.append(check)
    return overlay.model_copy(update={"checks": (*overlay.checks, *added)}), len(added)


__all__ = [
    "NESTED",
    "OVERLAY_FORMAT",
    "OVERLAY_VERSION",
    "Change",
    "EarlierValue",
    "FactKey",
    "OverlayFact",
    "OverlayFile",
    "StoredCheck",
    "in_words",
    "is_overlay",
    "merge_overlay",
    "merge_raw",
    "offering_key",
    "parse_overlay_text",
    "put_checks",
    "put_facts",
    "render_overlay",
    "without_facts",
]
