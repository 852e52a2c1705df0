"""Turn a GPU catalog in SkyPilot's CSV format (skypilot-org/skypilot-catalog, `vms.csv`) into a linkvet
provider catalog.

Rows are grouped into one offering per (instance type, GPU, GPU count); each region's on-demand price is the
lowest of its zones (spot likewise). What the CSV does not say stays unknown. Two things are derived, and
marked so: the exact GPU variant when the instance name states the form factor (e.g. `gpu_8x_h100_sxm5` →
"H100 SXM"), and from it the intra-node interconnect via the GPU reference.

Real catalogs are read as they are (`catalogs.skypilot_rows`): total memory in the per-GPU `SizeInMiB`, the
per-GPU memory in `TotalGpuMemoryInMiB`, region cells with an empty city are corrected with a note in the
imported fact; duplicate rows are read once; a price of 0 means not offered there. A row that cannot be
understood (no GPU count, unreadable numbers, more cells than the header, a cell over 131,072 characters)
is skipped with its line and reason — with `strict`, it fails the whole import. Nothing is dropped silently.
"""

from __future__ import annotations

import csv
import datetime as dt
import math
import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tomli_w

from catalogs import _toml
from catalogs.errors import SkyPilotImportError, SkyPilotRowError
from catalogs.facts import CONTROL_CHARACTER
from catalogs.gpus import GpuReference, GpuSpec, default_gpu_reference
from catalogs.i18n import _, ngettext
from catalogs.schema import FORMAT_VERSION
from catalogs.skypilot_rows import (
    MAX_CELL,
    MAX_FILE_BYTES,
    Memory,
    gpu_info_mib,
    memory_of,
    read_rows,
    region_label,
    too_long,
)

REQUIRED_COLUMNS = ("AcceleratorName", "AcceleratorCount", "Region", "Price")


@dataclass(frozen=True, slots=True)
class Skipped:
    """A row left out, with the line it starts on and why."""

    line: int
    reason: str


@dataclass
class ImportResult:
    """The catalog as plain data (ready for TOML), and what was corrected, skipped or worth a look."""

    catalog: dict[str, Any]
    warnings: list[str] = field(default_factory=list)
    rows_read: int = 0
    rows_used: int = 0
    rows_corrected: int = 0
    skipped: list[Skipped] = field(default_factory=list)  # rows that could not be understood
    duplicates: int = 0  # rows repeating an earlier row exactly
    not_offered: int = 0  # rows with Price 0: not offered there
    no_gpu: int = 0  # rows without AcceleratorName (e.g. GCP's host-VM rows)


def slugify(text: str) -> str:
    slug = re.sub(r"[^a-z0-9._-]+", "-", text.strip().lower()).strip("-._")
    return slug or "unnamed"


# A number as a CSV writes one: digits, a point, an exponent. Python's float() reads more (`3_2.77` as
# 32.77, ` inf`, `nan`), none of which a price or a count is.
_DECIMAL = re.compile(r"^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$")


def _number(value: str | None, column: str) -> float | None:
    text = (value or "").strip()
    if not text:
        return None
    try:
        if not _DECIMAL.match(text):
            raise ValueError(text)
        number = float(text)
    except ValueError:
        raise SkyPilotRowError(
            _("{column} {value!r} is not a number").format(column=column, value=text)
        ) from None
    if not math.isfinite(number) or number < 0:
        raise SkyPilotRowError(
            _("{column} {value!r} is not a usable value (0 or more expected)").format(
                column=column, value=text
            )
        )
    return number


def _check_cells(columns: list[str], cells: list[str]) -> None:
    """A row no wider than the header, without an over-long cell or a control character."""
    if len(cells) > len(columns):
        raise SkyPilotRowError(
            _("{cells} cells where the header has {columns} columns").format(
                cells=len(cells), columns=len(columns)
            )
        )
    length = too_long(cells)
    if length is not None:
        raise SkyPilotRowError(
            _("a cell of {length:,} characters (more than {limit:,})").format(length=length, limit=MAX_CELL)
        )
    for column, cell in zip(columns, cells, strict=False):
        if (found := CONTROL_CHARACTER.search(cell)) is not None:
            raise SkyPilotRowError(
                _("{column}: a control character (U+{code:04X}) in the cell").format(
                    column=column[:40], code=ord(found.group())
                )
            )


def _gpu_count(row: dict[str, str]) -> int:
    count = _number(row.get("AcceleratorCount"), "AcceleratorCount")
    if count is None or count < 1 or count != int(count):
        raise SkyPilotRowError(
            _("AcceleratorCount {value!r} is not a whole number of GPUs").format(
                value=row.get("AcceleratorCount")
            )
        )
    return int(count)


def _vcpus(row: dict[str, str]) -> float | None:
    vcpus = _number(row.get("vCPUs"), "vCPUs")
    if vcpus is not None and vcpus != int(vcpus):
        raise SkyPilotRowError(
            _("vCPUs {value!r} is not a whole number of vCPUs").format(value=row.get("vCPUs"))
        )
    return vcpus


def gpu_memory_from_info(info: str) -> float | None:
    """Per-GPU memory in GiB from SkyPilot's `GpuInfo` text (a Python dict literal), if it says."""
    size, _total = gpu_info_mib(info)
    return round(size / 1024, 2) if size is not None else None


def form_factor_hint(*names: str) -> str | None:
    """ "SXM", "PCIe" or "NVLink" when an instance or accelerator name states it."""
    text = " ".join(names).lower()
    if "sxm" in text:
        return "SXM"
    if re.search(r"pci(e)?(?![a-z])", text):
        return "PCIe"
    if "nvlink" in text:
        return "NVLink"
    return None


def _pick_variant(gpus: GpuReference, name: str, memory_gb: float | None, hint: str | None) -> GpuSpec | None:
    match = gpus.get(name, memory_gb)
    if match is None:
        return None
    if match.exact is not None and not match.by_family:
        return match.exact
    if hint in ("SXM", "PCIe"):
        chosen = [s for s in match.candidates if s.form_factor == hint]
        if len(chosen) == 1:
            return chosen[0]
    return None


def _read(path: Path) -> tuple[list[str], list[tuple[int, list[str]]]]:
    # The one reader of catalogs' files: a regular file only (a FIFO is refused, never read), at most
    # MAX_FILE_BYTES (SkyPilot's own catalogs run to tens of MiB), a leading byte-order mark dropped.
    text = _toml.read_text(path, SkyPilotImportError, SkyPilotImportError, kind="CSV", limit=MAX_FILE_BYTES)
    try:
        return read_rows(text)
    except csv.Error as exc:  # e.g. a NUL byte: nothing after it can be read
        raise SkyPilotImportError(
            _("not a readable CSV: {reason}").format(reason=exc),
            path=path,
            expected=_("a SkyPilot-format CSV"),
        ) from exc


def import_skypilot_csv(
    path: Path,
    *,
    provider_id: str | None = None,
    provider_name: str | None = None,
    source: str | None = None,
    as_of: str | None = None,
    gpus: GpuReference | None = None,
    strict: bool = False,
) -> ImportResult:
    """Read a SkyPilot-format CSV and build a provider catalog (as plain data). A row that cannot be
    understood is skipped with its reason (with `strict`, it fails the import: `SkyPilotImportError` naming
    its line); a figure the GPU reference can correct is corrected with a note in the imported fact."""
    gpus = gpus or default_gpu_reference()
    provider_id = slugify(
        provider_id or path.stem.removesuffix("_gpu").removesuffix("vms") or path.parent.name
    )
    as_of = as_of or dt.date.today().isoformat()
    source = source or f"SkyPilot-format catalog {path.name}"
    columns, rows = _read(path)
    missing = [c for c in REQUIRED_COLUMNS if c not in columns]
    if missing:
        raise SkyPilotImportError(
            ngettext("missing column {columns}", "missing columns {columns}", len(missing)).format(
                columns=", ".join(missing)
            ),
            path=path,
            line=1,
            expected=_("a SkyPilot vms.csv header with {columns}").format(
                columns=", ".join(REQUIRED_COLUMNS)
            ),
        )
    result = ImportResult(catalog={})
    builder = _Builder(gpus, result)
    seen: dict[tuple[str, ...], int] = {}
    for line, cells in rows:
        if not any(c.strip() for c in cells):
            continue  # a blank line
        result.rows_read += 1
        try:
            builder.add(line, columns, cells, seen)
        except SkyPilotRowError as exc:
            if strict:
                raise SkyPilotImportError(
                    _("row cannot be understood: {reason}").format(reason=exc),
                    path=path,
                    line=line,
                    expected=_("a SkyPilot vms.csv row"),
                ) from None
            result.skipped.append(Skipped(line, str(exc)))
    if result.not_offered:
        result.warnings.append(
            ngettext(
                "{file}: {n} row with Price 0 left out: not offered there",
                "{file}: {n} rows with Price 0 left out: not offered there",
                result.not_offered,
            ).format(file=path.name, n=result.not_offered)
        )
    if result.no_gpu:
        result.warnings.append(
            ngettext(
                "{file}: skipped {n} row without AcceleratorName (e.g. GCP host-VM rows)",
                "{file}: skipped {n} rows without AcceleratorName (e.g. GCP host-VM rows)",
                result.no_gpu,
            ).format(file=path.name, n=result.no_gpu)
        )
    if result.duplicates:
        result.warnings.append(
            ngettext(
                "{file}: {n} duplicate row read once",
                "{file}: {n} duplicate rows read once",
                result.duplicates,
            ).format(file=path.name, n=result.duplicates)
        )
    if not builder.groups:
        raise SkyPilotImportError(
            _("no GPU rows found"), path=path, expected=_("rows with an AcceleratorName")
        )
    result.catalog = builder.catalog(provider_id, provider_name, source, as_of)
    return result


class _Builder:
    """Rows grouped into offerings (instance type, GPU, GPU count) and regions, with their notes."""

    def __init__(self, gpus: GpuReference, result: ImportResult) -> None:
        self.gpus, self.result = gpus, result
        self.groups: dict[tuple[str, str, int], dict[str, Any]] = {}
        self.region_names: dict[str, str] = {}
        self.region_country: dict[str, str] = {}
        self.region_notes: dict[str, str] = {}

    def add(self, line: int, columns: list[str], cells: list[str], seen: dict[tuple[str, ...], int]) -> None:
        _check_cells(columns, cells)
        key = tuple(cells)
        if key in seen:
            self.result.duplicates += 1
            return
        seen[key] = line
        row = dict(zip(columns, cells, strict=False))
        accelerator = (row.get("AcceleratorName") or "").strip()
        if not accelerator:
            self.result.no_gpu += 1
            return
        count = _gpu_count(row)
        region_id, country, region_note = self._region(row)
        price = _number(row.get("Price"), "Price")
        spot = _number(row.get("SpotPrice"), "SpotPrice")
        vcpus = _vcpus(row)
        ram = _number(row.get("MemoryGiB"), "MemoryGiB")
        if price == 0:
            self.result.not_offered += 1
            return
        size_mib, total_mib = gpu_info_mib(row.get("GpuInfo") or "")
        memory = memory_of(accelerator, count, size_mib, total_mib, self.gpus)
        corrected = memory.corrected or region_note is not None
        if country:
            self.region_country.setdefault(region_id, country)
        if region_note:
            self.region_notes.setdefault(region_id, region_note)
        instance = (row.get("InstanceType") or "").strip()
        self._group_row((instance, accelerator, count), region_id, price, spot, memory, vcpus, ram)
        self.result.rows_used += 1
        self.result.rows_corrected += int(corrected)

    def _region(self, row: dict[str, str]) -> tuple[str, str | None, str | None]:
        """The row's region id, country and note; an empty region, or two regions with one id, is an error."""
        region_raw = (row.get("Region") or "").strip()
        if not region_raw:
            raise SkyPilotRowError(_("empty Region"))
        label, country, region_note = region_label(region_raw)
        region_id = slugify(label)
        if self.region_names.setdefault(region_id, label) != label:
            raise SkyPilotRowError(
                _("regions {first!r} and {second!r} map to the same id {id!r}").format(
                    first=self.region_names[region_id], second=label, id=region_id
                )
            )
        return region_id, country, region_note

    def _group_row(
        self,
        key: tuple[str, str, int],
        region_id: str,
        price: float | None,
        spot: float | None,
        memory: Memory,
        vcpus: float | None,
        ram: float | None,
    ) -> None:
        """A row's figures into its offering's group: the region, its prices, and the first memory, vCPUs
        and RAM any row states."""
        group = self.groups.setdefault(
            key,
            {
                "prices": defaultdict(list),
                "spot": defaultdict(list),
                "regions": [],
                "memory": None,
                "vcpus": None,
                "ram": None,
            },
        )
        if region_id not in group["regions"]:
            group["regions"].append(region_id)
        if price is not None:
            group["prices"][region_id].append(price)
        if spot is not None and spot > 0:
            group["spot"][region_id].append(spot)
        if group["memory"] is None and memory.gb is not None:
            group["memory"] = memory
        if group["vcpus"] is None and vcpus is not None:
            group["vcpus"] = vcpus
        if group["ram"] is None and ram is not None:
            group["ram"] = ram

    def catalog(self, provider_id: str, provider_name: str | None, source: str, as_of: str) -> dict[str, Any]:
        offerings = [self._offering(key, group, source, as_of) for key, group in sorted(self.groups.items())]
        seen: set[str] = set()
        for offering in offerings:
            while offering["id"] in seen:
                offering["id"] += "-b"
            seen.add(offering["id"])
        regions = []
        for region_id in sorted(self.region_names):
            region: dict[str, Any] = {"id": region_id}
            if self.region_names[region_id] != region_id:
                region["name"] = self.region_names[region_id]
            if region_id in self.region_country:
                region["country"] = self.region_country[region_id]
            if region_id in self.region_notes:
                region["notes"] = self.region_notes[region_id]
            region["source"] = source
            region["as_of"] = as_of
            regions.append(region)
        return {
            "format_version": FORMAT_VERSION,
            "provider": {
                "id": provider_id,
                "name": provider_name or provider_id,
                "source": source,
                "as_of": as_of,
            },
            "regions": regions,
            "offerings": offerings,
        }

    def _offering(
        self, key: tuple[str, str, int], group: dict[str, Any], source: str, as_of: str
    ) -> dict[str, Any]:
        instance, accelerator, count = key
        gpus = self.gpus
        memory: Memory | None = group["memory"]
        memory_gb = memory.gb if memory is not None else None
        offering: dict[str, Any] = {"id": slugify(instance or f"{accelerator}-x{count}")}
        offering["name"] = instance or f"{count} × {accelerator} (GPU price only)"
        hint = form_factor_hint(instance, accelerator)
        variant = _pick_variant(gpus, accelerator, memory_gb, hint)
        notes: list[str] = []
        if variant is not None:
            offering["gpu"] = variant.id
            named = gpus.get(accelerator)
            if named is not None and named.by_family:
                notes.append(f"GPU variant {variant.id!r} derived from the name {instance or accelerator!r}")
        elif gpus.get(accelerator, memory_gb) is not None:
            offering["gpu"] = accelerator
        else:
            family = re.sub(r"[-_](mega|sxm|pcie)$", "", accelerator, flags=re.IGNORECASE)
            if family != accelerator and gpus.get(family, memory_gb) is not None:
                offering["gpu"] = family
                notes.append(f"SkyPilot calls the GPU {accelerator!r}; recorded as the {family!r} family")
            else:
                notes.append(
                    f"SkyPilot GPU name {accelerator!r} is not in the GPU reference; GPU left unknown"
                )
        offering["gpus_per_node"] = count
        if memory is not None and memory.gb is not None:
            if memory.note:
                offering["gpu_memory_gb"] = {
                    "value": memory.gb,
                    "source": source,
                    "as_of": as_of,
                    "note": memory.note,
                }
            else:
                offering["gpu_memory_gb"] = memory.gb
        if count > 1:
            intra = _derived_intra_node(variant, hint, instance or accelerator, as_of)
            if intra is not None:
                offering["intra_node"] = intra
        if group["vcpus"] is not None:
            offering["vcpus"] = int(group["vcpus"])
        if group["ram"] is not None:
            offering["ram_gib"] = group["ram"]
        offering["currency"] = "USD"
        offering["regions"] = sorted(group["regions"])
        prices = []
        for region_id in sorted(group["regions"]):
            zone_prices = group["prices"].get(region_id, [])
            if not zone_prices:
                continue
            entry: dict[str, Any] = {"region": region_id, "node_hour": min(zone_prices)}
            if group["spot"].get(region_id):
                entry["spot_node_hour"] = min(group["spot"][region_id])
            if not instance:
                entry["covers"] = "gpus-only"
            prices.append(entry)
        no_price = sorted(set(group["regions"]) - {p["region"] for p in prices})
        if no_price:
            notes.append("no price in the source for: " + ", ".join(no_price))
        if not instance:
            notes.append("GPU-only price: the host VM is billed on top (its rows are not in this file)")
        if prices:
            offering["prices"] = prices
        if notes:
            offering["notes"] = "; ".join(notes)
        offering["source"] = source
        offering["as_of"] = as_of
        return offering


def _derived_intra_node(
    variant: GpuSpec | None, hint: str | None, name: str, as_of: str
) -> dict[str, Any] | None:
    if variant is not None and variant.intra_node_kind is not None:
        intra: dict[str, Any] = {"kind": variant.intra_node_kind}
        if variant.interconnect_gbytes_s_bidir is not None:
            intra["bandwidth_gbytes_s"] = variant.interconnect_gbytes_s_bidir
        intra["derived"] = True
        link = variant.interconnect or variant.intra_node_kind
        intra["source"] = f"GPU reference {variant.id!r} ({link}: {variant.source})" + (
            f"; form factor from the name {name!r}" if hint else ""
        )
        intra["as_of"] = variant.as_of
        return intra
    if hint == "NVLink":
        return {
            "kind": "nvlink",
            "derived": True,
            "source": f"the instance name {name!r} says NVLINK (bandwidth not stated)",
            "as_of": as_of,
        }
    return None


def catalog_to_toml(catalog: dict[str, Any], header: str = "") -> str:
    """Write a catalog (plain data) as TOML, with an optional comment header."""
    lines = [f"# {line}".rstrip() for line in header.splitlines()]
    body = tomli_w.dumps(catalog)
    return ("\n".join(lines) + "\n\n" if lines else "") + body
