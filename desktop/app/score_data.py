"""What the Needs & score screen computes, without Qt: the same calls `linkvet size` and `linkvet score` make
(`catalogs.sizing.size`, `catalogs.scoring.rank_offerings`, with the store's measured link summaries), run
by the screen in a worker."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from catalogs.gpus import default_gpu_reference
from catalogs.link_quality import LinkSummary
from catalogs.loader import CatalogSet, load_catalogs
from catalogs.needs import NeedsProfile
from catalogs.scoring import Ranking, RankingMethod, rank_offerings
from catalogs.sizing import SizingResult, size
from probes.peak import PeakWindow

DEFAULT_GPU = "H100 SXM"


def sizing_on(needs: NeedsProfile, gpu_name: str, gpus_per_node: int = 8) -> tuple[SizingResult, str]:
    """Size `needs` on a GPU of the reference (as `linkvet size --gpu NAME` does); the result and the GPU."""
    match = default_gpu_reference().get(gpu_name)
    if match is None or match.memory_gb is None:
        raise ValueError(f"unknown GPU model {gpu_name!r}")
    return size(needs, match.memory_gb, gpus_per_node, match.bf16_dense_tflops), match.describe()


def gpu_names() -> list[str]:
    return list(default_gpu_reference().names())


@dataclass(frozen=True)
class ScoreRequest:
    needs: NeedsProfile
    weights: Mapping[str, float]
    method: RankingMethod
    summaries: Sequence[LinkSummary] = ()


def load_catalog_set() -> CatalogSet:
    return load_catalogs()


def rank(catalogs: CatalogSet, request: ScoreRequest) -> Ranking:
    """`linkvet score` for the form's profile and the sliders' weights."""
    return rank_offerings(
        request.needs, catalogs, request.summaries, weights=dict(request.weights), method=request.method
    )


def measured_summaries(
    db_path: Path, windows: Sequence[PeakWindow], catalogs: CatalogSet | None = None
) -> list[LinkSummary]:
    """Every measured region's link summary in the store at `db_path`, as `linkvet score --db` reads them
    (`desktop.links.measured_link_summaries`, route checks against the claims of `catalogs`, default the
    bundled ones); none when there is no store yet."""
    if not db_path.exists():
        return []
    from desktop.links import measured_link_summaries
    from probes.store import Store

    catalogs = catalogs if catalogs is not None else load_catalog_set()
    with Store(db_path, readonly=True) as store:
        return measured_link_summaries(store, windows=tuple(windows), catalogs=catalogs)
