"""The probe list and plan files: import a plan's targets, and write the probe list as a plan that
`linkvet schedule` (on this machine or an always-on office box) and the app's scheduler can run.

The writer emits the documented plan format (`probes.plan`) and every file it writes is read back with
`probes.plan.parse_plan` before it is saved, so what the app saves is exactly what the scheduler accepts.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path

from desktop.app.models.target_list import TargetEntry
from probes.peak import PeakWindow
from probes.plan import PLAN_VERSION, Plan, load_plan, parse_plan


def entries_from_plan(path: Path) -> tuple[Plan, list[TargetEntry]]:
    """The plan at `path` and its targets as probe-list entries (raises `PlanError` naming file and line)."""
    plan = load_plan(path)
    return plan, [TargetEntry(p.target, origin=f"plan:{plan.name}") for p in plan.targets]


def _string(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)  # a TOML basic string: JSON's escapes are TOML's


def _duration(seconds: float) -> str:
    if seconds % 3600 == 0:
        return f"{int(seconds // 3600)}h"
    if seconds % 60 == 0:
        return f"{int(seconds // 60)}m"
    return f"{seconds:g}s"


def plan_text(
    entries: Sequence[TargetEntry],
    *,
    name: str,
    every_s: float,
    peak_every_s: float,
    peak_windows: Sequence[PeakWindow],
    count: int = 10,
    interval_s: float = 1.0,
    timeout_s: float = 2.0,
    vantage: str | None = None,
) -> str:
    """A plan file (TOML) measuring `entries` on the given cadence."""
    lines = [
        "# Written by the linkvet desktop app from its probe list; run it with",
        f"#   linkvet schedule --plan {name}.toml",
        f"version = {PLAN_VERSION}",
        f"name = {_string(name)}",
    ]
    if vantage:
        lines.append(f"vantage = {_string(vantage)}")
    lines += [
        "",
        "[schedule]",
        f"every = {_string(_duration(every_s))}",
        f"peak_every = {_string(_duration(peak_every_s))}",
        "peak_windows = [" + ", ".join(_string(str(w)) for w in peak_windows) + "]",
        "",
        "[defaults]",
        f"count = {count}",
        f"interval = {interval_s:g}",
        f"timeout = {timeout_s:g}",
    ]
    for entry in entries:
        t = entry.target
        lines += ["", "[[targets]]", f"name = {_string(t.name)}"]
        lines.append(f"url = {_string(t.url)}" if t.url else f"host = {_string(str(t.host))}")
        lines.append(f"methods = [{_string(str(t.method))}]")
        if t.port is not None:
            lines.append(f"port = {t.port}")
        for label in ("provider", "region", "line_type"):
            value = getattr(t, label)
            if value:
                lines.append(f"{label} = {_string(value)}")
    return "\n".join(lines) + "\n"


def save_plan(path: Path, text: str) -> Plan:
    """Validate `text` as a plan, then write it to `path` atomically; the plan as the scheduler will read it."""
    plan = parse_plan(text, str(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(".tmp")
    temporary.write_text(text, encoding="utf-8")
    os.replace(temporary, path)
    return plan
