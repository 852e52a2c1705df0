"""The catalogs as both faces show them: loaded with `catalogs.loader.load_catalogs` (a broken file is
reported, the others still load), one flat row per offering (`linkvet catalog list --json`, the Catalog
screen's table, which adds each offering's GPU reference figures), and a region's probe endpoints turned
into targets (`catalogs.targets.region_targets`, the step `linkvet catalog targets` prints)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from catalogs.gpus import default_gpu_reference
from catalogs.loader import CatalogSet, load_catalogs
from catalogs.prices import lowest_gpu_hour
from desktop.usecases.errors import InputError
from probes.target import Target


@dataclass(frozen=True)
class CatalogView:
    """Everything the Catalog screen shows: the loaded set, one flat row per offering, the load errors."""

    catalogs: CatalogSet
    rows: list[dict[str, Any]]
    errors: list[str]


def load_catalog_set(paths: list[Path] | None = None) -> CatalogSet:
    """The catalogs at `paths` (files or folders; default the bundled ones); broken files are in `.errors`."""
    return load_catalogs(paths)


def gpu_filter(query: str | None) -> set[str] | None:
    """The GPU reference ids a `--gpu MODEL` filter matches (None: no filter); `InputError` for a model the
    reference does not know."""
    if query is None:
        return None
    match = default_gpu_reference().get(query)
    if match is None:
        names = ", ".join(default_gpu_reference().names())
        raise InputError(f"unknown GPU model {query!r} (known: {names})")
    return {spec.id for spec in match.candidates}


def offering_rows(
    loaded: CatalogSet, gpu_ids: set[str] | None = None, provider: str | None = None
) -> list[dict[str, Any]]:
    """One plain row per offering (its catalog fields, `provider` and `min_gpu_hour`), optionally only the
    offerings with one of `gpu_ids` or of one `provider`: `linkvet catalog list --json`."""
    reference = default_gpu_reference()
    rows = []
    for catalog, offering in loaded.offerings():
        if provider and catalog.provider.id != provider:
            continue
        match = reference.get(offering.gpu, offering.gpu_memory_gb) if offering.gpu else None
        if gpu_ids is not None and (match is None or not gpu_ids & {s.id for s in match.candidates}):
            continue
        data = offering.model_dump(mode="json", exclude_none=True)
        data["provider"] = catalog.provider.id
        data["min_gpu_hour"] = lowest_gpu_hour(offering)
        rows.append(data)
    return rows


def rows_with_reference(loaded: CatalogSet) -> list[dict[str, Any]]:
    """`offering_rows`, each with the GPU reference's figures added under `reference` (None when the
    reference does not know the GPU)."""
    reference = default_gpu_reference()
    rows = offering_rows(loaded)
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
    return CatalogView(loaded, rows_with_reference(loaded), [str(e) for e in loaded.errors])


def region_targets(loaded: CatalogSet, provider_id: str, region_id: str) -> tuple[list[Target], list[str]]:
    """The region's probe endpoints as targets (labelled with provider, region and claimed line type), and
    what could not be used, one line each."""
    from catalogs.targets import region_targets as endpoint_dicts
    from probes.errors import TargetError

    catalog = loaded.provider(provider_id)
    region = catalog.region(region_id) if catalog is not None else None
    if region is None:
        return [], [f"{provider_id}/{region_id}: no such catalog region"]
    targets, problems = [], []
    for spec in endpoint_dicts(provider_id, region):
        try:
            target = Target.from_dict(spec)
        except (TargetError, ValueError) as exc:
            problems.append(f"{spec['name']}: {exc}")
            continue
        targets.append(target)
    return targets, problems
