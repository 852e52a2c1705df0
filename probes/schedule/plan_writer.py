"""Writing plan files: a list of targets on a cadence as the documented plan format (`probes.schedule.plan`), so the
app's probe list can be run by `linkvet schedule --plan` (on this machine or an always-on office box).

Every file is read back with `probes.schedule.plan.parse_plan` before it is saved, so what is written is exactly what
the scheduler accepts.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path

from probes.peak import PeakWindow
from probes.schedule.plan import PLAN_VERSION, Plan, parse_plan
from probes.target import Target


def _string(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)  # a TOML basic string: JSON's escapes are TOML's


def _duration(seconds: float) -> str:
    if seconds % 3600 == 0:
        return f"{int(seconds // 3600)}h"
    if seconds % 60 == 0:
        return f"{int(seconds // 60)}m"
    return f"{seconds:g}s"


def plan_text(
    targets: Sequence[Target],
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
    """A plan file (TOML) measuring `targets` on the given cadence."""
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
    for t in targets:
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


def write_plan(path: Path, text: str) -> Plan:
    """Validate `text` as a plan, then write it to `path` atomically; the plan as the scheduler will read it
    (raises `PlanError` for text the scheduler would refuse, `OSError` when the file cannot be written)."""
    plan = parse_plan(text, str(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(".tmp")
    temporary.write_text(text, encoding="utf-8")
    os.replace(temporary, path)
    return plan
