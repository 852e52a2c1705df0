"""`linkvet catalog import-skypilot`: a SkyPilot-format CSV into a provider catalog file, checked by the loader
before it is written (atomically, `desktop.usecases.files`). `--out` names a folder (the catalog is written
there as PROVIDER.toml; the folder is made when missing), or the file to write (a `.toml` name, or any file
that exists); a path through a file is refused before anything is read, an existing file is replaced only
with `--force`, and a write the system refuses (a full disk) says so without leaving half a file."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from catalogs.i18n import clauses
from catalogs.loader import ProviderCatalog, parse_catalog_text
from catalogs.skypilot import ImportResult, catalog_to_toml, import_skypilot_csv
from desktop.i18n import _
from desktop.usecases.errors import InputError
from desktop.usecases.files import write_text


@dataclass(frozen=True)
class SkyPilotWritten:
    target: Path
    result: ImportResult
    catalog: ProviderCatalog


def _blocking_file(path: Path) -> Path | None:
    """The first existing non-folder on the way to `path` (so `path` cannot be made), if any."""
    for parent in [*reversed(path.parents)]:
        if parent.exists() and not parent.is_dir():
            return parent
    return None


def _names_a_file(out: Path) -> bool:
    return out.suffix.lower() == ".toml" or (out.exists() and not out.is_dir())


def target_for(out: Path, provider_id: str) -> Path:
    """Where the catalog goes: `out` itself when it names a file, else PROVIDER.toml inside `out`."""
    return out if _names_a_file(out) else out / f"{provider_id}.toml"


def check_out(out: Path) -> None:
    blocked = _blocking_file(out if _names_a_file(out) else out / "x")
    if blocked is not None:
        raise InputError(_("--out {out}: {file} is a file, not a folder").format(out=out, file=blocked))


def import_to_file(
    csv_path: Path,
    out: Path,
    *,
    provider_id: str | None = None,
    provider_name: str | None = None,
    source: str | None = None,
    as_of: str | None = None,
    strict: bool = False,
    force: bool = False,
) -> SkyPilotWritten:
    """Import the CSV and write the catalog; `InputError` for an unusable `--out`, `WriteError` when the
    file cannot be written, the catalogs' own errors for the CSV."""
    check_out(out)
    result = import_skypilot_csv(
        csv_path,
        provider_id=provider_id,
        provider_name=provider_name,
        source=source,
        as_of=as_of,
        strict=strict,
    )
    provider = result.catalog["provider"]
    header = (
        f"{provider['name']}: imported from {csv_path.name} by `linkvet catalog import-skypilot`.\n"
        "Facts the CSV does not state are left out (unknown). Add what you know, each with source and as_of."
    )
    text = catalog_to_toml(result.catalog, header)
    catalog, problems = parse_catalog_text(text)
    if catalog is None:
        raise InputError(
            _("the imported catalog does not validate: {problems}").format(
                problems=clauses(str(p) for p in problems)
            )
        )
    target = target_for(out, provider["id"])
    if target.exists() and not force:
        raise InputError(_("{file} exists; use --force to overwrite it").format(file=target))
    write_text(target, text)
    return SkyPilotWritten(target, result, catalog)
