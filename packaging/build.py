"""Build linkvet's installer for the platform this runs on.

    pip install '.[package]'              # PyInstaller, Pillow and the GUI dependencies
    python packaging/build.py             # -> build/installers/
    python packaging/build.py --no-pack   # just the one-folder build (build/installers/linkvet/)

1. Icons: linkvet.ico (Windows) and linkvet.icns (macOS) from the PNGs in packaging/icons/ (Pillow).
2. PyInstaller runs packaging/pyinstaller/linkvet.spec: one folder (`linkvet/`) with `linkvet-gui` and
   `linkvet`, plus `linkvet.app` on macOS.
3. The result is checked: both programs, the Qt plugin folders (platforms, imageformats, styles), Qt's and
   linkvet's zh_CN translations, every bundled data file of the checkout (catalogs, plans, route tables), and
   on macOS the bundle's Info.plist. A missing piece fails the build (exit 1) and is named.
4. Packed per platform:
   Linux    linkvet-<version>-linux-<arch>.tar.gz: the folder, install.sh, the desktop entry and the icons
   Windows  linkvet-<version>-windows-x64.zip (the folder), and with Inno Setup's iscc on PATH or in its
            default place, linkvet-<version>-windows-x64-setup.exe (packaging/windows/linkvet.iss)
   macOS    linkvet-<version>-macos-<arch>.zip (the .app, packed by `ditto` so its symlinks survive)

Run the frozen programs' checks afterwards with
`LINKVET_FROZEN_DIR=build/installers/linkvet python -m pytest tests/packaging/test_frozen.py`.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import platform
import plistlib
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path
from types import ModuleType

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SPEC = HERE / "pyinstaller" / "linkvet.spec"
ISS = HERE / "windows" / "linkvet.iss"
ICON_SIZES_ICO = (16, 24, 32, 48, 64, 128, 256)


def load_recipe() -> ModuleType:
    spec = importlib.util.spec_from_file_location("linkvet_recipe", HERE / "pyinstaller" / "recipe.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


recipe = load_recipe()


class BuildError(Exception):
    pass


def exe(name: str) -> str:
    return f"{name}.exe" if sys.platform == "win32" else name


def arch() -> str:
    machine = platform.machine().lower()
    return {"amd64": "x64", "x86_64": "x86_64" if sys.platform != "win32" else "x64", "aarch64": "arm64"}.get(
        machine, machine
    )


def result_names(version: str, system: str = sys.platform, machine: str = "") -> list[str]:
    """The files build.py makes on `system` (sys.platform's value) for a `machine` (arch()'s)."""
    machine = machine or arch()
    if system == "win32":
        return [f"linkvet-{version}-windows-x64.zip", f"linkvet-{version}-windows-x64-setup.exe"]
    if system == "darwin":
        return [f"linkvet-{version}-macos-{machine}.zip"]
    return [f"linkvet-{version}-linux-{machine}.tar.gz"]


# -- 1. icons ----------------------------------------------------------------------------------------------


def make_icons(out: Path) -> Path:
    """linkvet.ico and linkvet.icns from the committed PNGs (which packaging/icons/render.py keeps current)."""
    try:
        from PIL import Image
    except ImportError as exc:
        raise BuildError("Pillow is needed for the .ico/.icns icons: pip install '.[package]'") from exc
    out.mkdir(parents=True, exist_ok=True)
    png = {size: recipe.ICONS / f"linkvet-{size}.png" for size in (*ICON_SIZES_ICO, 512, 1024)}
    missing = [str(p) for p in png.values() if not p.exists()]
    if missing:
        raise BuildError(f"icon PNGs missing (run packaging/icons/render.py): {', '.join(missing)}")
    with Image.open(png[256]) as largest:
        images = [Image.open(png[size]) for size in ICON_SIZES_ICO if size != 256]
        largest.save(out / "linkvet.ico", sizes=[(s, s) for s in ICON_SIZES_ICO], append_images=images)
    with Image.open(png[1024]) as largest:
        images = [Image.open(png[size]) for size in (16, 32, 64, 128, 256, 512)]
        largest.save(out / "linkvet.icns", append_images=images)
    return out


# -- 2. PyInstaller ----------------------------------------------------------------------------------------


def run_pyinstaller(dist: Path, work: Path, icons: Path) -> None:
    if importlib.util.find_spec("PyInstaller") is None:
        raise BuildError("PyInstaller is not installed: pip install '.[package]'")
    work.mkdir(parents=True, exist_ok=True)
    command = [
        sys.executable,
        "-m",
        "PyInstaller",
        "--noconfirm",
        "--clean",
        "--log-level",
        "WARN",
        "--distpath",
        str(dist),
        "--workpath",
        str(work),
        str(SPEC),
        "--",
        "--icons",
        str(icons),
    ]
    print("+", " ".join(command), flush=True)
    if subprocess.run(command, cwd=work).returncode != 0:
        raise BuildError("PyInstaller failed (its messages are above)")


# -- 3. checks ---------------------------------------------------------------------------------------------


def internal_dir(folder: Path) -> Path:
    """Where PyInstaller 6 puts everything but the programs."""
    return folder / "_internal"


def bundled_data_files() -> list[Path]:
    """The checkout's package data files the build must hold, relative to the checkout."""
    files: set[Path] = set()
    for package, globs in recipe.data_globs().items():
        base = ROOT / package
        for pattern in globs:
            files.update(
                p.relative_to(ROOT)
                for p in base.glob(pattern)
                if p.is_file() and "__pycache__" not in p.parts
            )
    return sorted(files)


def installed_pyside6() -> Path:
    spec = importlib.util.find_spec("PySide6")
    if spec is None or not spec.submodule_search_locations:
        raise BuildError("PySide6 is not installed: pip install '.[package]'")
    return Path(next(iter(spec.submodule_search_locations)))


def _has_files(folder: Path) -> bool:
    return folder.is_dir() and any(p.is_file() for p in folder.iterdir())


def check_folder(folder: Path) -> list[str]:
    """What is missing from a one-folder build (empty when complete)."""
    problems = []
    for program in recipe.PROGRAMS:
        path = folder / exe(program.name)
        if not path.is_file() or (sys.platform != "win32" and not os.access(path, os.X_OK)):
            problems.append(f"program {path.name}")
    internal = internal_dir(folder)
    # PySide6 wheels keep plugins/ and translations/ in PySide6/ on Windows, in PySide6/Qt/ elsewhere.
    qt_relative = Path("PySide6") if sys.platform == "win32" else Path("PySide6", "Qt")
    qt, installed_qt = internal / qt_relative, installed_pyside6().parent / qt_relative
    for plugin_dir in recipe.QT_PLUGIN_DIRS:
        found = qt / "plugins" / plugin_dir
        if _has_files(installed_qt / "plugins" / plugin_dir) and not _has_files(found):
            problems.append(f"Qt plugins: {found.relative_to(folder)}")
    if not (qt / "translations" / "qtbase_zh_CN.qm").is_file():
        problems.append(
            f"Qt's own translation: {(qt / 'translations' / 'qtbase_zh_CN.qm').relative_to(folder)}"
        )
    for relative in bundled_data_files():
        if not (internal / relative).is_file():
            problems.append(f"data file {relative.as_posix()}")
    return problems


def check_bundle(app: Path) -> list[str]:
    plist_path = app / "Contents" / "Info.plist"
    if not plist_path.is_file():
        return [f"{plist_path}"]
    with plist_path.open("rb") as fh:
        info = plistlib.load(fh)
    problems = [
        f"Info.plist {key} = {info.get(key)!r}, expected {value!r}"
        for key, value in recipe.info_plist().items()
        if info.get(key) != value
    ]
    if info.get("CFBundleExecutable") != recipe.PROGRAMS[0].name:
        problems.append(f"Info.plist CFBundleExecutable = {info.get('CFBundleExecutable')!r}")
    if info.get("CFBundleIdentifier") != recipe.BUNDLE_ID:
        problems.append(f"Info.plist CFBundleIdentifier = {info.get('CFBundleIdentifier')!r}")
    if not (app / "Contents" / "MacOS" / recipe.PROGRAMS[0].name).is_file():
        problems.append(f"{app.name}/Contents/MacOS/{recipe.PROGRAMS[0].name}")
    return problems


# -- 4. packing --------------------------------------------------------------------------------------------


def pack_linux(folder: Path, dist: Path, version: str) -> list[Path]:
    top = f"linkvet-{version}"
    archive = dist / result_names(version)[0]
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(folder, arcname=f"{top}/linkvet")
        tar.add(HERE / "linux" / "install.sh", arcname=f"{top}/install.sh")
        tar.add(HERE / "linux" / "linkvet.desktop", arcname=f"{top}/share/applications/linkvet.desktop")
        tar.add(recipe.ICONS / "linkvet.svg", arcname=f"{top}/share/icons/hicolor/scalable/apps/linkvet.svg")
        for size in (16, 24, 32, 48, 64, 128, 256, 512):
            tar.add(
                recipe.ICONS / f"linkvet-{size}.png",
                arcname=f"{top}/share/icons/hicolor/{size}x{size}/apps/linkvet.png",
            )
    return [archive]


def find_iscc() -> str | None:
    found = shutil.which("iscc")
    if found:
        return found
    for base in (os.environ.get("PROGRAMFILES(X86)"), os.environ.get("PROGRAMFILES")):
        if base and (candidate := Path(base) / "Inno Setup 6" / "ISCC.exe").is_file():
            return str(candidate)
    return None


def pack_windows(folder: Path, dist: Path, version: str, icons: Path) -> list[Path]:
    zip_name, setup_name = result_names(version)
    base = dist / zip_name.removesuffix(".zip")
    made = [Path(shutil.make_archive(str(base), "zip", root_dir=folder.parent, base_dir=folder.name))]
    iscc = find_iscc()
    if iscc is None:
        print("build.py: Inno Setup's iscc not found: made the zip only", file=sys.stderr)
        return made
    command = [
        iscc,
        "/Q",
        f"/DAppVersion={version}",
        f"/DDistDir={folder}",
        f"/DIconFile={icons / 'linkvet.ico'}",
        f"/DOutputDir={dist}",
        str(ISS),
    ]
    print("+", " ".join(command), flush=True)
    if subprocess.run(command).returncode != 0:
        raise BuildError("Inno Setup failed (its messages are above)")
    return [*made, dist / setup_name]


def pack_macos(app: Path, dist: Path, version: str) -> list[Path]:
    archive = dist / result_names(version)[0]
    archive.unlink(missing_ok=True)
    command = ["ditto", "-c", "-k", "--sequesterRsrc", "--keepParent", str(app), str(archive)]
    print("+", " ".join(command), flush=True)
    if subprocess.run(command).returncode != 0:
        raise BuildError("ditto failed")
    return [archive]


def folder_size_mb(path: Path) -> float:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink()) / 1e6


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--dist", type=Path, default=ROOT / "build" / "installers", help="where results go")
    parser.add_argument(
        "--work", type=Path, default=ROOT / "build" / "pyinstaller", help="PyInstaller's work"
    )
    parser.add_argument("--no-pack", action="store_true", help="stop after the checked one-folder build")
    args = parser.parse_args(argv)
    dist, work = args.dist.resolve(), args.work.resolve()
    version = recipe.version()
    try:
        icons = make_icons(work / "icons")
        run_pyinstaller(dist, work, icons)
        folder = dist / "linkvet"
        problems = check_folder(folder)
        app = dist / "linkvet.app"
        if sys.platform == "darwin":
            problems += check_bundle(app)
        if problems:
            raise BuildError("the build lacks:\n  " + "\n  ".join(problems))
        print(f"build.py: {folder} checked: {folder_size_mb(folder):.0f} MB", flush=True)
        if args.no_pack:
            return 0
        if sys.platform == "win32":
            made = pack_windows(folder, dist, version, icons)
        elif sys.platform == "darwin":
            made = pack_macos(app, dist, version)
        else:
            made = pack_linux(folder, dist, version)
    except BuildError as exc:
        print(f"build.py: {exc}", file=sys.stderr)
        return 1
    for path in made:
        print(f"build.py: {path} ({path.stat().st_size / 1e6:.0f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
