"""Shared fixtures: a temporary store, a loopback TCP listener, and a way to run the `linkvet` command from this
checkout."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent

pytest_plugins = ["tests.peers", "tests.postgres_server", "tests.notifiers"]


@pytest.fixture(autouse=True)
def _no_user_catalogs(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test starts with an empty user catalog folder of its own (what a test writes there, or a
    `linkvet` it runs, stays in that test): the own catalogs (`catalogs.user`) of whoever runs the tests
    stay out of them."""
    folder = tmp_path_factory.mktemp("user-catalogs", numbered=True) / "catalogs"
    monkeypatch.setenv("LINKVET_CATALOG_DIR", str(folder))


# A lab test that fails runs once more (pytest-rerunfailures), and the summary lists it as rerun (`R`):
# its figures are timed on a shared machine, against a link emulated by a process on the same CPUs, and
# a stretch of host noise (the office's own stack slowed, ping off by as much as linkvet) fails one run
# now and then with no fault in what is measured. Its bounds stay as they are; twice in a row fails.
LAB_RERUNS = 1


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Lab tests get their one rerun. With LINKVET_PROBE_BACKEND naming another backend than linux (the
    CI-style run of the suite on the portable backend), the tests of what only the linux backend does skip
    and say why."""
    for item in items:
        if "lab" in item.keywords:
            item.add_marker(pytest.mark.flaky(reruns=LAB_RERUNS, reruns_delay=2))
    forced = os.environ.get("LINKVET_PROBE_BACKEND", "").strip().lower()
    if forced in ("", "auto", "linux"):
        return
    skip = pytest.mark.skip(
        reason=f"measures what only the linux probe backend does (LINKVET_PROBE_BACKEND={forced})"
    )
    for item in items:
        if "linux_backend" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(params=["compiled", "python"])
def engine_thread(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each ICMP engine thread in turn: the compiled one (`_linkvet_icmp`; skipped, saying why, where it is
    not built) and the Python one (`probes.icmp.native.icmp` None here, LINKVET_PURE_PYTHON for the commands
    a test starts). Both must give the same results."""
    from probes.icmp import native

    if request.param == "compiled":
        if native.icmp is None:
            pytest.skip(f"the compiled ICMP engine is not here: {native.icmp_problem}")
        monkeypatch.delenv("LINKVET_PURE_PYTHON", raising=False)
    else:
        monkeypatch.setattr(native, "icmp", None)
        monkeypatch.setenv("LINKVET_PURE_PYTHON", "1")
    return str(request.param)


def cli_env(tmp_path: Path) -> dict[str, str]:
    """Environment for a `linkvet` subprocess: this checkout's code, a private data directory, and English
    whatever the language of whoever runs the tests (a test that wants another sets LANG or LANGUAGE)."""
    env = {k: v for k, v in os.environ.items() if k not in ("LANGUAGE", "LC_ALL", "LC_MESSAGES")}
    env["LANG"] = "C.UTF-8"
    env["PYTHONPATH"] = str(REPO_ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env["XDG_DATA_HOME"] = str(tmp_path / "xdg-data")
    env["XDG_STATE_HOME"] = str(tmp_path / "xdg-state")
    env["XDG_CONFIG_HOME"] = str(tmp_path / "xdg-config")
    return env


@pytest.fixture(autouse=True)
def private_data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Nothing a test runs in this process writes to the user's data directory (the default store, log and
    spool live there)."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg-data"))


@pytest.fixture
def listener() -> Iterator[int]:
    """A TCP port on 127.0.0.1 that accepts connections (the kernel completes the handshakes): a TCP target
    that answers without a server process."""
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen(512)
    yield server.getsockname()[1]
    server.close()


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
