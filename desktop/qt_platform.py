"""Whether Qt's window system plugin can load on this Linux, asked before Qt is: on a thin system (a server
with only Xvfb, a minimal desktop) the X11 plugin (`libqxcb.so`) lacks system libraries, and Qt then aborts
the whole program (exit 134) with a hint that names the wrong one ("xcb-cursor0 … is needed" whatever is
missing). Here the plugin's own linkage is read (`ldd`, which follows every library it needs) and the libraries
not found are named with their Debian packages and the command that installs them; `linkvet` then runs its
headless job instead of aborting (`desktop.cli`), `linkvet gui` says so (exit 3).

No Qt, and nothing imported from PySide6: its folder is found, not loaded.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from desktop.i18n import _

PLUGIN_FILES = {"xcb": "libqxcb.so", "wayland": "libqwayland.so"}
# Packages whose name does not follow the soname rule (Debian policy 8.1: the library's name, a hyphen when it
# ends in a digit, then its soname version; lower case).
PACKAGES = {
    "libglib-2.0.so.0": "libglib2.0-0",
    "libgthread-2.0.so.0": "libglib2.0-0",
    "libgobject-2.0.so.0": "libglib2.0-0",
    "libgio-2.0.so.0": "libglib2.0-0",
    "libGLX.so.0": "libglx0",
    "libGLdispatch.so.0": "libglvnd0",
    "libz.so.1": "zlib1g",
    "libstdc++.so.6": "libstdc++6",
}
QT_OWN = ("libQt6", "libpyside6", "libshiboken6")  # PySide6's own: a broken install, not a system package
_LINE = re.compile(r"^\s*(\S+)\s*=>\s*not found\s*$")
_SONAME = re.compile(r"^(lib.+?)\.so\.(\d+)(?:\.\d+)*$")


@dataclass(frozen=True, slots=True)
class MissingLibraries:
    """A platform plugin that cannot load: which, the libraries not found, their packages."""

    plugin: Path
    libraries: tuple[str, ...]
    packages: tuple[str, ...]

    def message(self) -> str:
        return _(
            "Qt cannot open a window here: its platform plugin {plugin} needs system libraries that are not "
            "installed: {libraries}. Install them with: sudo apt-get install {packages}"
        ).format(
            plugin=self.plugin.name,
            libraries=", ".join(self.libraries),
            packages=" ".join(self.packages),
        )


def debian_package(soname: str) -> str | None:
    """The Debian package that ships a library (`libxcb-icccm.so.4` → `libxcb-icccm4`); None when its name
    says nothing (no soname version)."""
    if soname in PACKAGES:
        return PACKAGES[soname]
    match = _SONAME.match(soname)
    if match is None:
        return None
    name, version = match.group(1).lower(), match.group(2)
    return f"{name}-{version}" if name[-1].isdigit() else f"{name}{version}"


def not_found(ldd_output: str) -> list[str]:
    """The libraries `ldd` could not find, each once, in its order."""
    found = [m.group(1) for line in ldd_output.splitlines() if (m := _LINE.match(line))]
    return list(dict.fromkeys(found))


def chosen_platform(environ: Mapping[str, str] = os.environ) -> str:
    """The platform plugin Qt will try first: QT_QPA_PLATFORM's (its first of a `;` list, without options),
    else X11."""
    text = environ.get("QT_QPA_PLATFORM", "").split(";")[0].split(":")[0].strip()
    return text or "xcb"


def plugin_folders(environ: Mapping[str, str] = os.environ) -> list[Path]:
    """Where Qt looks for platform plugins: QT_QPA_PLATFORM_PLUGIN_PATH, then PySide6's own."""
    folders = [Path(p) for p in environ.get("QT_QPA_PLATFORM_PLUGIN_PATH", "").split(os.pathsep) if p]
    spec = importlib.util.find_spec("PySide6")
    if spec is not None and spec.submodule_search_locations:
        for location in spec.submodule_search_locations:
            folders.append(Path(location) / "Qt" / "plugins" / "platforms")
    return folders


def missing_libraries(
    environ: Mapping[str, str] = os.environ,
) -> MissingLibraries | None:
    """The system libraries Qt's platform plugin lacks on this Linux (None: none, another system, a platform
    that needs none, or no `ldd` to ask)."""
    if not sys.platform.startswith("linux"):
        return None
    name = PLUGIN_FILES.get(chosen_platform(environ))
    ldd = shutil.which("ldd")
    if name is None or ldd is None:
        return None
    plugin = next((folder / name for folder in plugin_folders(environ) if (folder / name).is_file()), None)
    if plugin is None:
        return None  # Qt says itself that it has no such plugin
    try:
        done = subprocess.run([ldd, str(plugin)], capture_output=True, text=True, timeout=20, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    libraries = not_found(done.stdout)
    if not libraries:
        return None
    packages = dict.fromkeys(
        p for lib in libraries if not lib.startswith(QT_OWN) and (p := debian_package(lib)) is not None
    )
    return MissingLibraries(plugin, tuple(libraries), tuple(packages))
