"""The catalogs as the screens need them (no Qt): loaded in a worker with `catalogs.loader.load_catalogs`,
offerings flattened by the same function `linkvet catalog list` uses, plus each offering's GPU reference
figures, and a region's probe endpoints turned into probe-list entries (`catalogs.targets.region_targets`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from catalogs.gpus import default_gpu_reference
from catalogs.loader import CatalogSet, load_catalogs
from catalogs.targets import region_targets
from desktop.app.models.target_list import TargetEntry
from probes.errors import TargetError
from probes.target import Target


@dataclass(frozen=True)
class CatalogView:
    """Everything the Catalog screen shows: the loaded set, one flat row per offering, the load errors."""

    catalogs: CatalogSet
    rows: list[dict[str, Any]]
    errors: list[str]


def offering_rows(loaded: CatalogSet) -> list[dict[str, Any]]:
    """`linkvet catalog list --json`'s rows, each with the GPU reference's figures added under `reference`."""
    from desktop.cli.catalog import offering_rows

    reference = default_gpu_reference()
    rows = offering_rows(loaded, None, None)
    for row in rows:
        match = reference.get(row["gpu"], row.get("gpu_memory_gb")) if row.get("gpu") else None
        row["reference"] = None
        if match is not None:
            row["reference"] = {
                "name": match.describe(),
                "memory_gb": match.memory_gb,
                "bf16_dense_tflops": match.bf16_dense_tflops,
                "interconnect_gbytes_s_bidir": match.interconnect_gbytes_s_bidir,
                "intra_node_kind": match.intra_node_kind,
                "exact": match.exact,
            }
    return rows


def load_view(paths: list[Path] | None = None) -> CatalogView:
    """Load the catalogs (the bundled ones by default); a broken file is reported, the others still load."""
    loaded = load_catalogs(paths)
    return CatalogView(loaded, offering_rows(loaded), [str(e) for e in loaded.errors])


def region_entries(
    loaded: CatalogSet, provider_id: str, region_id: str
) -> tuple[list[TargetEntry], list[str]]:
    """The region's probe endpoints as probe-list entries (origin "catalog"), and any that could not be used."""
    catalog = loaded.provider(provider_id)
    region = catalog.region(region_id) if catalog is not None else None
    if region is None:
        return [], [f"{provider_id}/{region_id}: no such catalog region"]
    entries, problems = [], []
    for spec in region_targets(provider_id, region):
        try:
            target = Target.from_dict(spec)
        except (TargetError, ValueError) as exc:
            problems.append(f"{spec['name']}: {exc}")
            continue
        entries.append(TargetEntry(target, origin="catalog"))
    return entries, problems
