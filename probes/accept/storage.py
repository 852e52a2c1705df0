"""Local storage: NVMe namespaces and their sizes from `/sys/block` (no root), and a sequential-read
figure from fio — a bounded run (`--fio`, read-only, `--readonly`) or a JSON the user supplies (fio may
print notes before its JSON; they are skipped). Figures that cannot be a measurement (`fio_doubt`: not finite,
more than a server's PCIe lanes carry, fewer bytes than the I/Os moved) are kept as "could not judge" with
the reason, never as readings."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from probes.accept.errors import ReadError
from probes.accept.machine import Machine, Reading, read_file
from probes.errors import Unavailable
from probes.files.inputfile import parse_json
from probes.i18n import _

BLOCK_ROOT = "/sys/block"
FIO_FILE = "fio.json"


@dataclass(frozen=True, slots=True)
class NvmeDisk:
    name: str
    size_bytes: int
    model: str | None

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "size_bytes": self.size_bytes,
            "size_tb": self.size_bytes / 1e12,
            "model": self.model,
        }


# What one server's storage can read: two sockets' PCIe 5 lanes (2 × 128 lanes × ~3.9 GB/s, about 1 TB/s;
# stas00/ml-engineering@744d01e:network/README.md, PCIe 5: 63 GB/s per 16 lanes one way) — a figure above
# it is not a measurement of local storage. An I/O moves at least one 512-byte sector, so a job's bandwidth
# is at least 512 × its IOPS.
MAX_READ_BYTES_S = 1e12
SECTOR_BYTES = 512


@dataclass(frozen=True, slots=True)
class FioResult:
    jobs: int
    read_bw_mbytes_s: float | None  # bytes/s ÷ 10^6, summed over jobs; None when it could not be judged
    read_iops: float | None
    write_bw_mbytes_s: float | None
    filename: str | None
    version: str | None
    doubt: str | None = None  # why the figures are not readings (see `fio_doubt`)

    def as_dict(self) -> dict[str, Any]:
        return {
            "jobs": self.jobs,
            "read_bw_mbytes_s": self.read_bw_mbytes_s,
            "read_iops": self.read_iops,
            "write_bw_mbytes_s": self.write_bw_mbytes_s,
            "filename": self.filename,
            "fio_version": self.version,
            "doubt": self.doubt,
        }


def fio_doubt(index: int, read_bw: float, iops: float, write_bw: float) -> str | None:
    """Why a fio job's figures cannot be a measurement (None: they can): not finite numbers of 0 or more,
    more than a server's PCIe lanes carry, or fewer bytes than its I/Os must have moved."""
    if not all(math.isfinite(x) and x >= 0 for x in (read_bw, iops, write_bw)):
        return _("jobs[{index}]: a bandwidth or IOPS that is not a finite number of 0 or more").format(
            index=index
        )
    for figure in (read_bw, write_bw):
        if figure > MAX_READ_BYTES_S:
            return _(
                "jobs[{index}]: {rate} GB/s is more than a server's PCIe lanes carry (about {most} GB/s)"
            ).format(index=index, rate=f"{figure / 1e9:.6g}", most=f"{MAX_READ_BYTES_S / 1e9:g}")
    if read_bw < SECTOR_BYTES * iops * (1 - 0.01) - 1:
        return _(
            "jobs[{index}]: {iops} IOPS cannot move only {rate} bytes/s (an I/O is at least {sector} bytes)"
        ).format(index=index, iops=f"{iops:.6g}", rate=f"{read_bw:.6g}", sector=SECTOR_BYTES)
    return None


def read_nvme(machine: Machine) -> tuple[tuple[NvmeDisk, ...] | None, Reading]:
    try:
        names = machine.sys_list(BLOCK_ROOT)
    except Unavailable as exc:
        return None, Reading("nvme", BLOCK_ROOT, "sysfs", "not read", reason=str(exc))
    disks = []
    for name in names:
        if not name.startswith("nvme"):
            continue
        size_path = f"{BLOCK_ROOT}/{name}/size"
        try:
            text = machine.sys_read(size_path).strip()
        except Unavailable:
            continue
        if not text.isdigit():
            raise ReadError(
                machine.shown(size_path),
                f"size {text[:40]!r}",
                line=1,
                expected=_("a count of 512-byte sectors"),
            )
        try:
            model: str | None = machine.sys_read(f"{BLOCK_ROOT}/{name}/device/model").strip() or None
        except Unavailable:
            model = None
        disks.append(NvmeDisk(name, int(text) * 512, model))
    path = None if machine.live else machine.shown(BLOCK_ROOT)
    return tuple(disks), Reading("nvme", BLOCK_ROOT, "sysfs", "read", path=path)


def parse_fio_json(text: str, where: str) -> FioResult:
    """fio's `--output-format=json`, after any lines fio printed before it."""
    start = next(
        (i for i, line in enumerate(text.splitlines(keepends=True)) if line.lstrip().startswith("{")), None
    )
    if start is None:
        raise ReadError(where, _("no JSON object in the file"), expected=_("fio --output-format=json output"))
    lines = text.splitlines(keepends=True)
    body = "".join(lines[start:])
    data = parse_json(
        body,
        lambda message, line: ReadError(
            where, message, line=None if line is None else start + line, expected="fio JSON"
        ),
    )
    if not isinstance(data, dict) or not isinstance(data.get("jobs"), list) or not data["jobs"]:
        raise ReadError(where, _("no `jobs` list"), expected=_("fio JSON with at least one job"))
    read_bw = write_bw = iops = 0.0
    doubt: str | None = None
    for index, job in enumerate(data["jobs"]):
        try:
            job_read = _figure(job["read"]["bw_bytes"])
            job_iops = _figure(job["read"]["iops"])
            job_write = _figure(job.get("write", {}).get("bw_bytes", 0))
        except (KeyError, TypeError, ValueError, AttributeError):
            raise ReadError(
                where,
                _("jobs[{index}] has no read.bw_bytes / read.iops").format(index=index),
                expected="fio JSON (fio ≥ 3)",
            ) from None
        doubt = doubt or fio_doubt(index, job_read, job_iops, job_write)
        read_bw += job_read
        iops += job_iops
        write_bw += job_write
    if doubt is None and read_bw > MAX_READ_BYTES_S:
        doubt = _(
            "{rate} GB/s over all jobs is more than a server's PCIe lanes carry (about {most} GB/s)"
        ).format(rate=f"{read_bw / 1e9:.6g}", most=f"{MAX_READ_BYTES_S / 1e9:g}")
    options = data.get("global options") or {}
    filename = options.get("filename") if isinstance(options, dict) else None
    version = data.get("fio version")
    return FioResult(
        jobs=len(data["jobs"]),
        read_bw_mbytes_s=None if doubt else read_bw / 1e6,
        read_iops=None if doubt else iops,
        write_bw_mbytes_s=None if doubt else write_bw / 1e6,
        filename=filename[:200] if isinstance(filename, str) else None,
        version=version[:40] if isinstance(version, str) else None,
        doubt=doubt,
    )


def _figure(value: Any) -> float:
    """A fio figure: a number (not a boolean), else ValueError."""
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise ValueError(value)
    return float(value)


def fio_command(device: str, runtime_s: int = 20) -> list[str]:
    """A bounded, read-only sequential read test of `device` (fio refuses to write with --readonly)."""
    return [
        "fio",
        "--name=linkvet-seqread",
        f"--filename={device}",
        "--readonly",
        "--rw=read",
        "--bs=1M",
        "--iodepth=32",
        "--ioengine=libaio",
        "--direct=1",
        "--numjobs=1",
        "--time_based",
        f"--runtime={runtime_s}",
        "--size=4G",
        "--output-format=json",
    ]


def read_fio(
    machine: Machine, *, user_file: Path | None = None, run_on: str | None = None
) -> tuple[FioResult | None, Reading]:
    if user_file is not None:
        try:
            text = read_file(user_file)
        except Unavailable as exc:
            return None, Reading("fio", str(user_file), "file", "not read", reason=str(exc))
        result = parse_fio_json(text, str(user_file))
        machine.save(FIO_FILE, text)  # a recording keeps the user's result too
        return result, Reading("fio", str(user_file), "file", "read", path=str(user_file))
    if not machine.live:
        try:
            text = machine.run(["fio"], record_as=FIO_FILE)
        except Unavailable as exc:
            return None, Reading("fio", "fio", "file", "not read", reason=str(exc))
        return parse_fio_json(text, machine.shown(FIO_FILE)), Reading(
            "fio", "fio", "file", "read", path=machine.shown(FIO_FILE)
        )
    if run_on is None:
        return None, Reading(
            "fio",
            "fio",
            "command",
            "not read",
            reason=_("not asked for (--fio DEVICE runs a bounded read test)"),
        )
    command = fio_command(run_on)
    try:
        text = machine.run(command, record_as=FIO_FILE, timeout_s=60)
    except Unavailable as exc:
        return None, Reading("fio", " ".join(command), "command", "not read", reason=str(exc))
    return parse_fio_json(text, "fio output"), Reading("fio", " ".join(command), "command", "read")
