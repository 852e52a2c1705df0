"""Every fact of a provider's catalog with where it comes from (`linkvet catalog show`): its value, its
standing (claimed, verified, contradicted), its source and date, the file it was written in (the bundled or
given catalog file, or the user's overlay) and, for an overlay's fact, its earlier values."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from catalogs.facts import Provenance, Sourced
from catalogs.loader import ProviderCatalog
from catalogs.overlay import EarlierValue, FactKey, OverlayFile
from catalogs.user import read_overlay

_SKIP = {"id", "source", "as_of", "derived", "facts"}


@dataclass(frozen=True, slots=True)
class FactLine:
    key: str  # an overlay key: `offering[ID].inter_node.fabric`, `service.delivery_days`, …
    value: Any
    provenance: Provenance
    file: str | None
    history: tuple[EarlierValue, ...] = field(default=())

    def as_dict(self) -> dict[str, Any]:
        p = self.provenance
        return {
            "fact": self.key,
            "value": _plain(self.value),
            "standing": p.standing,
            "source": p.source,
            "as_of": p.as_of,
            "derived": p.derived,
            "note": p.note,
            "file": self.file,
            "history": [h.model_dump(mode="json", exclude_none=True) for h in self.history],
        }


def _plain(value: Any) -> Any:
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json", exclude_none=True)
    return value


def _lines(
    prefix: str, table: Sourced, parent: Provenance | None, default_file: str | None
) -> list[FactLine]:
    found: list[FactLine] = []
    for name in type(table).model_fields:
        if name in _SKIP:
            continue
        value = getattr(table, name)
        if value is None or value == ():
            continue
        if isinstance(value, Sourced) and not isinstance(value, tuple):
            found += _lines(f"{prefix}.{name}", value, table.provenance(name, parent), default_file)
            continue
        provenance = table.provenance(name, parent)
        found.append(FactLine(f"{prefix}.{name}", value, provenance, provenance.file or default_file))
    return found


def fact_lines(
    catalog: ProviderCatalog, offering_id: str | None = None, team: OverlayFile | None = None
) -> list[FactLine]:
    """Every stated fact of the provider (or only of one offering), each with its provenance and file, and
    an overlay fact's earlier values (the team's, for the facts its store keeps: `team`)."""
    default = str(catalog.path) if catalog.path is not None else None
    history = {**_histories(catalog.overlay), **_history_of(team)}
    found: list[FactLine] = []
    if offering_id is None:
        found += _lines("provider", catalog.provider, None, default)
        if catalog.service is not None:
            found += _lines("service", catalog.service, None, default)
        for region in catalog.regions:
            found += _lines(f"region[{region.id}]", region, None, default)
    for offering in catalog.offerings:
        if offering_id is not None and offering.id != offering_id:
            continue
        prefix = f"offering[{offering.id}]"
        lines = _lines(prefix, offering, None, default)
        lines = [line for line in lines if not line.key.endswith(".prices")]
        for price in offering.prices:
            where = f" ({price.region})" if price.region else ""
            for line in _lines(f"{prefix}.price", price, offering.provenance("prices"), default):
                if not line.key.endswith(".region"):
                    found_key = line.key + where
                    lines.append(FactLine(found_key, line.value, line.provenance, line.file))
        found += lines
    return [
        FactLine(line.key, line.value, line.provenance, line.file, history.get(_bare(line.key), ()))
        for line in found
    ]


def _bare(key: str) -> str:
    return key.split(" (", 1)[0]


def _histories(overlay_file: Path | None) -> dict[str, tuple[EarlierValue, ...]]:
    if overlay_file is None or not overlay_file.exists():
        return {}
    overlay, _text, _errors = read_overlay(overlay_file)
    return _history_of(overlay)


def _history_of(overlay: OverlayFile | None) -> dict[str, tuple[EarlierValue, ...]]:
    if overlay is None:
        return {}
    return {f.key: f.history for f in overlay.facts if f.history and FactKey.parse(f.key) is not None}
