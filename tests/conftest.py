"""Shared fixtures: a temporary store, and a way to run the `linkvet` command from this checkout."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent

pytest_plugins = ["tests.peers"]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """With LINKVET_PROBE_BACKEND naming another backend than linux (the CI-style run of the suite on the
    portable backend), the tests of what only the linux backend does skip and say why."""
    forced = os.environ.get("LINKVET_PROBE_BACKEND", "").strip().lower()
    if forced in ("", "auto", "linux"):
        return
    skip = pytest.mark.skip(
        reason=f"measures what only the linux probe backend does (LINKVET_PROBE_BACKEND={forced})"
    )
    for item in items:
        if "linux_backend" in item.keywords:
            item.add_marker(skip)


def cli_env(tmp_path: Path) -> dict[str, str]:
    """Environment for a `linkvet` subprocess: this checkout's code, a private data directory."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO_ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env["XDG_DATA_HOME"] = str(tmp_path / "xdg-data")
    env["XDG_STATE_HOME"] = str(tmp_path / "xdg-state")
    env["XDG_CONFIG_HOME"] = str(tmp_path / "xdg-config")
    return env


@pytest.fixture
def run_linkvet(tmp_path: Path) -> Callable[..., subprocess.CompletedProcess[str]]:
    """Run `linkvet ARGS...` from this checkout in a subprocess; returns the completed process."""

    def run(*args: str, timeout: float = 120, check: bool = False) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "desktop.cli", *args],
            cwd=tmp_path,
            env=cli_env(tmp_path),
            capture_output=True,
            text=True,
            timeout=timeout,
            check=check,
        )

    return run
