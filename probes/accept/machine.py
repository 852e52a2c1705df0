"""Where the acceptance readers read from: this computer, or a directory of recorded outputs.

`LiveMachine` runs commands (with a time cap) and reads sysfs; given `record_dir` it also writes every
output it read into that directory, in the layout `ReplayMachine` reads back:

    DIR/hostname, DIR/nvidia-smi-q.xml, DIR/nvidia-smi-topo-m.txt, DIR/nvidia-smi-nvlink-s.txt,
    DIR/ipmitool-mc-info.txt, DIR/ipmitool-sdr-power-supply.txt   one file per command
    DIR/sys/...                                                    a copy of each sysfs file read
    DIR/dev/ipmi0 ...                                              an empty file per device node seen

Every read is bounded (`MAX_OUTPUT_BYTES` for outputs and user files, `MAX_SYSFS_BYTES` for one sysfs
file): a larger input is a `ReadError` naming the file, never a memory blow-up. An input that is simply
not there (no such command, no such file, permission denied) raises `Unavailable` with the reason, which
the readers turn into a "not read" entry of the report; it never leaves `probes.accept`.
"""

from __future__ import annotations

import errno
import os
import shutil
import socket
import subprocess
import tempfile
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from probes.accept.errors import ReadError
from probes.errors import OutsideReplay, Unavailable
from probes.files import textinput
from probes.i18n import _

MAX_OUTPUT_BYTES = 8 * 1024 * 1024
MAX_SYSFS_BYTES = 64 * 1024

Method = Literal["library", "command", "sysfs", "file", "network"]
Status = Literal["read", "not read"]


@dataclass(frozen=True, slots=True)
class Reading:
    """How one input was read, for the report's `read` list."""

    reader: str
    source: str
    method: Method
    status: Status
    path: str | None = None
    reason: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "reader": self.reader,
            "source": self.source,
            "method": self.method,
            "status": self.status,
            "path": self.path,
            "reason": self.reason,
        }


def _size_text(n: int) -> str:
    return f"{n / (1024 * 1024):.0f} MiB" if n >= 1024 * 1024 else f"{n // 1024} KiB"


def decode(data: bytes, where: str) -> str:
    """UTF-8 text, or a ReadError naming the line of the first undecodable byte."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise ReadError(where, _("not UTF-8 text (byte {byte})").format(byte=exc.start), line=line) from None


def read_file(path: Path, *, limit: int = MAX_OUTPUT_BYTES, shown: str | None = None) -> str:
    """A user-supplied or recorded file, at most `limit` bytes, read as every input is
    (`probes.files.textinput`: a FIFO or a device is refused, never read). Missing or unreadable: `Unavailable`;
    not a regular file, larger than the limit or not text: `ReadError`."""
    where = shown or str(path)
    try:
        return textinput.decode(textinput.read_bytes(path, limit))
    except textinput.InputRefused as refused:
        if refused.kind == "missing":
            raise Unavailable(_("{path} does not exist").format(path=where)) from None
        if refused.kind == "unreadable":
            raise Unavailable(f"{where}: {refused.message}") from None
        raise ReadError(where, refused.message, line=refused.line) from None


class Machine:
    """The interface the readers use. Paths are absolute paths as on a live Linux machine."""

    live: bool

    def describe(self) -> str:
        raise NotImplementedError

    def hostname(self) -> str:
        raise NotImplementedError

    def run(self, argv: Sequence[str], *, record_as: str, timeout_s: float = 60.0) -> str:
        """The command's standard output (Unavailable when it is missing or fails)."""
        raise NotImplementedError

    def sys_read(self, path: str) -> str:
        """One sysfs file, stripped of its trailing newline."""
        raise NotImplementedError

    def sys_list(self, path: str) -> list[str]:
        """The entries of a sysfs directory, sorted (Unavailable when it does not exist)."""
        raise NotImplementedError

    def dev_entries(self, names: Sequence[str]) -> list[str]:
        """Which of the device nodes `/dev/NAME` exist."""
        raise NotImplementedError

    def shown(self, path: str) -> str:
        """How a sysfs path or recorded output is named in messages."""
        return path

    def recorded(self, subdir: str) -> list[Path]:
        """The files of a replay directory's `subdir` (nccl/, traces/), sorted; none on a live machine."""
        return []

    def save(self, relative: str, text: str) -> None:
        """Keep an output in the recording directory (live machines that record; a no-op otherwise)."""

    def read_recorded(self, path: Path) -> str:
        """A file `recorded` listed."""
        return read_file(path)


class LiveMachine(Machine):
    """This computer. With `record_dir`, everything read is also written there (see module docstring)."""

    live = True

    def __init__(self, record_dir: Path | None = None, root: Path = Path("/")) -> None:
        self.record_dir = record_dir
        self.root = root
        if record_dir is not None:
            record_dir.mkdir(parents=True, exist_ok=True)
            (record_dir / "hostname").write_text(self.hostname() + "\n", encoding="utf-8")

    def describe(self) -> str:
        if self.record_dir:
            return _("this machine (recording to {folder})").format(folder=self.record_dir)
        return _("this machine")

    def hostname(self) -> str:
        return socket.gethostname()

    def save(self, relative: str, text: str) -> None:
        self._record(relative, text)

    def _record(self, relative: str, text: str) -> None:
        if self.record_dir is None:
            return
        target = self.record_dir / relative.lstrip("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")

    def run(self, argv: Sequence[str], *, record_as: str, timeout_s: float = 60.0) -> str:
        command = " ".join(argv)
        if shutil.which(argv[0]) is None:
            raise Unavailable(_("{command} is not installed (not on PATH)").format(command=argv[0]))
        timed_out = threading.Event()
        with tempfile.TemporaryFile() as stderr:
            try:
                proc = subprocess.Popen(
                    list(argv), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=stderr
                )
            except OSError as exc:
                raise Unavailable(
                    _("`{command}` could not start: {reason}").format(
                        command=command, reason=exc.strerror or exc
                    )
                ) from None

            def kill() -> None:
                timed_out.set()
                proc.kill()

            timer = threading.Timer(timeout_s, kill)
            timer.start()
            try:
                assert proc.stdout is not None
                data = proc.stdout.read(MAX_OUTPUT_BYTES + 1)
                if len(data) > MAX_OUTPUT_BYTES:
                    proc.kill()
            finally:
                timer.cancel()
                if proc.stdout is not None:
                    proc.stdout.close()
                code = proc.wait()
            stderr.seek(0)
            err = stderr.read(4096).decode("utf-8", "replace").strip()
        if timed_out.is_set():
            raise Unavailable(
                _("`{command}` did not finish within {seconds} s").format(
                    command=command, seconds=f"{timeout_s:g}"
                )
            )
        if len(data) > MAX_OUTPUT_BYTES:
            raise ReadError(command, _("printed more than {size}").format(size=_size_text(MAX_OUTPUT_BYTES)))
        text = decode(data, command)
        if code != 0:
            first = (err or text).strip().splitlines()[:1]
            if first:
                raise Unavailable(
                    _("`{command}` exited with status {code}: {line}").format(
                        command=command, code=code, line=first[0]
                    )
                )
            raise Unavailable(_("`{command}` exited with status {code}").format(command=command, code=code))
        self._record(record_as, text)
        return text

    def _path(self, path: str) -> Path:
        return self.root / path.lstrip("/")

    def sys_read(self, path: str) -> str:
        try:
            with self._path(path).open("rb") as handle:
                data = handle.read(MAX_SYSFS_BYTES + 1)
        except FileNotFoundError:
            raise Unavailable(_("{path} does not exist").format(path=path)) from None
        except PermissionError:
            raise Unavailable(
                _("{path}: permission denied (readable by root only)").format(path=path)
            ) from None
        except OSError as exc:
            if exc.errno == errno.EINVAL:  # e.g. the speed of a link that is down
                raise Unavailable(
                    _("{path}: the kernel gives no value (link down?)").format(path=path)
                ) from None
            raise Unavailable(f"{path}: {exc.strerror or exc}") from None
        if len(data) > MAX_SYSFS_BYTES:
            raise ReadError(
                path, _("larger than {size}: not a sysfs attribute").format(size=_size_text(MAX_SYSFS_BYTES))
            )
        text = decode(data, path)
        self._record(path, text)
        return text.rstrip("\n")

    def sys_list(self, path: str) -> list[str]:
        try:
            names = sorted(os.listdir(self._path(path)))
        except FileNotFoundError:
            raise Unavailable(_("{path} does not exist").format(path=path)) from None
        except NotADirectoryError:
            raise Unavailable(_("{path} is not a directory").format(path=path)) from None
        except PermissionError:
            raise Unavailable(_("{path}: permission denied").format(path=path)) from None
        if self.record_dir is not None:
            (self.record_dir / path.lstrip("/")).mkdir(parents=True, exist_ok=True)
            for name in names:
                if (self._path(path) / name).is_dir():
                    (self.record_dir / path.lstrip("/") / name).mkdir(exist_ok=True)
        return names

    def dev_entries(self, names: Sequence[str]) -> list[str]:
        found = [name for name in names if os.path.exists(self._path(f"/dev/{name}"))]
        for name in found:
            self._record(f"/dev/{name.replace('/', '-')}", "")
        return found


class ReplayMachine(Machine):
    """A directory of recorded outputs (see the module docstring for its layout). Only what lies inside it
    is read: a name that leads out of it (a symbolic link to /etc/passwd, `..`) is not opened, listed or
    printed — the input is "not read" with that reason — and what is read must be a regular file."""

    live = False

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._root = directory.resolve()

    def describe(self) -> str:
        return _("recorded outputs in {folder}").format(folder=self.directory)

    def _inside(self, relative: str) -> Path:
        """The path of `relative` in the replay directory, its links followed; `Unavailable` when it leads
        outside the directory."""
        local = self.directory / relative.lstrip("/")
        try:
            resolved = local.resolve()
        except (OSError, RuntimeError):  # a link loop
            raise OutsideReplay(
                _("{path}: a symbolic link that leads nowhere; not read").format(path=local)
            ) from None
        if not resolved.is_relative_to(self._root):
            raise OutsideReplay(_("{path} leads outside the replay folder; not read").format(path=local))
        return resolved

    def hostname(self) -> str:
        try:
            name = read_file(
                self._inside("hostname"), limit=4096, shown=str(self.directory / "hostname")
            ).strip()
        except Unavailable:
            name = ""
        except ReadError:
            name = ""
        name = name.splitlines()[0][:253] if name else ""
        return name or f"replay of {self.directory.name}"

    def shown(self, path: str) -> str:
        return str(self.directory / path.lstrip("/"))

    def recorded(self, subdir: str) -> list[Path]:
        try:
            folder = self._inside(subdir)
        except Unavailable:
            return []
        if not folder.is_dir():
            return []
        found = []
        for entry in sorted(folder.iterdir()):
            try:
                inside = self._inside(f"{subdir}/{entry.name}")
            except Unavailable:
                continue  # a link out of the folder: not read, not listed
            if inside.is_file():
                found.append(self.directory / subdir / entry.name)
        return found

    def read_recorded(self, path: Path) -> str:
        """A file `recorded` listed, read only if it still lies inside the replay directory."""
        relative = path.relative_to(self.directory).as_posix()
        return read_file(self._inside(relative), shown=str(path))

    def run(self, argv: Sequence[str], *, record_as: str, timeout_s: float = 60.0) -> str:
        shown = str(self.directory / record_as)
        try:
            return read_file(self._inside(record_as), shown=shown)
        except OutsideReplay:
            raise
        except Unavailable:
            raise Unavailable(
                _("no {file} in the replay directory (`{command}` output)").format(
                    file=record_as, command=" ".join(argv)
                )
            ) from None

    def sys_read(self, path: str) -> str:
        local = self.directory / path.lstrip("/")
        try:
            return read_file(self._inside(path), limit=MAX_SYSFS_BYTES, shown=str(local)).rstrip("\n")
        except OutsideReplay:
            raise
        except Unavailable:
            raise Unavailable(_("{path} is not in the replay directory").format(path=path)) from None

    def sys_list(self, path: str) -> list[str]:
        local = self._inside(path)
        if not local.is_dir():
            raise Unavailable(_("{path} is not in the replay directory").format(path=path))
        return sorted(os.listdir(local))

    def dev_entries(self, names: Sequence[str]) -> list[str]:
        found = []
        for name in names:
            try:
                if self._inside(f"dev/{name.replace('/', '-')}").exists():
                    found.append(name)
            except Unavailable:
                continue
        return found
