"""Errors of route classification.

RouteError                   base of everything raised by `probes.routes`
 └── NetworkTableError        a network table file is unreadable or invalid (names file, entry, field)
      └── NetworkTableVersionError   the file was written for a newer linkvet
"""

from __future__ import annotations

from pathlib import Path


class RouteError(Exception):
    """Base of the errors raised by `probes.routes`."""


class NetworkTableError(RouteError):
    """A network table file could not be read or holds an invalid entry."""

    def __init__(self, path: Path | str, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = Path(path)


class NetworkTableVersionError(NetworkTableError):
    """The table's `version` is newer than this linkvet understands."""
