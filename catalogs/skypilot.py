"""Turn a GPU catalog in SkyPilot's CSV format (skypilot-org/skypilot-catalog, `vms.csv`) into a linkvet
provider catalog.

Rows are grouped into one offering per (instance type, GPU, GPU count); each region's on-demand price is the
lowest of its zones (spot likewise). What the CSV does not say stays unknown. Two things are derived, and
marked so: the exact GPU variant when the instance name states the form factor (e.g. `gpu_8x_h100_sxm5` →
"H100 SXM"), and from it the intra-node interconnect via the GPU reference. Rows that cannot be used (no GPU,
fractional GPU counts, unreadable numbers) are counted and reported, never dropped silently.
"""

from __future__ import annotations

import ast
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
from catalogs.errors import SkyPilotImportError
from catalogs.gpus import GpuReference, GpuSpec, default_gpu_reference
from catalogs.schema import FORMAT_VERSION

# SkyPilot's own catalogs run to tens of MiB (every instance type × region): a larger bound than TOML's.
_CSV_LIMIT = 256 * 1024 * 1024

REQUIRED_COLUMNS = ("AcceleratorName", "AcceleratorCount", "Region", "Price")


@dataclass
class ImportResult:
    """The catalog as plain data (ready for TOML), and what was skipped or worth a look."""

    catalog: dict[str, Any]
    warnings: list[str] = field(default_factory=list)
    rows_read: int = 0
    rows_used: int = 0


def slugify(text: str) -> str:
    slug = re.sub(r"[^a-z0-9._-]+", "-", text.strip().lower()).strip("-._")
    return slug or "unnamed"


def _number(value: str, *, path: Path, line: int, column: str) -> float | None:
    text = (value or "").strip()
    if not text:
        return None
    try:
        number = float(text)
    except ValueError as exc:
        raise SkyPilotImportError(
            f"{text!r} is not a number",
            path=path,
            line=line,
            field=column,
            expected="a number or an empty cell",
        ) from exc
    if not math.isfinite(number) or number < 0:
        raise SkyPilotImportError(
            f"{text!r} is not a usable value", path=path, line=line, field=column, expected="0 or more"
        )
    return number


def gpu_memory_from_info(info: str) -> float | None:
    """Per-GPU memory in GiB from SkyPilot's `GpuInfo` text (a Python dict literal), if it says."""
    try:
        parsed = ast.literal_eval(info)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    if not isinstance(parsed, dict):
        return None
    lowered = {str(k).lower(): v for k, v in parsed.items()}
    gpus = lowered.get("gpus")
    if not isinstance(gpus, list) or not gpus or not isinstance(gpus[0], dict):
        return None
    first = {str(k).lower(): v for k, v in gpus[0].items()}
    memory = first.get("memoryinfo")
    if not isinstance(memory, dict):
        return None
    size = {str(k).lower(): v for k, v in memory.items()}.get("sizeinmib")
    try:
        return round(float(size) / 1024, 2) if size is not None else None
    except (TypeError, ValueError):
        return None


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


def import_skypilot_csv(
    path: Path,
    *,
    provider_id: str | None = None,
    provider_name: str | None = None,
    source: str | None = None,
    as_of: str | None = None,
    gpus: GpuReference | None = None,
) -> ImportResult:
    """Read a SkyPilot-format CSV and build a provider catalog (as plain data)."""
    gpus = gpus or default_gpu_reference()
    provider_id = slugify(
        provider_id or path.stem.removesuffix("_gpu").removesuffix("vms") or path.parent.name
    )
    as_of = as_of or dt.date.today().isoformat()
    source = source or f"SkyPilot-format catalog {path.name}"
    text = _toml.read_text(path, SkyPilotImportError, SkyPilotImportError, kind="CSV", limit=_CSV_LIMIT)
    reader = csv.DictReader(text.splitlines())
    try:
        columns = reader.fieldnames or []
        rows = list(reader)
    except csv.Error as exc:  # e.g. a field over the csv module's size limit (on the line after those read)
        raise SkyPilotImportError(
            f"not a readable CSV: {exc}",
            path=path,
            line=reader.line_num + 1,
            expected="a SkyPilot-format CSV",
        ) from exc
    missing = [c for c in REQUIRED_COLUMNS if c not in columns]
    if missing:
        raise SkyPilotImportError(
            "missing column(s) " + ", ".join(missing),
            path=path,
            line=1,
            expected="a SkyPilot vms.csv header with " + ", ".join(REQUIRED_COLUMNS),
        )
    result = ImportResult(catalog={})
    skipped_no_gpu = 0
    zero_prices = 0
    groups: dict[tuple[str, str, int], dict[str, Any]] = {}
    region_names: dict[str, str] = {}
    for line, row in enumerate(rows, start=2):
        result.rows_read += 1
        if None in row:
            raise SkyPilotImportError(
                "more cells than header columns", path=path, line=line, expected=f"{len(columns)} cells"
            )
        accelerator = (row.get("AcceleratorName") or "").strip()
        if not accelerator:
            skipped_no_gpu += 1
            continue
        count = _number(row["AcceleratorCount"], path=path, line=line, column="AcceleratorCount")
        if count is None or count < 1 or count != int(count):
            result.warnings.append(
                f"{path.name}:{line}: skipped: AcceleratorCount {row['AcceleratorCount']!r} is not a whole "
                "number of GPUs"
            )
            continue
        region_raw = (row.get("Region") or "").strip()
        if not region_raw:
            raise SkyPilotImportError(
                "empty Region", path=path, line=line, field="Region", expected="a region"
            )
        region_id = slugify(region_raw)
        if region_names.setdefault(region_id, region_raw) != region_raw:
            raise SkyPilotImportError(
                f"regions {region_names[region_id]!r} and {region_raw!r} map to the same id {region_id!r}",
                path=path,
                line=line,
                field="Region",
                expected="region names that stay distinct when lower-cased",
            )
        price = _number(row["Price"], path=path, line=line, column="Price")
        spot = _number(row.get("SpotPrice") or "", path=path, line=line, column="SpotPrice")
        instance = (row.get("InstanceType") or "").strip()
        key = (instance, accelerator, int(count))
        group = groups.setdefault(
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
        if price is not None and price > 0:
            group["prices"][region_id].append(price)
        elif price is not None:
            zero_prices += 1  # a price of 0 is not a price (the schema rejects it): read as not stated
        if spot is not None and spot > 0:
            group["spot"][region_id].append(spot)
        if group["memory"] is None:
            group["memory"] = gpu_memory_from_info(row.get("GpuInfo") or "")
        if group["vcpus"] is None and row.get("vCPUs"):
            group["vcpus"] = _number(row["vCPUs"], path=path, line=line, column="vCPUs")
        if group["ram"] is None and row.get("MemoryGiB"):
            group["ram"] = _number(row["MemoryGiB"], path=path, line=line, column="MemoryGiB")
        result.rows_used += 1
    if zero_prices:
        result.warnings.append(f"{path.name}: {zero_prices} row(s) with Price 0 read as no price stated")
    if skipped_no_gpu:
        result.warnings.append(
            f"{path.name}: skipped {skipped_no_gpu} row(s) without AcceleratorName (e.g. GCP host-VM rows)"
        )
    if not groups:
        raise SkyPilotImportError("no GPU rows found", path=path, expected="rows with an AcceleratorName")

    offerings: list[dict[str, Any]] = []
    used_ids: set[str] = set()
    for (instance, accelerator, count), group in sorted(groups.items()):
        offering_id = slugify(instance or f"{accelerator}-x{count}")
        while offering_id in used_ids:
            offering_id += "-b"
        used_ids.add(offering_id)
        offering: dict[str, Any] = {"id": offering_id}
        offering["name"] = instance or f"{count} × {accelerator} (GPU price only)"
        hint = form_factor_hint(instance, accelerator)
        variant = _pick_variant(gpus, accelerator, group["memory"], hint)
        notes: list[str] = []
        if variant is not None:
            offering["gpu"] = variant.id
            named = gpus.get(accelerator)
            if named is not None and named.by_family:
                notes.append(f"GPU variant {variant.id!r} derived from the name {instance or accelerator!r}")
        elif gpus.get(accelerator, group["memory"]) is not None:
            offering["gpu"] = accelerator
        else:
            family = re.sub(r"[-_](mega|sxm|pcie)$", "", accelerator, flags=re.IGNORECASE)
            if family != accelerator and gpus.get(family, group["memory"]) is not None:
                offering["gpu"] = family
                notes.append(f"SkyPilot calls the GPU {accelerator!r}; recorded as the {family!r} family")
            else:
                notes.append(
                    f"SkyPilot GPU name {accelerator!r} is not in the GPU reference; GPU left unknown"
                )
        offering["gpus_per_node"] = count
        if group["memory"] is not None:
            offering["gpu_memory_gb"] = group["memory"]
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
        offerings.append(offering)

    regions = []
    for region_id in sorted(region_names):
        region: dict[str, Any] = {"id": region_id}
        if region_names[region_id] != region_id:
            region["name"] = region_names[region_id]
        region["source"] = source
        region["as_of"] = as_of
        regions.append(region)

    result.catalog = {
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
    return result


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
