"""Probe backends: one interface (`ProbeBackend`, `EchoEngine` in `base.py`), one backend per platform,
chosen once when a run starts.

Where things are
    base.py         the interface: the backend (ICMP engine, TCP handshake timing, traceroute protocols)
                    and the protocol every ICMP engine keeps
    linux.py        Linux: kernel stamps at both ends (ns), error queues, TCP_INFO  (the default on Linux)
    portable.py     user-space monotonic timing, no Linux-only socket option: any other platform's fallback,
                    and what Linux runs with LINKVET_PROBE_BACKEND=portable
    macos.py        macOS: unprivileged ICMP datagram sockets, kernel receive stamps (SO_TIMESTAMP, µs)
    windows.py      Windows: the ICMP API (IcmpSendEcho2 / Icmp6SendEcho2 via ctypes), user-space timing;
                    windows_api.py  its structures, status codes and reply parsing

    backend = choose_backend()            # this platform's, or LINKVET_PROBE_BACKEND's
    async with backend.open_icmp(None) as engine: ...

Every result records the backend that measured it (the `backend` metric) beside who timed it
(`timestamps`); the README's platform table says what each runs where and how precisely.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Mapping

from probes.backends.base import EchoEngine, ProbeBackend
from probes.errors import ProbeBackendError
from probes.i18n import _

BACKEND_ENV = "LINKVET_PROBE_BACKEND"
BACKEND_NAMES = ("linux", "portable", "macos", "windows")
NATIVE = {"linux": "linux", "darwin": "macos", "win32": "windows"}  # sys.platform → its backend


def backend_named(name: str) -> ProbeBackend:
    """The backend of this name (imported on first use); ProbeBackendError for a name there is none of."""
    if name not in BACKEND_NAMES:
        raise ProbeBackendError(
            _("no probe backend named {name}: choose one of {names}").format(
                name=name, names=", ".join(BACKEND_NAMES)
            )
        )
    backend: ProbeBackend = importlib.import_module(f"probes.backends.{name}").BACKEND
    return backend


def choose_backend(
    setting: str | ProbeBackend | None = None,
    *,
    platform: str = sys.platform,
    environ: Mapping[str, str] = os.environ,
) -> ProbeBackend:
    """The backend a run uses: `setting` if given, else the `LINKVET_PROBE_BACKEND` environment variable,
    else this platform's own (`NATIVE`), else the portable one. `auto` (or empty) means the platform's
    own. ProbeBackendError when the name is unknown or the backend cannot run on this platform."""
    if isinstance(setting, ProbeBackend):
        return setting
    name = (setting or environ.get(BACKEND_ENV) or "auto").strip().lower()
    if name == "auto":
        name = NATIVE.get(platform, "portable")
    backend = backend_named(name)
    if not backend.runs_on(platform):
        raise ProbeBackendError(
            _("the {name} probe backend runs on {platforms}, not on this system ({platform})").format(
                name=name, platforms=", ".join(sorted(backend.platforms)), platform=platform
            )
        )
    return backend


__all__ = ["BACKEND_ENV", "BACKEND_NAMES", "EchoEngine", "ProbeBackend", "backend_named", "choose_backend"]
