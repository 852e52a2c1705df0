"""The acceptance readers' errors live in the engine's one tree (`probes.errors`): `AcceptError`, `ReadError`,
`ReportFormatError`, `Unavailable`. Re-exported here for `probes.accept`'s modules."""

from __future__ import annotations

from probes.errors import AcceptError, ReadError, ReportFormatError, Unavailable

__all__ = ["AcceptError", "ReadError", "ReportFormatError", "Unavailable"]
