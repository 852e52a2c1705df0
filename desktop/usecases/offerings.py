"""The catalogs as both faces show them: the bundled catalogs (or the given files) with the user's own
merged over them (`catalogs.user.load_with_user`: overlays of vendor answers and verified facts, a user's own
providers; a broken file is reported, the others still load), one flat row per offering (`linkvet catalog
list --json`, the Catalog screen's table, which adds each offering's GPU reference figures), each with the
facts that carry their own provenance and the file each came from, and a region's probe endpoints turned
into targets (`catalogs.targets.region_targets`, the step `linkvet catalog targets` prints)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from catalogs.gpus import default_gpu_reference
from catalogs.loader import CatalogSet, ProviderCatalog
from catalogs.prices import lowest_gpu_hour
from catalogs.schema import Offering
from catalogs.scoring.standing import StandingFact, candidate_facts
from catalogs.user import load_with_user
from desktop.i18n import _
from desktop.usecases.errors import InputError
from probes.store_location import StoreLocation
from probes.target import Target


@dataclass(frozen=True)
class CatalogView:
    """Everything the Catalog screen shows: the loaded set, one flat row per offering, the load errors."""

    catalogs: CatalogSet
    rows: list[dict[str, Any]]
    errors: list[str]


def load_catalog_set(
    paths: list[Path] | None = None, *, include_user: bool = True, db: StoreLocation | None = None
) -> CatalogSet:
    """The catalogs at `paths` (files or folders; default the bundled ones) with the user's catalogs merged
    over them, and the team's facts over those when the store (`db`, else `LINKVET_DB`) is PostgreSQL
    (unless `include_user` is false); broken files, and team facts that could not be read, are in `.errors`.
    The one place a command or the window loads catalogs."""
    if not include_user:
        return load_with_user(paths, include_user=False)
    from desktop.usecases.team_facts import team_facts

    team, problems = team_facts(db)
    loaded = load_with_user(paths, team=team)
    return replace(loaded, errors=(*loaded.errors, *problems)) if problems else loaded


def fact_origins(catalog: ProviderCatalog, offering: Offering) -> list[StandingFact]:
    """Every fact of the offering (and its provider's service) with its own provenance, each naming the
    file it was written in (an overlay's facts their overlay; the rest the catalog file)."""
    found = []
    for fact in candidate_facts(offering, catalog.service, None):
        if fact.provenance.file is None and catalog.path is not None:
            fact = StandingFact(fact.key, fact.value, fact.provenance._replace(file=str(catalog.path)))
        found.append(fact)
    return found


def gpu_filter(query: str | None) -> set[str] | None:
    """The GPU reference ids a `--gpu MODEL` filter matches (None: no filter); `InputError` for a model the
    reference does not know."""
    if query is None:
        return None
    match = default_gpu_reference().get(query)
    if match is None:
        names = ", ".join(default_gpu_reference().names())
        raise InputError(_("unknown GPU model {model!r} (known: {known})").format(model=query, known=names))
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
        data["file"] = None if catalog.path is None else str(catalog.path)
        data["overlay"] = None if catalog.overlay is None else str(catalog.overlay)
        data["fact_sources"] = {f.key: f.as_dict() for f in fact_origins(catalog, offering)}
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


def load_view(paths: list[Path] | None = None, *, db: StoreLocation | None = None) -> CatalogView:
    """Load the catalogs (the bundled ones by default, with the user's and the team's facts merged over them,
    as `load_catalog_set`); a broken file is reported, the others still load."""
    loaded = load_catalog_set(paths, db=db)
    return CatalogView(loaded, rows_with_reference(loaded), [str(e) for e in loaded.errors])


def region_targets(loaded: CatalogSet, provider_id: str, region_id: str) -> tuple[list[Target], list[str]]:
    """The region's probe endpoints as targets (labelled with provider, region and claimed line type), and
    what could not be used, one line each."""
    from catalogs.targets import region_targets as endpoint_dicts
    from probes.errors import TargetError

    catalog = loaded.provider(provider_id)
    region = catalog.region(region_id) if catalog is not None else None
    if region is None:
        return [], [
            _("{provider}/{region}: no such catalog region").format(provider=provider_id, region=region_id)
        ]
    targets, problems = [], []
    for spec in endpoint_dicts(provider_id, region):
        try:
            target = Target.from_dict(spec)
        except (TargetError, ValueError) as exc:
            problems.append(f"{spec['name']}: {exc}")
            continue
        targets.append(target)
    return targets, problems
