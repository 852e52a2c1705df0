"""Errors raised by the acceptance readers (`probes.accept`).

A fact that cannot be read at all (no nvidia-smi, no /sys/class/infiniband, permission denied) is not an
error: the reader says "not read" and why, and the report goes on. Errors are for input that is there but
wrong, and for a report file that cannot be used::

    ProbesError
    └── AcceptError
        ├── ReadError          a recorded or live output is malformed, truncated or too large: names the
        │                      file, the line and what was expected
        └── ReportFormatError  an acceptance report JSON of another format, or a newer version
"""

from __future__ import annotations

from probes.errors import ProbesError


class AcceptError(ProbesError):
    """Base class of the acceptance readers' errors."""


class ReadError(AcceptError):
    """An output that is there but cannot be understood. `str()` is `FILE:LINE: message (expected …)`."""

    def __init__(
        self, path: str, message: str, *, line: int | None = None, expected: str | None = None
    ) -> None:
        self.path = path
        self.line = line
        self.reason = message
        self.expected = expected
        where = path if line is None else f"{path}:{line}"
        tail = f" (expected {expected})" if expected else ""
        super().__init__(f"{where}: {message}{tail}")


class ReportFormatError(AcceptError):
    """An acceptance report that is not one, or is newer than this linkvet understands."""
