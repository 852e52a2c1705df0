"""Who is doing something, and from which office: what a team store records beside an evaluation, a vendor
fact or an agent's health."""

from __future__ import annotations

import getpass
import os
import socket

OFFICE_ENV = "LINKVET_OFFICE"  # this machine's office (a vantage point name), where `--office` is not given


def who() -> str:
    """`user@host` of this process (the host alone where the user cannot be named)."""
    try:
        return f"{getpass.getuser()}@{socket.gethostname()}"
    except (KeyError, OSError):
        return socket.gethostname()


def default_office() -> str | None:
    """The office this machine is at: `$LINKVET_OFFICE`, else None (not said)."""
    return os.environ.get(OFFICE_ENV, "").strip() or None
