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

With a PostgreSQL store the team's facts (`catalogs.team`, kept in the store) are put over the folder's, so
every office ranks on the same facts; `TeamFacts` carries them in, read by the use-case that loads catalogs
(`desktop.usecases.offerings.load_catalog_set`).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import platformdirs

from catalogs import _toml
from catalogs.errors import CatalogFileError
from catalogs.gpus import GpuReference, default_gpu_reference
from catalogs.i18n import _
from catalogs.loader import CatalogSet, ProviderCatalog, catalog_files, load_catalogs, parse_catalog_text
from catalogs.overlay import OverlayFile, is_overlay, merge_overlay, parse_overlay_text
from catalogs.team import combined

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


@dataclass(frozen=True)
class TeamFacts:
    """A team's overlays read from its store (`catalogs.team.team_overlays`), by provider, and what names
    the store in each fact's provenance (`label`)."""

    label: str
    overlays: Mapping[str, OverlayFile]


def load_with_user(
    paths: Iterable[Path] | Path | None = None,
    user_dir: Path | None = None,
    *,
    include_user: bool = True,
    gpus: GpuReference | None = None,
    team: TeamFacts | None = None,
) -> CatalogSet:
    """The catalogs at `paths` (default: the bundled ones) with the user's catalogs merged over them, and a
    team's facts from its store over those (`team`, with a PostgreSQL store)."""
    gpus = gpus or default_gpu_reference()
    base = load_catalogs(paths, gpus)
    if not include_user:
        return base
    folder = user_dir if user_dir is not None else user_catalog_dir()
    files = catalog_files([folder]) if folder.is_dir() else []
    if not files and team is None:
        return base
    return with_files(base, files, gpus, team=team)


def with_files(
    base: CatalogSet,
    files: Iterable[Path],
    gpus: GpuReference | None = None,
    *,
    team: TeamFacts | None = None,
) -> CatalogSet:
    """`base` with catalog files and overlays put over it: a whole catalog takes the place of the one with
    its provider id, an overlay is merged over its provider's catalog (`catalog validate FILE…` reads files
    this way, `load_with_user` the user's folder); a team's facts are put over its provider's overlay by key
    (`catalogs.team.combined`) and merged with it, each fact naming where it was written."""
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
    merging: list[tuple[Path | None, OverlayFile, str, dict[str, str] | None]] = [
        (path, overlay, text, None) for path, overlay, text in overlays
    ]
    if team is not None:
        merging = _with_team(merging, team)
    for overlay_file, overlay, text, written in merging:
        base_catalog = providers.get(overlay.provider)
        base_raw = raw_catalog(base_catalog) if base_catalog is not None else None
        label = team.label if team is not None and written is not None else None
        merged, problems = merge_overlay(
            base_catalog, base_raw, overlay, overlay_file, text, files=written, team=label
        )
        if label is not None and written is not None:
            problems = [_in_team(e, label, overlay.provider, written) for e in problems]
        errors.extend(problems)
        if merged is not None:
            if overlay.provider not in providers:
                order.append(overlay.provider)
            providers[overlay.provider] = merged
    return CatalogSet(tuple(providers[p] for p in order), tuple(errors), (*base.files, *files))


def _with_team(
    merging: list[tuple[Path | None, OverlayFile, str, dict[str, str] | None]], team: TeamFacts
) -> list[tuple[Path | None, OverlayFile, str, dict[str, str] | None]]:
    """Each provider's folder overlay with the team's facts put over it (a provider only the team knows:
    the team's overlay alone); `written` maps the keys whose fact is the team's to the store."""
    out = list(merging)
    for provider, facts in team.overlays.items():
        if not facts.facts and not facts.checks:
            continue
        at = next((i for i in range(len(out) - 1, -1, -1) if out[i][1].provider == provider), None)
        folder = out[at] if at is not None else None
        overlay = combined(folder[1] if folder is not None else None, facts)
        written = {
            f.key: team.label
            for f in overlay.facts
            if (mine := facts.fact(f.key)) is not None and mine.same_as(f)
        }
        entry = (
            (folder[0], overlay, folder[2], written) if folder is not None else (None, overlay, "", written)
        )
        if at is None:
            out.append(entry)
        else:
            out[at] = entry
    return out


def _in_team(
    error: CatalogFileError, label: str, provider: str, written: Mapping[str, str]
) -> CatalogFileError:
    """A problem of the team's facts, naming the store (it has no file or line); one of the folder's own
    facts stays as it is."""
    if error.path is not None and (error.field or "") not in written:
        return error
    what = f"{error.field}: {error.message}" if error.field else error.message
    message = _("{store}, the team's facts of {provider}: {message}").format(
        store=label, provider=provider, message=what
    )
    return type(error)(message, expected=error.expected)
