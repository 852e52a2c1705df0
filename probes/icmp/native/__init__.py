"""linkvet's compiled part, where it is built: `_linkvet_icmp` (probes/icmp/native/), the ICMP engine's thread
(`Engine`, driven by `probes.icmp.compiled`) and the run's pacer state (`Pacer`).

pip builds it on install where a C compiler is (Linux; optional: without one the install goes on). `icmp` is the
module, or None with `icmp_problem` saying why: not built, built for another version of this code (its `API`
differs), or `LINKVET_PURE_PYTHON` set (which makes every run take the Python path, for comparison). Whoever
uses it picks at construction (`probes.pacing.Pacer`, `probes.icmp.engine.IcmpEngine`), so a test can set
`icmp` to None to run the Python path.
"""

from __future__ import annotations

import os
from types import ModuleType

API = 3  # the C module's API_VERSION this code is written for


def _load() -> tuple[ModuleType | None, str | None]:
    if os.environ.get("LINKVET_PURE_PYTHON"):
        return None, "LINKVET_PURE_PYTHON is set"
    try:
        import _linkvet_icmp
    except ImportError as exc:
        return None, f"_linkvet_icmp is not built here ({exc})"
    found = getattr(_linkvet_icmp, "API", None)
    if found != API:
        return (
            None,
            f"_linkvet_icmp is a build of another version (API {found}, this code needs {API}): reinstall",
        )
    return _linkvet_icmp, None


icmp, icmp_problem = _load()
