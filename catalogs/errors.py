"""Errors raised by `catalogs`.

The tree (every error here derives from `CatalogError`)::

    CatalogError
    ├── CatalogFileError          a data file we read is wrong; names file, line, field, what was expected
    │   ├── TomlSyntaxError       not valid TOML at all (or not UTF-8 text)
    │   ├── FormatVersionError    `format_version` missing, or newer than this linkvet understands
    │   ├── SchemaError           a field is missing, of the wrong type, out of range, or a unit slip
    │   ├── DuplicateIdError      two providers, regions or offerings share an id
    │   ├── DanglingReferenceError an offering names a region its provider does not define
    │   ├── UnknownGpuError       a GPU model the GPU reference does not know
    │   ├── NeedsProfileError     a training-needs profile is invalid
    │   ├── ChecklistError        the checklist file is invalid or disagrees with the scoring code
    │   ├── EvaluationError       an evaluation (its file, or a change asked of it) cannot be used
    │   └── SkyPilotImportError   a SkyPilot CSV cannot be turned into a catalog
    │       └── SkyPilotRowError  one of its rows cannot be understood (skipped; with `strict`, fatal)
    ├── LinkSummaryError          a link-quality summary dict does not have the agreed shape
    ├── SizingError               the sizing inputs make no sense (e.g. tensor parallel 0)
    └── UnknownCriterionError     no checklist item (or ranked entry's judgement) has this id; also a KeyError

Foreign exceptions are translated into these in one place each: reading a file (OSError, UnicodeDecodeError),
parsing TOML (rtoml, tomllib) and validating it (pydantic) in `catalogs._toml`, which every reader uses;
the csv module's errors in the SkyPilot importer (`catalogs.skypilot`).
"""

from __future__ import annotations

from pathlib import Path

from catalogs.i18n import _


class CatalogError(Exception):
    """Base class of every error raised by `catalogs`."""


class CatalogFileError(CatalogError):
    """A data file is wrong. Carries where (file, line) and what (field, expected), for one-line reports."""

    def __init__(
        self,
        message: str,
        *,
        path: Path | str | None = None,
        line: int | None = None,
        field: str | None = None,
        expected: str | None = None,
    ) -> None:
        self.message = message
        self.path = Path(path) if path is not None else None
        self.line = line
        self.field = field
        self.expected = expected
        super().__init__(self.describe())

    def describe(self) -> str:
        """`FILE:LINE: field: message (expected …)`, leaving out the parts that are not known."""
        where = ""
        if self.path is not None:
            where = str(self.path)
            if self.line is not None:
                where += f":{self.line}"
            where += ": "
        what = f"{self.field}: " if self.field else ""
        if self.expected:
            text = _("{message} (expected {expected})").format(message=self.message, expected=self.expected)
        else:
            text = self.message
        return f"{where}{what}{text}"


class TomlSyntaxError(CatalogFileError):
    """The file is not valid TOML."""


class FormatVersionError(CatalogFileError):
    """`format_version` is missing or newer than this linkvet understands."""


class SchemaError(CatalogFileError):
    """A field is missing, has the wrong type, is out of range, or looks like a unit slip."""


class DuplicateIdError(CatalogFileError):
    """Two providers, regions or offerings share an id."""


class DanglingReferenceError(CatalogFileError):
    """An offering names a region that its provider does not define."""


class UnknownGpuError(CatalogFileError):
    """A GPU model the GPU reference does not know."""


class NeedsProfileError(CatalogFileError):
    """A training-needs profile is invalid."""


class ChecklistError(CatalogFileError):
    """The checklist is invalid or disagrees with the scoring code."""


class EvaluationError(CatalogFileError):
    """An evaluation document, or a change asked of an evaluation (a candidate twice, a bad endpoint)."""


class SkyPilotImportError(CatalogFileError):
    """A SkyPilot CSV cannot be turned into a catalog."""


class SkyPilotRowError(SkyPilotImportError):
    """A row of a SkyPilot CSV cannot be understood: skipped with this reason, or (with `strict`) the import
    is refused naming its line."""


class LinkSummaryError(CatalogError):
    """A link-quality summary does not have the agreed shape (`LinkSummary.from_dict` says which key)."""


class SizingError(CatalogError):
    """The sizing inputs make no sense."""


class UnknownCriterionError(CatalogError, KeyError):
    """No checklist item has this id (`Checklist.get`, `RankedOffering.judgement`). Also a `KeyError`, as a
    look-up by id is."""

    def __str__(self) -> str:
        return Exception.__str__(self)
