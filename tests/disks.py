"""Disks that refuse: a tiny tmpfs filled to the last byte, a read-only bind mount (root and CAP_SYS_ADMIN;
a test skips, saying why, where mounting is not allowed)."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


@contextmanager
def mounted(where: Path, *options: str) -> Iterator[Path]:
    where.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(["mount", *options, str(where)], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount here (root and CAP_SYS_ADMIN needed): {done.stderr.strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


@contextmanager
def tiny_disk(tmp_path: Path) -> Iterator[Path]:
    with mounted(tmp_path / "disk", "-t", "tmpfs", "-o", "size=3m", "tmpfs") as disk:
        yield disk


def fill(disk: Path) -> Path:
    filler = disk / "filler"
    # Unbuffered: a buffered file would try the bytes the full disk refused once more when closed.
    with filler.open("wb", buffering=0) as out:
        try:
            while True:
                out.write(b"\0" * 65536)
                out.flush()
        except OSError:
            pass
    return filler
