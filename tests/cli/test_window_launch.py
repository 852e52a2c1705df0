"""Opening the window from the command line: a Linux whose Qt window plugin lacks system libraries is told
which (and their Debian packages) and `linkvet` runs its headless job instead of Qt aborting the program;
`linkvet gui --screenshot` writes every screen offscreen; the window takes `--db`, `--lang` and
`LINKVET_DB` as every command does (`linkvet gui` and the `linkvet-gui` launcher alike)."""

from __future__ import annotations

import os
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from desktop.qt_platform import debian_package, missing_libraries, not_found
from tests.conftest import REPO_ROOT, cli_env

FIXTURES = Path(__file__).resolve().parent / "fixtures"
PYSIDE = Path(__import__("PySide6").__file__).resolve().parent


def test_the_thin_debians_missing_libraries_read_from_ldd() -> None:
    recorded = (FIXTURES / "ldd-libqxcb-thin-debian12.txt").read_text(encoding="utf-8")
    missing = not_found(recorded)
    assert missing == ["libxcb-icccm.so.4", "libxcb-keysyms.so.1"]  # not xcb-cursor0, which Qt's hint names
    assert [debian_package(lib) for lib in missing] == ["libxcb-icccm4", "libxcb-keysyms1"]
    for soname, package in (
        ("libxcb-cursor.so.0", "libxcb-cursor0"),
        ("libxkbcommon-x11.so.0", "libxkbcommon-x11-0"),
        ("libX11-xcb.so.1", "libx11-xcb1"),
        ("libxcb-render-util.so.0", "libxcb-render-util0"),
        ("libglib-2.0.so.0", "libglib2.0-0"),
        ("libdbus-1.so.3", "libdbus-1-3"),
    ):
        assert debian_package(soname) == package


def _plugin_that_cannot_load(tmp_path: Path) -> Path:
    """A copy of PySide6's X11 plugin whose libxcb-cursor.so.0 is renamed libxcb-cursor.so.9 (no system has
    it) in its list of needed libraries; Qt's own libraries found beside it as in the wheel."""
    real = PYSIDE / "Qt" / "plugins" / "platforms" / "libqxcb.so"
    if not real.is_file() or not sys.platform.startswith("linux"):
        pytest.skip("PySide6's X11 plugin is Linux only")
    qt = tmp_path / "Qt"
    platforms = qt / "plugins" / "platforms"
    platforms.mkdir(parents=True)
    (qt / "lib").symlink_to(PYSIDE / "Qt" / "lib")  # the plugin's RUNPATH: $ORIGIN/../../lib
    data = real.read_bytes()
    assert data.count(b"libxcb-cursor.so.0\0") == 1
    (platforms / "libqxcb.so").write_bytes(data.replace(b"libxcb-cursor.so.0\0", b"libxcb-cursor.so.9\0"))
    return platforms


def _thin_env(tmp_path: Path, platforms: Path) -> dict[str, str]:
    env = {k: v for k, v in cli_env(tmp_path).items() if k not in ("QT_QPA_PLATFORM", "WAYLAND_DISPLAY")}
    env["DISPLAY"] = ":97"  # a display is said to be there: the X11 plugin is what Qt would load
    env["QT_QPA_PLATFORM_PLUGIN_PATH"] = str(platforms)
    return env


def test_a_plugin_that_cannot_load_is_named_and_linkvet_runs_headless(tmp_path: Path) -> None:
    platforms = _plugin_that_cannot_load(tmp_path)
    env = _thin_env(tmp_path, platforms)
    found = missing_libraries(env)
    assert (
        found is not None and "libxcb-cursor.so.9" in found.libraries and "libxcb-cursor9" in found.packages
    )
    # What happens without the check: Qt aborts the whole program (SIGABRT, the shell's exit 134).
    qt = subprocess.run(
        [sys.executable, "-c", "from PySide6.QtWidgets import QApplication; QApplication([])"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert qt.returncode == -6 and "platform plugin" in qt.stderr
    # `linkvet` alone: the libraries and the command, then the headless job, whole.
    alone = subprocess.run(
        [sys.executable, "-m", "desktop.cli"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert alone.returncode == 0, alone.stderr
    assert "libxcb-cursor.so.9" in alone.stderr and "sudo apt-get install" in alone.stderr
    assert "libxcb-cursor9" in alone.stderr and "Traceback" not in alone.stderr
    assert "running the headless main job instead" in alone.stdout
    assert "example evaluation" in alone.stdout and "Next, your own vendors" in alone.stdout
    # `linkvet gui` asked for the window: it says why not (exit 3, the environment refused).
    gui = subprocess.run(
        [sys.executable, "-m", "desktop.cli", "gui"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert gui.returncode == 3 and "libxcb-cursor9" in gui.stderr and "Traceback" not in gui.stderr


def _png_size(path: Path) -> tuple[int, int]:
    header = path.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", header[16:24])
    return width, height


SIZE = ("--size", "1366x768")
SCREENS = {
    "home",
    "wizard-job",
    "wizard-offices",
    "wizard-candidates",
    "wizard-peak",
    "targets",
    "probe",
    "charts-timeline",
    "charts-hour-of-day",
    "charts-day-hour",
    "charts-cdf",
    "charts-offices",
    "routes",
    "catalog",
    "offering-editor",
    "score",
    "score-weights",
    "export",
    "settings",
}


def test_screenshots_of_every_screen_without_a_display_and_the_store_left_alone(tmp_path: Path) -> None:
    env = {
        k: v
        for k, v in cli_env(tmp_path).items()
        if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")
    }
    store = tmp_path / "empty" / "linkvet.sqlite3"
    out = tmp_path / "shots"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "desktop.cli",
            "gui",
            "--screenshot",
            str(out),
            "--lang",
            "zh_CN",
            *SIZE,
            "--db",
            str(store),
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    written = {p.stem for p in out.glob("*.png")}
    assert written == SCREENS
    assert _png_size(out / "home.png") == (1366, 768)
    for dialog in ("offering-editor", "wizard-candidates", "settings"):  # each fits the screen
        width, height = _png_size(out / f"{dialog}.png")
        assert width <= 1366 and height <= 768, dialog
    assert not store.exists()  # an empty store is pictured with the example in a store of its own
    assert "（zh_CN）" in done.stdout and "1366×768" in done.stdout


def test_the_command_line_reaches_the_window(tmp_path: Path) -> None:
    """`LINKVET_DB` reaches the window through `linkvet gui`, and `--db` and `--lang` (which win over it)
    through the `linkvet-gui` launcher (the screenshot run says which store and language it pictures)."""
    from desktop.usecases.evaluation import import_evaluation

    env = {
        k: v
        for k, v in cli_env(tmp_path).items()
        if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")
    }
    given, from_env = tmp_path / "given.sqlite3", tmp_path / "env.sqlite3"
    for db in (given, from_env):
        import_evaluation(db, REPO_ROOT / "catalogs" / "evaluation" / "example.toml")
    env["LINKVET_DB"] = str(from_env)
    runs = {}
    for name, start, extra in (
        ("env", [sys.executable, "-m", "desktop.cli", "gui"], []),
        (
            "given",
            [sys.executable, "-c", "import sys; from desktop.cli.launcher import main; sys.exit(main())"],
            ["--db", str(given), "--lang", "zh_CN"],
        ),
    ):
        done = subprocess.run(
            [*start, "--screenshot", str(tmp_path / name), "--size", "1024x700", *extra],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert done.returncode == 0, done.stderr
        runs[name] = done.stdout.splitlines()[0]
    assert str(from_env) in runs["env"] and "(en)" in runs["env"]
    assert str(given) in runs["given"] and "（zh_CN）" in runs["given"] and "结果库" in runs["given"]
    assert os.path.getsize(tmp_path / "given" / "home.png") > 0
