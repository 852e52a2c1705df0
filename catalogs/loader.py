"""Load provider catalogs: read each TOML file, validate it, check ids and references across it, and report
every problem with file, line, field and what was expected. A broken file is reported and skipped; the
others still load.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from catalogs import _toml
from catalogs.errors import (
    CatalogFileError,
    DanglingReferenceError,
    DuplicateIdError,
    FormatVersionError,
    TomlSyntaxError,
    UnknownGpuError,
)
from catalogs.gpus import GpuReference, default_gpu_reference
from catalogs.i18n import _
from catalogs.schema import FORMAT_VERSION, CatalogFile, Offering, Provider, Region, Service

BUNDLED_PROVIDERS_DIR = Path(__file__).with_name("providers")


@dataclass(frozen=True)
class ProviderCatalog:
    """One provider's validated catalog, with the file it came from; with a user overlay merged over it
    (`catalogs.overlay`), the overlay's file too and the acceptance checks imported into it; with a team's
    facts from its store (`catalogs.team`), which store."""

    path: Path | None
    data: CatalogFile
    overlay: Path | None = None
    checks: tuple[dict[str, Any], ...] = ()
    team: str | None = None  # the team store whose facts are merged in too (`catalogs.team`), as shown

    @property
    def provider(self) -> Provider:
        return self.data.provider

    @property
    def service(self) -> Service | None:
        return self.data.service

    @property
    def regions(self) -> tuple[Region, ...]:
        return self.data.regions

    @property
    def offerings(self) -> tuple[Offering, ...]:
        return self.data.offerings

    def region(self, region_id: str) -> Region | None:
        return next((r for r in self.data.regions if r.id == region_id), None)


@dataclass(frozen=True)
class CatalogSet:
    """Everything that loaded, and everything that did not (with why)."""

    providers: tuple[ProviderCatalog, ...] = ()
    errors: tuple[CatalogFileError, ...] = ()
    files: tuple[Path, ...] = field(default=())

    @property
    def ok(self) -> bool:
        return not self.errors

    def provider(self, provider_id: str) -> ProviderCatalog | None:
        return next((p for p in self.providers if p.provider.id == provider_id), None)

    def offerings(self) -> Iterator[tuple[ProviderCatalog, Offering]]:
        for catalog in self.providers:
            for offering in catalog.offerings:
                yield catalog, offering


def check_references(
    data: CatalogFile,
    path: Path | None,
    lines: Callable[[tuple[str | int, ...]], int | None],
    gpus: GpuReference | None = None,
) -> list[CatalogFileError]:
    """Duplicate ids, regions an offering names but the provider does not define, unknown GPU models."""
    gpus = gpus or default_gpu_reference()
    errors: list[CatalogFileError] = []
    first_region: dict[str, int] = {}
    for i, region in enumerate(data.regions):
        if region.id in first_region:
            errors.append(
                DuplicateIdError(
                    _("region id {id!r} is already used by regions[{index}]").format(
                        id=region.id, index=first_region[region.id]
                    ),
                    path=path,
                    line=lines(("regions", i, "id")),
                    field=f"regions[{i}].id",
                    expected=_("a region id not used before in this file"),
                )
            )
        else:
            first_region[region.id] = i
    first_offering: dict[str, int] = {}
    for i, offering in enumerate(data.offerings):
        if offering.id in first_offering:
            errors.append(
                DuplicateIdError(
                    _("offering id {id!r} is already used by offerings[{index}]").format(
                        id=offering.id, index=first_offering[offering.id]
                    ),
                    path=path,
                    line=lines(("offerings", i, "id")),
                    field=f"offerings[{i}].id",
                    expected=_("an offering id not used before in this file"),
                )
            )
        else:
            first_offering[offering.id] = i
        defined = ", ".join(sorted(first_region))
        for j, region_id in enumerate(offering.regions):
            if region_id not in first_region:
                errors.append(
                    DanglingReferenceError(
                        _(
                            "offering {id!r} is offered in region {region!r}, which this provider does not define"
                        ).format(id=offering.id, region=region_id),
                        path=path,
                        line=lines(("offerings", i, "regions", j)),
                        field=f"offerings[{i}].regions[{j}]",
                        expected=_("a region id defined under [[regions]] ({defined})").format(
                            defined=defined
                        )
                        if defined
                        else _("a region id defined under [[regions]] (none is defined)"),
                    )
                )
        for j, price in enumerate(offering.prices):
            if price.region is not None and price.region not in offering.regions:
                errors.append(
                    DanglingReferenceError(
                        _(
                            "a price of offering {id!r} is for region {region!r}, where the offering is not listed"
                        ).format(id=offering.id, region=price.region),
                        path=path,
                        line=lines(("offerings", i, "prices", j, "region")),
                        field=f"offerings[{i}].prices[{j}].region",
                        expected=_("one of the offering's regions: {regions}").format(
                            regions=", ".join(offering.regions)
                        )
                        if offering.regions
                        else _("no region: the offering lists none"),
                    )
                )
        if offering.gpu is not None:
            try:
                gpus.resolve(offering.gpu, offering.gpu_memory_gb)
            except UnknownGpuError as exc:
                errors.append(
                    UnknownGpuError(
                        _("{problem} (in offering {id!r})").format(problem=exc.message, id=offering.id),
                        path=path,
                        line=lines(("offerings", i, "gpu")),
                        field=f"offerings[{i}].gpu",
                        expected=exc.expected,
                    )
                )
    return errors


def parse_catalog_text(
    text: str, path: Path | None = None, gpus: GpuReference | None = None
) -> tuple[ProviderCatalog | None, list[CatalogFileError]]:
    """Validate one catalog's TOML text. Returns the catalog (or None) and every problem found."""
    gpus = gpus or default_gpu_reference()
    try:
        raw = _toml.parse(text, path)
    except TomlSyntaxError as exc:
        return None, [exc]
    lines = _toml.LazyLines(text)
    version = raw.get("format_version")
    if version is None:
        return None, [
            FormatVersionError(
                _("the file does not say its format version"),
                path=path,
                line=1,
                field="format_version",
                expected=_("format_version = {version} as the first line").format(version=FORMAT_VERSION),
            )
        ]
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        return None, [
            FormatVersionError(
                _("format_version {version!r} is not a version number").format(version=version),
                path=path,
                line=lines(("format_version",)),
                field="format_version",
                expected=f"format_version = {FORMAT_VERSION}",
            )
        ]
    if version > FORMAT_VERSION:
        return None, [
            FormatVersionError(
                _(
                    "format_version {version} is newer than this linkvet understands (up to {known}); update linkvet"
                ).format(version=version, known=FORMAT_VERSION),
                path=path,
                line=lines(("format_version",)),
                field="format_version",
                expected=f"format_version = {FORMAT_VERSION}",
            )
        ]
    try:
        data = CatalogFile.model_validate(raw)
    except ValidationError as exc:
        return None, _toml.validation_errors(exc, path, raw, lines, CatalogFile)
    errors = check_references(data, path, lines, gpus)
    if errors:
        return None, errors
    return ProviderCatalog(path, data), []


def load_catalog_file(
    path: Path, gpus: GpuReference | None = None
) -> tuple[ProviderCatalog | None, list[CatalogFileError]]:
    """Read and validate one catalog file."""
    try:
        text = _toml.read_text(path)
    except CatalogFileError as exc:
        return None, [exc]
    return parse_catalog_text(text, path, gpus)


def catalog_files(paths: Iterable[Path]) -> list[Path]:
    """The `.toml` files named by `paths` (directories are searched one level deep, sorted by name)."""
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            files.extend(sorted(p for p in path.glob("*.toml") if p.is_file()))
        else:
            files.append(path)
    return files


def load_catalogs(paths: Iterable[Path] | Path | None = None, gpus: GpuReference | None = None) -> CatalogSet:
    """Load every catalog under `paths` (default: the bundled ones). Never raises for bad files: each
    problem is in `errors` and the good files are in `providers`. Two files with the same provider id: the
    first (in path order) loads, the second is reported."""
    if paths is None:
        paths = [BUNDLED_PROVIDERS_DIR]
    elif isinstance(paths, Path):
        paths = [paths]
    gpus = gpus or default_gpu_reference()
    files = catalog_files(paths)
    providers: list[ProviderCatalog] = []
    errors: list[CatalogFileError] = []
    seen: dict[str, Path | None] = {}
    for path in files:
        if not path.exists():
            errors.append(CatalogFileError(_("no such file or folder"), path=path))
            continue
        catalog, problems = load_catalog_file(path, gpus)
        errors.extend(problems)
        if catalog is None:
            continue
        provider_id = catalog.provider.id
        if provider_id in seen:
            text = _toml.read_text(path)
            errors.append(
                DuplicateIdError(
                    _("provider id {id!r} is already defined in {file}; this file was not loaded").format(
                        id=provider_id, file=seen[provider_id]
                    ),
                    path=path,
                    line=_toml.LineFinder(text)(("provider", "id")),
                    field="provider.id",
                    expected=_("a provider id used by one file only"),
                )
            )
            continue
        seen[provider_id] = path
        providers.append(catalog)
    return CatalogSet(tuple(providers), tuple(errors), tuple(files))
