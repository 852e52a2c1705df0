"""Errors the use-cases raise themselves. Errors from `probes` and `catalogs` pass through unchanged; each face
words all of them in one place (the CLI's exit-code table in `desktop.cli.errors`, the app's
`desktop.app.errors.error_text`).

    UsecaseError            root of the errors below
    ├── InputError          a file or value a use-case cannot use (names it, says what was expected)
    │   └── ProbeListError  the app's probe-list file cannot be read (names the file and the entry)
    └── WriteError          a result could not be written (names the file and the system's reason)
"""

from __future__ import annotations


class UsecaseError(Exception):
    """Base class of the errors the use-cases raise themselves."""


class InputError(UsecaseError):
    """A file or value a use-case cannot use; the message names it and what was expected."""


class ProbeListError(InputError):
    """The probe-list file cannot be used; the message names the file and the entry."""


class WriteError(UsecaseError):
    """A result (a workbook, csv files) could not be written; the message names the file and the reason."""
