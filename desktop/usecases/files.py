"""Writing a text file a person will read back (a catalog, an overlay): atomically, so that a crash, a full
disk or a second writer never leaves half a file — the text goes to a temporary file beside it, which is
synced and renamed over the old one. A target that exists and is not a regular file (a device such as
`/dev/full`, a pipe) is written in place: renaming over it would replace the device. Whatever the system
refuses (no space left, no permission, a folder that is a file) is a `WriteError` naming the file and why."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

from desktop.i18n import _
from desktop.usecases.errors import WriteError
from probes.files.inputfile import not_regular_reason


def not_a_file(path: Path) -> str | None:
    """Why `path` cannot be read as an input file, in words — "no such file", "is a named pipe (FIFO), not a
    regular file …", "is a folder, not a file", "is a device, …" — or None when it is a regular file."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return _("no such file")
    except OSError as exc:
        return _("cannot read: {reason}").format(reason=exc.strerror or exc)
    return None if stat.S_ISREG(mode) else not_regular_reason(mode)


def not_a_folder(path: Path) -> str | None:
    """Why `path` cannot be read as a folder, in words, or None when it is one."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return _("no such folder")
    except OSError as exc:
        return _("cannot read: {reason}").format(reason=exc.strerror or exc)
    if stat.S_ISDIR(mode):
        return None
    if stat.S_ISREG(mode):
        return _("is a file, not a folder")
    if stat.S_ISFIFO(mode):
        return _("is a named pipe (FIFO), not a folder")
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return _("is a device, not a folder")
    return _("is not a folder")


def write_text(path: Path, text: str) -> Path:
    """Write `text` (UTF-8) to `path`, creating its folder; the path written."""
    folder = path.parent
    if folder.exists() and not folder.is_dir():
        raise WriteError(
            _("{file}: cannot write: {folder} is a file, not a folder").format(file=path, folder=folder)
        )
    try:
        if path.exists() and not stat.S_ISREG(path.stat().st_mode):
            with path.open("w", encoding="utf-8") as out:
                out.write(text)
            return path
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                out.write(text)
                out.flush()
                os.fsync(out.fileno())
            os.replace(temporary, path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
    except OSError as exc:
        raise WriteError(
            _("{file}: cannot write: {reason}").format(file=path, reason=exc.strerror or exc)
        ) from exc
    return path
