"""The installers' recipes, checked without building (a build is test_frozen.py's): what the recipe bundles,
the frozen entry scripts, the Inno Setup script, the Linux desktop entry and install script."""

from __future__ import annotations

import configparser
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from types import ModuleType

import pytest

from tests.conftest import REPO_ROOT

PACKAGING = REPO_ROOT / "packaging"


def load(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


recipe = load(PACKAGING / "pyinstaller" / "recipe.py", "linkvet_recipe")
build = load(PACKAGING / "build.py", "linkvet_build")


def test_the_recipe_bundles_every_package_data_pattern_pip_installs() -> None:
    package_data = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"][
        "setuptools"
    ]["package-data"]
    assert "*.mo" in package_data["*"]  # gettext catalogs, once a change adds them
    globs = recipe.data_globs()
    assert set(globs) == set(recipe.PACKAGES)
    for package, patterns in globs.items():
        assert {f"**/{p}" for p in package_data["*"]} <= set(patterns)
        assert set(package_data.get(package, [])) <= set(patterns)


def test_the_bundled_data_files_are_the_catalogs_plans_routes_and_translations() -> None:
    files = {p.as_posix() for p in build.bundled_data_files()}
    expected = {
        p.relative_to(REPO_ROOT).as_posix()
        for folder in ("catalogs/providers", "catalogs/needs", "probes/schedule/plans", "probes/routes")
        for p in (REPO_ROOT / folder).glob("*.toml")
    }
    expected |= {"catalogs/checklist.toml", "catalogs/gpus.toml", "desktop/app/translations/linkvet_zh_CN.qm"}
    assert expected <= files
    assert not [f for f in files if "__pycache__" in f or f.endswith(".py")]


def test_the_frozen_entry_scripts_start_the_cli_and_the_probing_child() -> None:
    scripts = PACKAGING / "pyinstaller"
    version = subprocess.run(
        [sys.executable, str(scripts / "linkvet_cli.py"), "--version"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
    )
    assert version.returncode == 0 and version.stdout.startswith("linkvet "), version.stderr
    # `-m desktop.app.job_process` runs the child (which, given no job on stdin, exits 2), never the window.
    for script in ("linkvet_gui.py", "linkvet_cli.py"):
        child = subprocess.run(
            [sys.executable, str(scripts / script), "-m", "desktop.app.job_process"],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=60,
            env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
        )
        assert child.returncode == 2, child.stderr


def test_the_child_check_runs_only_the_probing_child() -> None:
    frozen_child = load(PACKAGING / "pyinstaller" / "frozen_child.py", "linkvet_frozen_child")
    for argv in ([], ["gui"], ["-m"], ["-m", "os"], ["-m", "desktop.app.job_process", "extra"]):
        assert frozen_child.run_child_if_asked(argv) is None  # returns: the program goes on as itself


def test_the_spec_is_python_and_names_the_recipe_programs() -> None:
    source = (PACKAGING / "pyinstaller" / "linkvet.spec").read_text(encoding="utf-8")
    compile(source, "linkvet.spec", "exec")
    assert [p.name for p in recipe.PROGRAMS] == ["linkvet-gui", "linkvet"]
    assert recipe.PROGRAMS[0].windowed and not recipe.PROGRAMS[1].windowed
    for program in recipe.PROGRAMS:
        assert (PACKAGING / "pyinstaller" / program.script).is_file()
    info = recipe.info_plist()
    assert info["LSBackgroundOnly"] is False and info["CFBundleShortVersionString"] == recipe.version()


def inno_sections(text: str) -> dict[str, list[str]]:
    sections: dict[str, list[str]] = {}
    current = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith((";", "#")):
            continue
        if re.fullmatch(r"\[[A-Za-z]+\]", line):
            current = line[1:-1]
            sections[current] = []
        elif current is not None:
            sections[current].append(line)
    return sections


def inno_entry(line: str) -> dict[str, str]:
    """`Name: "x"; Filename: "y"; Flags: z` as a dict."""
    return {k.strip(): v.strip().strip('"') for k, v in (part.split(":", 1) for part in line.split("; "))}


def test_the_inno_setup_script_has_what_iscc_requires_and_a_start_menu_entry() -> None:
    sections = inno_sections((PACKAGING / "windows" / "linkvet.iss").read_text(encoding="utf-8"))
    setup = dict(line.split("=", 1) for line in sections["Setup"])
    for required in ("AppName", "AppVersion", "DefaultDirName"):  # iscc refuses a script without these
        assert setup.get(required), required
    assert re.fullmatch(r"\{\{[0-9A-F]{8}(-[0-9A-F]{4}){3}-[0-9A-F]{12}\}", setup["AppId"])
    assert setup["PrivilegesRequired"] == "lowest"
    gui = f"{recipe.PROGRAMS[0].name}.exe"
    icons = [inno_entry(line) for line in sections["Icons"]]
    assert any(i["Name"].startswith("{group}\\") and i["Filename"] == f"{{app}}\\{gui}" for i in icons)
    files = [inno_entry(line) for line in sections["Files"]]
    assert any(f["Source"] == "{#DistDir}\\*" and "recursesubdirs" in f["Flags"] for f in files)
    # build.py reports the installer under the name the script gives it.
    installer = setup["OutputBaseFilename"].replace("{#AppVersion}", recipe.version()) + ".exe"
    assert installer == build.result_names(recipe.version(), "win32")[1]


def test_the_desktop_entry_starts_the_windowed_program_with_the_icon() -> None:
    entry = PACKAGING / "linux" / "linkvet.desktop"
    parser = configparser.ConfigParser(interpolation=None, strict=True)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read(entry, encoding="utf-8")
    fields = parser["Desktop Entry"]
    assert fields["Type"] == "Application" and fields["Terminal"] == "false"
    assert fields["Exec"] == recipe.PROGRAMS[0].name == fields["TryExec"]
    assert fields["Icon"] == "linkvet" and (PACKAGING / "icons" / "linkvet.svg").is_file()
    if shutil.which("desktop-file-validate") is None:
        pytest.skip("desktop-file-validate not installed (apt-get install desktop-file-utils)")
    validated = subprocess.run(["desktop-file-validate", str(entry)], capture_output=True, text=True)
    assert validated.returncode == 0, validated.stdout + validated.stderr


@pytest.mark.skipif(shutil.which("sh") is None, reason="needs a POSIX shell")
def test_the_linux_install_script_is_valid_shell() -> None:
    checked = subprocess.run(
        ["sh", "-n", str(PACKAGING / "linux" / "install.sh")], capture_output=True, text=True
    )
    assert checked.returncode == 0, checked.stderr
