"""The built installers' programs, run for real: point LINKVET_INSTALLERS at `packaging/build.py`'s output
folder (build/installers) after a build; without it these tests skip (a build takes minutes, so the suite does
not make one; the hosted-CI workflow's build job runs them on every platform it builds)."""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import tarfile
import tomllib
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT

INSTALLERS = (
    Path(os.environ["LINKVET_INSTALLERS"]).resolve() if os.environ.get("LINKVET_INSTALLERS") else None
)
pytestmark = pytest.mark.skipif(
    INSTALLERS is None, reason="set LINKVET_INSTALLERS=build/installers after `python packaging/build.py`"
)
VERSION = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
EXE = ".exe" if sys.platform == "win32" else ""
linux_only = pytest.mark.skipif(
    sys.platform != "linux", reason="probes are Linux-only until the backends land"
)


def folder() -> Path:
    assert INSTALLERS is not None
    return INSTALLERS / "linkvet"


def program(name: str) -> Path:
    return folder() / f"{name}{EXE}"


def env_for(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env.update(
        XDG_DATA_HOME=str(tmp_path / "data"),
        XDG_CONFIG_HOME=str(tmp_path / "config"),
        XDG_STATE_HOME=str(tmp_path / "state"),
        QT_QPA_PLATFORM="offscreen",
    )
    return env


def run(
    tmp_path: Path, *args: str, exe: str = "linkvet", timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(program(exe)), *args],
        cwd=tmp_path,
        env=env_for(tmp_path),
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=timeout,
    )


def test_the_cli_starts_and_says_its_version(tmp_path: Path) -> None:
    out = run(tmp_path, "--version")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == f"linkvet {VERSION}"


def test_the_bundled_catalogs_needs_and_checklist_are_read(tmp_path: Path) -> None:
    validated = run(tmp_path, "catalog", "validate")
    assert validated.returncode == 0, validated.stdout + validated.stderr
    needs = folder() / "_internal" / "catalogs" / "needs" / "example-70b-full.toml"
    ranked = run(tmp_path, "score", "--needs", str(needs), "--top", "3")
    assert ranked.returncode == 0, ranked.stderr
    assert "Traceback" not in ranked.stderr
    candidates = re.search(r"^(\d+) candidate\(s\)", ranked.stdout, re.MULTILINE)
    assert candidates and int(candidates.group(1)) > 100, ranked.stdout


def test_the_bundled_plan_and_route_table_are_read(tmp_path: Path) -> None:
    plan = folder() / "_internal" / "probes" / "schedule" / "plans" / "example.toml"
    checked = run(tmp_path, "schedule", "--plan", str(plan), "--check")
    assert checked.returncode == 0, checked.stderr
    assert "3 targets" in checked.stdout


def test_the_window_opens_and_quits_offscreen(tmp_path: Path) -> None:
    out = run(tmp_path, "gui", "--quit-after-startup", timeout=60)
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr


@pytest.mark.skipif(
    sys.platform != "linux" or shutil.which("strace") is None, reason="needs Linux and strace"
)
def test_in_chinese_the_window_loads_both_translations_from_the_bundle(tmp_path: Path) -> None:
    settings = tmp_path / "config" / "linkvet" / "linkvet.conf"
    settings.parent.mkdir(parents=True)
    settings.write_text("[display]\nlanguage=zh_CN\n", encoding="utf-8")
    trace = tmp_path / "open.txt"
    out = subprocess.run(
        [
            "strace",
            "-f",
            "-e",
            "trace=openat",
            "-o",
            str(trace),
            str(program("linkvet")),
            "gui",
            "--quit-after-startup",
        ],
        env=env_for(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    opened = [line for line in trace.read_text().splitlines() if ".qm" in line and "ENOENT" not in line]
    internal = str(folder() / "_internal")
    assert any(f"{internal}/desktop/app/translations/linkvet_zh_CN.qm" in line for line in opened), opened
    assert any(f"{internal}/PySide6/Qt/translations/qtbase_zh_CN.qm" in line for line in opened), opened


def _child_job(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, job: dict
) -> tuple[list[bytes], dict, str, int]:
    """Run `job` in the frozen GUI's probing child, started by the GUI's own code as a frozen GUI starts it."""
    from desktop.app import frames
    from desktop.app.workers import JobProcess

    for key, value in env_for(tmp_path).items():
        monkeypatch.setenv(key, value)
    monkeypatch.setattr(sys, "executable", str(program("linkvet-gui")))
    child = JobProcess(job)
    kinds, done = [], {}
    for kind, data in child.frames():
        kinds.append(kind)
        if kind == frames.DONE:
            done = frames.decode(data)
    errors = child.finish()
    return kinds, done, errors, child.process.returncode


def test_the_gui_program_runs_as_its_own_probing_child(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from desktop.app import frames
    from probes.target import ProbeOptions

    job = {"kind": "probe", "targets": [], "options": ProbeOptions(count=1), "db_path": None}
    kinds, done, errors, returncode = _child_job(tmp_path, monkeypatch, job)
    assert kinds == [frames.DONE] and done["order"] == [], errors
    assert returncode == 0, errors


@linux_only
def test_the_frozen_child_probes_a_loopback_listener(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from desktop.app import frames
    from probes.target import Method, ProbeOptions, Target

    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    port = server.getsockname()[1]
    db = tmp_path / "store.sqlite3"
    job = {
        "kind": "probe",
        "targets": [Target(Method.TCP, host="127.0.0.1", port=port)],
        "options": ProbeOptions(count=3, interval_s=0.01),
        "db_path": str(db),
    }
    try:
        kinds, done, errors, returncode = _child_job(tmp_path, monkeypatch, job)
    finally:
        server.close()
    assert kinds[-1] == frames.DONE and done["store_error"] is None and done["round_id"] is not None, errors
    assert returncode == 0 and db.exists(), errors


@pytest.mark.skipif(sys.platform != "linux", reason="the Linux tarball")
def test_the_linux_tarball_installs_a_desktop_entry_and_uninstalls(tmp_path: Path) -> None:
    assert INSTALLERS is not None
    (archive,) = INSTALLERS.glob(f"linkvet-{VERSION}-linux-*.tar.gz")
    with tarfile.open(archive) as tar:
        tar.extractall(tmp_path / "unpacked", filter="tar")
    top = tmp_path / "unpacked" / f"linkvet-{VERSION}"
    prefix = tmp_path / "prefix dir"  # a space in the path: the desktop entry must quote it
    env = {**env_for(tmp_path), "PREFIX": str(prefix)}
    installed = subprocess.run(["sh", str(top / "install.sh")], env=env, capture_output=True, text=True)
    assert installed.returncode == 0, installed.stderr
    entry = prefix / "share" / "applications" / "linkvet.desktop"
    lines = entry.read_text(encoding="utf-8").splitlines()
    assert f'Exec="{prefix}/lib/linkvet/linkvet-gui"' in lines
    assert (prefix / "share" / "icons" / "hicolor" / "48x48" / "apps" / "linkvet.png").is_file()
    assert (prefix / "share" / "icons" / "hicolor" / "scalable" / "apps" / "linkvet.svg").is_file()
    if shutil.which("desktop-file-validate"):
        validated = subprocess.run(["desktop-file-validate", str(entry)], capture_output=True, text=True)
        assert validated.returncode == 0, validated.stdout + validated.stderr
    version = subprocess.run(
        [str(prefix / "bin" / "linkvet"), "--version"], env=env, capture_output=True, text=True, timeout=60
    )
    assert version.stdout.strip() == f"linkvet {VERSION}", version.stderr
    removed = subprocess.run(
        ["sh", str(top / "install.sh"), "--uninstall"], env=env, capture_output=True, text=True
    )
    assert removed.returncode == 0, removed.stderr
    assert not entry.exists() and not (prefix / "lib" / "linkvet").exists()
    assert not (prefix / "bin" / "linkvet").exists() and not list(
        (prefix / "share" / "icons").rglob("linkvet.*")
    )


@pytest.mark.skipif(sys.platform != "darwin", reason="the macOS bundle")
def test_the_macos_bundle_is_the_windowed_gui(tmp_path: Path) -> None:
    import plistlib

    assert INSTALLERS is not None
    app = INSTALLERS / "linkvet.app"
    with (app / "Contents" / "Info.plist").open("rb") as fh:
        info = plistlib.load(fh)
    assert info["CFBundleExecutable"] == "linkvet-gui" and info["LSBackgroundOnly"] is False
    assert info["CFBundleShortVersionString"] == VERSION
    out = subprocess.run(
        [str(app / "Contents" / "MacOS" / "linkvet"), "--version"], capture_output=True, text=True, timeout=60
    )
    assert out.stdout.strip() == f"linkvet {VERSION}", out.stderr
