"""The log of `linkvet schedule`: stderr and a file (`linkvet.log` in the data directory, or `--log-file`),
one record per line whatever it holds (`desktop.cli._safe_text.OneLineFormatter`).

The file must be a regular file (rotated at 5 MB, 3 kept) or a character device such as /dev/null
(written, never rotated); a FIFO, a socket or a folder is refused before anything runs (a FIFO without
a reader would block the scheduler forever). A file that cannot be written once the run is under way (a
full disk, /dev/full) does not stop the measuring: it is said once on stderr, the log goes on on stderr,
and the command ends with exit code 3 saying so (`LogFile.check`).
"""

from __future__ import annotations

import errno
import logging
import logging.handlers
import os
import stat
import sys
import time
from pathlib import Path

from desktop.cli._safe_text import OneLineFormatter, printable
from desktop.cli.errors import EnvironmentRefused
from desktop.i18n import _

_FORMAT = "%(asctime)s %(levelname)s %(message)s"
_DATE_FORMAT = "%Y-%m-%dT%H:%M:%S%z"


class _NoteFailure:
    """What a file handler does when a write fails: note it, say it once on stderr, go on."""

    failure: str | None = None
    baseFilename: str

    def handleError(self, record: logging.LogRecord) -> None:
        if self.failure is not None:
            return
        exc = sys.exc_info()[1]
        self.failure = (getattr(exc, "strerror", None) or str(exc)) if exc is not None else _("unknown error")
        message = _("cannot write the log file {path}: {reason}; logging to stderr only").format(
            path=self.baseFilename, reason=self.failure
        )
        sys.stderr.write(f"linkvet: {printable(message)}\n")


class _RotatingLog(_NoteFailure, logging.handlers.RotatingFileHandler):
    pass


class _DeviceLog(_NoteFailure, logging.FileHandler):
    pass


class LogFile:
    """The file the log goes to, and whether writing it failed."""

    def __init__(self, path: Path, handler: _RotatingLog | _DeviceLog) -> None:
        self.path = path
        self.handler = handler

    def check(self) -> None:
        """Raise `EnvironmentRefused` if a record could not be written to the file."""
        if self.handler.failure is not None:
            raise EnvironmentRefused(
                _("the log file {path} could not be written: {reason}").format(
                    path=self.path, reason=self.handler.failure
                )
            )


def _not_a_file(path: Path) -> EnvironmentRefused:
    return EnvironmentRefused(
        _(
            "cannot write the log file {path}: it is a named pipe or a socket; the log must be a regular "
            "file or a device such as /dev/null"
        ).format(path=path)
    )


def _open_handler(path: Path) -> _RotatingLog | _DeviceLog:
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, flags | getattr(os, "O_CLOEXEC", 0), 0o644)
    except IsADirectoryError:
        raise EnvironmentRefused(
            _("cannot write the log file {path}: it is a folder").format(path=path)
        ) from None
    except OSError as exc:
        if exc.errno == errno.ENXIO:  # a FIFO nobody reads, or a socket
            raise _not_a_file(path) from None
        message = _("cannot write the log file {path}: {reason}")
        raise EnvironmentRefused(message.format(path=path, reason=exc.strerror or exc)) from exc
    try:
        mode = os.fstat(fd).st_mode
    finally:
        os.close(fd)
    if stat.S_ISREG(mode):
        return _RotatingLog(path, maxBytes=5_000_000, backupCount=3, encoding="utf-8")
    if stat.S_ISCHR(mode):
        return _DeviceLog(path, encoding="utf-8")
    raise _not_a_file(path)


def setup_logging(path: Path, quiet: bool) -> LogFile:
    """Log `linkvet.*` to stderr and to `path` (see the module's docstring); EnvironmentRefused when the
    file cannot be opened for writing."""
    handler = _open_handler(path)
    formatter = OneLineFormatter(_FORMAT, _DATE_FORMAT)
    formatter.converter = time.gmtime
    handler.setFormatter(formatter)
    console = logging.StreamHandler(sys.stderr)
    console.setFormatter(formatter)
    root = logging.getLogger("linkvet")
    root.setLevel(logging.WARNING if quiet else logging.INFO)
    root.addHandler(console)
    root.addHandler(handler)
    return LogFile(path, handler)
