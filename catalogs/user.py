"""The user's own catalogs, merged over the bundled ones: every command that reads catalogs reads both.

The user's catalog folder is `$LINKVET_CATALOG_DIR` when set, else `catalogs/` in the user config directory
(platformdirs: `~/.config/linkvet/catalogs` on Linux, `~/Library/Application Support/linkvet/catalogs` on
macOS, `%LOCALAPPDATA%\\linkvet\\catalogs` on Windows). It holds two kinds of file:

- overlays (`format = "linkvet-catalog-overlay"`, `catalogs.overlay`): one per provider, named
  `PROVIDER.overlay.toml`, merged over that provider's catalog by key — what `linkvet questionnaire import`,
  `linkvet accept import`, `linkvet eval add` and the window's editing write (an overlay an earlier linkvet
  wrote as `PROVIDER.toml` goes on being used there); linkvet never writes any other name, so a catalog file
  the user wrote (`vendorb.toml`) and the overlay linkvet writes beside it never share one;
- whole catalog files (as in `catalogs/providers/`): a provider of the user's own; one with the id of a
  bundled provider takes its place.

A broken file is reported (`CatalogSet.errors`) and left out; the rest still loads, and a provider whose
overlay is broken is read without it.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import platformdirs

from catalogs import _toml
from catalogs.errors import CatalogFileError
from catalogs.gpus import GpuReference, default_gpu_reference
from catalogs.loader import CatalogSet, ProviderCatalog, catalog_files, load_catalogs, parse_catalog_text
from catalogs.overlay import OverlayFile, is_overlay, merge_overlay, parse_overlay_text

USER_CATALOG_ENV = "LINKVET_CATALOG_DIR"


def user_catalog_dir() -> Path:
    """The user's catalog folder (not created here)."""
    override = os.environ.get(USER_CATALOG_ENV)
    if override:
        return Path(override)
    return Path(platformdirs.user_config_dir("linkvet", appauthor=False)) / "catalogs"


OVERLAY_SUFFIX = ".overlay.toml"


def overlay_path(provider_id: str, folder: Path | None = None) -> Path:
    """Where the overlay of `provider_id` lives in the user's catalog folder: `PROVIDER.overlay.toml`, or the
    `PROVIDER.toml` an earlier linkvet wrote as an overlay (never a catalog file the user wrote there)."""
    folder = folder or user_catalog_dir()
    legacy = folder / f"{provider_id}.toml"
    if legacy.is_file() and _is_overlay_file(legacy):
        return legacy
    return folder / f"{provider_id}{OVERLAY_SUFFIX}"


def _is_overlay_file(path: Path) -> bool:
    try:
        return is_overlay(_toml.parse(_toml.read_text(path), path))
    except CatalogFileError:
        return False


def raw_catalog(catalog: ProviderCatalog) -> dict[str, Any]:
    """A loaded catalog's file as plain data (what an overlay is merged over)."""
    if catalog.path is not None and catalog.path.exists():
        return _toml.parse(_toml.read_text(catalog.path), catalog.path)
    return catalog.data.model_dump(mode="json", exclude_none=True)


def read_overlay(path: Path) -> tuple[OverlayFile | None, str, list[CatalogFileError]]:
    """An overlay file, its text, and its problems (an unreadable or invalid file)."""
    try:
        text = _toml.read_text(path)
    except CatalogFileError as exc:
        return None, "", [exc]
    overlay, errors = parse_overlay_text(text, path)
    return overlay, text, errors


def load_with_user(
    paths: Iterable[Path] | Path | None = None,
    user_dir: Path | None = None,
    *,
    include_user: bool = True,
    gpus: GpuReference | None = None,
) -> CatalogSet:
    """The catalogs at `paths` (default: the bundled ones) with the user's catalogs merged over them."""
    gpus = gpus or default_gpu_reference()
    base = load_catalogs(paths, gpus)
    if not include_user:
        return base
    folder = user_dir if user_dir is not None else user_catalog_dir()
    if not folder.is_dir():
        return base
    return with_files(base, catalog_files([folder]), gpus)


def with_files(base: CatalogSet, files: Iterable[Path], gpus: GpuReference | None = None) -> CatalogSet:
    """`base` with catalog files and overlays put over it: a whole catalog takes the place of the one with
    its provider id, an overlay is merged over its provider's catalog (`catalog validate FILE…` reads files
    this way, `load_with_user` the user's folder)."""
    gpus = gpus or default_gpu_reference()
    files = list(files)
    providers: dict[str, ProviderCatalog] = {c.provider.id: c for c in base.providers}
    order = [c.provider.id for c in base.providers]
    errors = list(base.errors)
    overlays: list[tuple[Path, OverlayFile, str]] = []
    for path in files:
        try:
            text = _toml.read_text(path)
            raw = _toml.parse(text, path)
        except CatalogFileError as exc:
            errors.append(exc)
            continue
        if is_overlay(raw):
            overlay, problems = parse_overlay_text(text, path)
            errors.extend(problems)
            if overlay is not None:
                overlays.append((path, overlay, text))
            continue
        catalog, problems = parse_catalog_text(text, path, gpus)
        errors.extend(problems)
        if catalog is not None:
            if catalog.provider.id not in providers:
                order.append(catalog.provider.id)
            providers[catalog.provider.id] = catalog
    for path, overlay, text in overlays:
        base_catalog = providers.get(overlay.provider)
        base_raw = raw_catalog(base_catalog) if base_catalog is not None else None
        merged, problems = merge_overlay(base_catalog, base_raw, overlay, path, text)
        errors.extend(problems)
        if merged is not None:
            if overlay.provider not in providers:
                order.append(overlay.provider)
            providers[overlay.provider] = merged
    return CatalogSet(tuple(providers[p] for p in order), tuple(errors), (*base.files, *files))
