"""The probe list: the targets the user has chosen (typed in, taken from a catalog region, imported from a
plan file), each with its labels and whether it takes part in the next run, kept in a small versioned JSON
file in the data folder; and the list run as a plan (`probes.schedule.plan_writer`).

`ProbeListFile` reads and writes the list; a file it cannot read is kept aside (renamed `.unreadable`),
never overwritten silently.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from desktop.i18n import _
from desktop.usecases.errors import ProbeListError
from probes.errors import TargetError
from probes.target import Target

if TYPE_CHECKING:  # the plan modules and the catalogs (pydantic) load on first use, not with the probe list
    from catalogs.loader import CatalogSet
    from probes.peak import PeakWindow
    from probes.schedule.plan import Plan

PROBE_LIST_VERSION = 1
ORIGIN_CUSTOM = "custom"


@dataclass(frozen=True, slots=True)
class TargetEntry:
    """A target on the probe list: where it came from ("custom", "catalog", "plan:NAME") and if it is on."""

    target: Target
    origin: str = ORIGIN_CUSTOM
    enabled: bool = True

    @property
    def address(self) -> str:
        t = self.target
        if t.url:
            return t.url
        return f"{t.host}:{t.port}" if t.port else str(t.host)

    def as_dict(self) -> dict[str, Any]:
        return {**self.target.as_dict(), "origin": self.origin, "enabled": self.enabled}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TargetEntry:
        target = Target.from_dict(data)
        origin, enabled = data.get("origin") or ORIGIN_CUSTOM, data.get("enabled", True)
        if not isinstance(origin, str) or not isinstance(enabled, bool):
            raise TargetError(
                _("origin must be text and enabled true or false, got {origin!r} and {enabled!r}").format(
                    origin=origin, enabled=enabled
                )
            )
        return cls(target, origin, enabled)


class ProbeListFile:
    """The probe list on disk (JSON with a version)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def load(self) -> list[TargetEntry]:
        """The saved entries; [] when there is no file yet. Raises `ProbeListError` for a bad file."""
        from probes.files import inputfile

        def error(message: str, line: int | None) -> ProbeListError:
            where = self.path if line is None else f"{self.path}:{line}"
            return ProbeListError(f"{where}: {message}")

        if not self.path.exists() and not self.path.is_symlink():
            return []
        data = inputfile.parse_json(inputfile.read_text(self.path, error), error)
        if not isinstance(data, dict) or not isinstance(data.get("targets"), list):
            raise ProbeListError(_("{file}: expected an object with a 'targets' list").format(file=self.path))
        version = data.get("version")
        if not isinstance(version, int) or isinstance(version, bool) or version < 1:
            raise ProbeListError(
                _("{file}: probe-list version {version!r} is not a version number").format(
                    file=self.path, version=version
                )
            )
        if version > PROBE_LIST_VERSION:
            raise ProbeListError(
                _(
                    "{file}: probe-list version {version!r} is newer than this linkvet understands (up to {known})"
                ).format(file=self.path, version=version, known=PROBE_LIST_VERSION)
            )
        entries = []
        for number, item in enumerate(data["targets"], start=1):
            try:
                entries.append(TargetEntry.from_dict(item))
            except (TargetError, KeyError, TypeError, ValueError) as exc:
                raise ProbeListError(
                    _("{file}: target {number}: {reason}").format(file=self.path, number=number, reason=exc)
                ) from exc
        return entries

    def save(self, entries: Iterable[TargetEntry]) -> None:
        """Write atomically (temporary file, then rename)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        payload = {"version": PROBE_LIST_VERSION, "targets": [e.as_dict() for e in entries]}
        temporary = self.path.with_suffix(".tmp")
        temporary.write_text(json.dumps(payload, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        os.replace(temporary, self.path)

    def set_aside(self) -> Path:
        """Move an unreadable file out of the way so a new list can be saved; where it went."""
        aside = self.path.with_suffix(".unreadable")
        os.replace(self.path, aside)
        return aside


def entries_from_plan(path: Path) -> tuple[Plan, list[TargetEntry]]:
    """The plan at `path` and its targets as probe-list entries (raises `PlanError` naming file and line)."""
    from probes.schedule.plan import load_plan

    plan = load_plan(path)
    return plan, [TargetEntry(p.target, origin=f"plan:{plan.name}") for p in plan.targets]


def entries_from_region(
    catalogs: CatalogSet, provider_id: str, region_id: str
) -> tuple[list[TargetEntry], list[str]]:
    """A catalog region's probe endpoints as probe-list entries (origin "catalog"), and the endpoints that
    could not be used (`desktop.usecases.offerings.region_targets`)."""
    from desktop.usecases.offerings import region_targets

    targets, problems = region_targets(catalogs, provider_id, region_id)
    return [TargetEntry(t, origin="catalog") for t in targets], problems


def save_as_plan(
    entries: Sequence[TargetEntry],
    path: Path,
    *,
    every_s: float,
    peak_every_s: float,
    peak_windows: Sequence[PeakWindow],
    options: dict[str, Any],
    name: str | None = None,
) -> Plan:
    """Write the switched-on `entries` as a plan file at `path` (named `name`, default the file's stem) and
    return it as the scheduler reads it. `options` are the Probe screen's saved options (`count`, 0 or absent
    for 10, `interval_s`, `timeout_s`). Raises `PlanError` for what the scheduler would refuse and `OSError`
    when the file cannot be written."""
    from probes.schedule.plan_writer import plan_text, write_plan

    text = plan_text(
        [e.target for e in entries if e.enabled],
        name=name or path.stem,
        every_s=every_s,
        peak_every_s=peak_every_s,
        peak_windows=peak_windows,
        count=int(options.get("count") or 10),
        interval_s=float(options.get("interval_s", 1.0)),
        timeout_s=float(options.get("timeout_s", 2.0)),
    )
    return write_plan(path, text)
