"""The TOML files probes reads (plans, network tables) fail the same ways, in the same words, each naming
its file; a FIFO or a folder is refused before a byte is read (a FIFO would block forever)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from probes.errors import NetworkTableError, PlanError
from probes.routes.table import read_table_file
from probes.schedule.plan import load_plan

CASES: list[tuple[Callable[[Path], object], str, str]] = [
    (lambda p: None, "no such file", "no such file"),
    (lambda p: p.mkdir(), "is a folder, not a file", "is a folder, not a file"),
    (
        lambda p: os.mkfifo(p),
        "is a named pipe (FIFO), not a regular file: linkvet reads only regular files",
        "is a named pipe (FIFO), not a regular file: linkvet reads only regular files",
    ),
    (
        lambda p: p.write_bytes(b"version = 1\n\xff\xfe"),
        ":2: not UTF-8 text (invalid start byte at byte 12)",
        ": not UTF-8 text (invalid start byte at byte 12) (line 2)",
    ),
    (
        lambda p: p.write_text("version = 1\nname = \n"),
        ":2: TOML syntax error: Invalid value",
        ": not valid TOML: Invalid value (line 2)",
    ),
]


@pytest.mark.parametrize(("make", "plan_says", "table_says"), CASES)
def test_plans_and_network_tables_fail_alike(
    tmp_path: Path, make: Callable[[Path], object], plan_says: str, table_says: str
) -> None:
    path = tmp_path / "broken.toml"
    make(path)
    with pytest.raises(PlanError) as plan_error:
        load_plan(path)
    with pytest.raises(NetworkTableError) as table_error:
        read_table_file(path)
    assert str(plan_error.value).startswith(
        f"{path}{plan_says}" if plan_says[0] == ":" else f"{path}: {plan_says}"
    )
    assert (
        str(table_error.value) == f"{path}{table_says}" if table_says[0] == ":" else f"{path}: {table_says}"
    )
