"""Load provider catalogs: read each TOML file, validate it, check ids and references across it, and report
every problem with file, line, field and what was expected. A broken file is reported and skipped; the
others still load.
"""

from __future__ import annotations

import difflib
import re
import types
import typing
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from catalogs import _toml
from catalogs._toml_lines import LineFinder
from catalogs.errors import (
    CatalogFileError,
    DanglingReferenceError,
    DuplicateIdError,
    FormatVersionError,
    SchemaError,
    TomlSyntaxError,
    UnknownGpuError,
)
from catalogs.gpus import GpuReference, default_gpu_reference
from catalogs.schema import FORMAT_VERSION, CatalogFile, Offering, Provider, Region, Service

BUNDLED_PROVIDERS_DIR = Path(__file__).with_name("providers")

_EXPECTED_BY_TYPE = {
    "missing": "this field to be present",
    "int_type": "a whole number",
    "int_parsing": "a whole number",
    "int_from_float": "a whole number",
    "float_type": "a number",
    "float_parsing": "a number",
    "string_type": "text in quotes",
    "bool_type": "true or false",
    "bool_parsing": "true or false",
    "list_type": "a list [ … ]",
    "tuple_type": "a list [ … ]",
    "model_type": "a table",
    "dict_type": "a table",
    "string_pattern_mismatch": "text matching {pattern}",
    "string_too_short": "non-empty text",
    "greater_than": "a number greater than {gt}",
    "greater_than_equal": "a number of at least {ge}",
    "less_than_equal": "a number of at most {le}",
    "less_than": "a number less than {lt}",
    "literal_error": "one of {expected}",
}


@dataclass(frozen=True)
class ProviderCatalog:
    """One provider's validated catalog, with the file it came from."""

    path: Path | None
    data: CatalogFile

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


def _model_at(loc: tuple[str | int, ...], root: type[BaseModel] = CatalogFile) -> type[BaseModel] | None:
    """The pydantic model class that holds the last key of `loc` (for "did you mean" hints)."""
    model: type[BaseModel] = root
    for part in loc[:-1]:
        if isinstance(part, int):
            continue
        info = model.model_fields.get(part)
        if info is None:
            return None
        found = None
        stack: list[Any] = [info.annotation]
        while stack:
            annotation = stack.pop()
            if isinstance(annotation, type) and issubclass(annotation, BaseModel):
                found = annotation
                break
            origin = typing.get_origin(annotation)
            if origin is not None or isinstance(annotation, types.UnionType):
                stack.extend(typing.get_args(annotation))
        if found is None:
            return None
        model = found
    return model


def _field_name(loc: tuple[str | int, ...]) -> str:
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def _owner_label(raw: Any, loc: tuple[str | int, ...]) -> str:
    """' in offering "p5.48xlarge"' for a loc inside the 4th offering, when the raw data has its id."""
    if len(loc) >= 2 and loc[0] in ("offerings", "regions") and isinstance(loc[1], int):
        try:
            item = raw[loc[0]][loc[1]]
        except (KeyError, IndexError, TypeError):
            return ""
        if isinstance(item, dict) and isinstance(item.get("id"), str):
            kind = "offering" if loc[0] == "offerings" else "region"
            return f" (in {kind} {item['id']!r})"
    return ""


def translate_validation_error(
    exc: ValidationError,
    path: Path | None,
    raw: Any,
    lines: Callable[[tuple[str | int, ...]], int | None],
    root: type[BaseModel] = CatalogFile,
    error_class: type[CatalogFileError] = SchemaError,
) -> list[CatalogFileError]:
    """pydantic's errors as ours: one per problem, each with file, line, field and what was expected."""
    errors: list[CatalogFileError] = []
    for error in exc.errors():
        loc = tuple(error["loc"])
        ctx = error.get("ctx") or {}
        kind = error["type"]
        expected: str | None
        if kind == "implausible":
            message, expected = str(ctx["message"]), str(ctx["expected"])
        elif kind == "extra_forbidden":
            model = _model_at(loc, root)
            known = sorted(model.model_fields) if model else []
            close = difflib.get_close_matches(str(loc[-1]), known, n=1)
            message = f"unknown field {loc[-1]!r}" + (f" (did you mean {close[0]!r}?)" if close else "")
            expected = "one of " + ", ".join(k for k in known if k != "facts") if known else None
        else:
            message = error["msg"]
            template = _EXPECTED_BY_TYPE.get(kind)
            try:
                expected = template.format(**ctx) if template else None
            except (KeyError, IndexError):
                expected = template
        if (
            kind not in ("missing", "extra_forbidden")
            and "input" in error
            and not isinstance(error["input"], dict | list)
        ):
            message += f", got {error['input']!r}"
        errors.append(
            error_class(
                message + _owner_label(raw, loc),
                path=path,
                line=lines(loc),
                field=_field_name(loc),
                expected=expected,
            )
        )
    return errors


def _check_references(
    data: CatalogFile,
    path: Path | None,
    lines: Callable[[tuple[str | int, ...]], int | None],
    gpus: GpuReference,
) -> list[CatalogFileError]:
    """Duplicate ids, regions an offering names but the provider does not define, unknown GPU models."""
    errors: list[CatalogFileError] = []
    first_region: dict[str, int] = {}
    for i, region in enumerate(data.regions):
        if region.id in first_region:
            errors.append(
                DuplicateIdError(
                    f"region id {region.id!r} is already used by regions[{first_region[region.id]}]",
                    path=path,
                    line=lines(("regions", i, "id")),
                    field=f"regions[{i}].id",
                    expected="a region id not used before in this file",
                )
            )
        else:
            first_region[region.id] = i
    first_offering: dict[str, int] = {}
    for i, offering in enumerate(data.offerings):
        if offering.id in first_offering:
            errors.append(
                DuplicateIdError(
                    f"offering id {offering.id!r} is already used by "
                    f"offerings[{first_offering[offering.id]}]",
                    path=path,
                    line=lines(("offerings", i, "id")),
                    field=f"offerings[{i}].id",
                    expected="an offering id not used before in this file",
                )
            )
        else:
            first_offering[offering.id] = i
        defined = ", ".join(sorted(first_region)) or "none defined"
        for j, region_id in enumerate(offering.regions):
            if region_id not in first_region:
                errors.append(
                    DanglingReferenceError(
                        f"offering {offering.id!r} is offered in region {region_id!r}, which this provider "
                        "does not define",
                        path=path,
                        line=lines(("offerings", i, "regions", j)),
                        field=f"offerings[{i}].regions[{j}]",
                        expected=f"a region id defined under [[regions]] ({defined})",
                    )
                )
        for j, price in enumerate(offering.prices):
            if price.region is not None and price.region not in offering.regions:
                errors.append(
                    DanglingReferenceError(
                        f"a price of offering {offering.id!r} is for region {price.region!r}, where the "
                        "offering is not listed",
                        path=path,
                        line=lines(("offerings", i, "prices", j, "region")),
                        field=f"offerings[{i}].prices[{j}].region",
                        expected="one of the offering's regions: " + (", ".join(offering.regions) or "none"),
                    )
                )
        if offering.gpu is not None:
            try:
                gpus.resolve(offering.gpu, offering.gpu_memory_gb)
            except UnknownGpuError as exc:
                errors.append(
                    UnknownGpuError(
                        exc.message + f" (in offering {offering.id!r})",
                        path=path,
                        line=lines(("offerings", i, "gpu")),
                        field=f"offerings[{i}].gpu",
                        expected=exc.expected,
                    )
                )
    return errors


def toml_error_position(exc: ValueError) -> tuple[str, int | None]:
    """tomllib's message without its "(at line N, column M)" tail, and N."""
    text = str(exc)
    match = re.search(r"\s*\(at line (\d+), column \d+\)\s*$", text)
    if match:
        return text[: match.start()], int(match.group(1))
    if text.endswith("(at end of document)"):
        return text.removesuffix("(at end of document)").strip() + " at the end of the file", None
    return text, None


class _LazyLines:
    """A `LineFinder` built on first use: valid files (the common case) never pay for the line index."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._finder: LineFinder | None = None

    def __call__(self, loc: tuple[str | int, ...]) -> int | None:
        if self._finder is None:
            self._finder = LineFinder(self._text)
        return self._finder(loc)


def parse_catalog_text(
    text: str, path: Path | None = None, gpus: GpuReference | None = None
) -> tuple[ProviderCatalog | None, list[CatalogFileError]]:
    """Validate one catalog's TOML text. Returns the catalog (or None) and every problem found."""
    gpus = gpus or default_gpu_reference()
    try:
        raw = _toml.loads(text)
    except _toml.TOMLDecodeError as exc:
        message, line = toml_error_position(exc)
        return None, [
            TomlSyntaxError(f"not valid TOML: {message}", path=path, line=line, expected="TOML syntax")
        ]
    lines = _LazyLines(text)
    version = raw.get("format_version")
    if version is None:
        return None, [
            FormatVersionError(
                "the file does not say its format version",
                path=path,
                line=1,
                field="format_version",
                expected=f"format_version = {FORMAT_VERSION} as the first line",
            )
        ]
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        return None, [
            FormatVersionError(
                f"format_version {version!r} is not a version number",
                path=path,
                line=lines(("format_version",)),
                field="format_version",
                expected=f"format_version = {FORMAT_VERSION}",
            )
        ]
    if version > FORMAT_VERSION:
        return None, [
            FormatVersionError(
                f"format_version {version} is newer than this linkvet understands (up to {FORMAT_VERSION}); "
                "update linkvet",
                path=path,
                line=lines(("format_version",)),
                field="format_version",
                expected=f"format_version = {FORMAT_VERSION}",
            )
        ]
    try:
        data = CatalogFile.model_validate(raw)
    except ValidationError as exc:
        return None, translate_validation_error(exc, path, raw, lines)
    errors = _check_references(data, path, lines, gpus)
    if errors:
        return None, errors
    return ProviderCatalog(path, data), []


def load_catalog_file(
    path: Path, gpus: GpuReference | None = None
) -> tuple[ProviderCatalog | None, list[CatalogFileError]]:
    """Read and validate one catalog file."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        return None, [
            TomlSyntaxError(
                f"not UTF-8 text ({exc.reason} at byte {exc.start})", path=path, expected="a UTF-8 TOML file"
            )
        ]
    except OSError as exc:
        return None, [CatalogFileError(f"cannot read the file: {exc.strerror or exc}", path=path)]
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
            errors.append(CatalogFileError("no such file or directory", path=path))
            continue
        catalog, problems = load_catalog_file(path, gpus)
        errors.extend(problems)
        if catalog is None:
            continue
        provider_id = catalog.provider.id
        if provider_id in seen:
            text = path.read_text(encoding="utf-8")
            errors.append(
                DuplicateIdError(
                    f"provider id {provider_id!r} is already defined in {seen[provider_id]}; "
                    "this file was not loaded",
                    path=path,
                    line=LineFinder(text)(("provider", "id")),
                    field="provider.id",
                    expected="a provider id used by one file only",
                )
            )
            continue
        seen[provider_id] = path
        providers.append(catalog)
    return CatalogSet(tuple(providers), tuple(errors), tuple(files))
