"""Issue 31 §5: messages. A message of several lines prints as lines (never a literal `\\n`); a FIFO, a
folder or a device is named as what it is; a damaged store is not told to "run as its owner"; the
validation library's own text and links never reach a person; a value is echoed at most ~200 characters."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.accept.conftest import CATALOGS, SCENARIOS
from tests.conftest import REPO_ROOT
from tests.usecases.test_questionnaire import export

RunLinkvet = Callable[..., subprocess.CompletedProcess[str]]
LONG = "a" * 5000


def said(done: subprocess.CompletedProcess[str]) -> str:
    text = done.stdout + done.stderr
    assert "Traceback" not in text, text
    return text


def test_an_error_of_several_lines_prints_as_lines(
    run_linkvet: RunLinkvet, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from openpyxl import load_workbook

    monkeypatch.setenv("LINKVET_CATALOG_DIR", str(tmp_path / "user"))
    book_path = export(tmp_path, needs=False)
    book = load_workbook(book_path)
    rows = {r[0].value: r for ws in book.worksheets for r in ws.iter_rows(min_row=3) if r[0].value}
    rows["service.billing"][7].value = "weekly"
    rows["service.sla_uptime_percent"][7].value = "lots"
    book.save(tmp_path / "bad.xlsx")
    done = run_linkvet("questionnaire", "import", str(tmp_path / "bad.xlsx"), "--provider", "raksmart")
    text = said(done)
    assert done.returncode == 2 and "\\n" not in text, text
    lines = done.stderr.splitlines()
    assert lines[0].endswith("2 answer(s) not valid, nothing written:") and lines[0].startswith("linkvet: ")
    assert {line.split(", row")[0].strip() for line in lines[1:]} == {"Provider"} and len(lines) == 3


def test_a_fifo_a_folder_and_a_device_are_named_for_what_they_are(
    run_linkvet: RunLinkvet, tmp_path: Path
) -> None:
    fifo = tmp_path / "report.json"
    os.mkfifo(fifo)
    for given, words in (
        (fifo, "is a named pipe (FIFO), not a regular file"),
        (tmp_path, "is a folder, not a file"),
        (Path("/dev/null"), "is a device, not a regular file"),
    ):
        for command in (
            ("accept", "import", str(given)),
            ("questionnaire", "import", str(given), "--provider", "raksmart"),
        ):
            done = run_linkvet(*command)
            text = said(done)
            assert done.returncode == 2 and f"{given}: {words}" in text and "no such file" not in text, text


def test_a_damaged_store_is_not_told_to_run_as_its_owner(run_linkvet: RunLinkvet, tmp_path: Path) -> None:
    store = tmp_path / "old.sqlite3"
    shutil.copy(REPO_ROOT / "tests" / "probes" / "fixtures" / "store-v2.sqlite3", store)
    data = bytearray(store.read_bytes())
    for offset in range(4096 * 2, len(data), 4096):  # every page but the header's and the schema's
        data[offset + 100 : offset + 400] = b"\xff" * 300
    store.write_bytes(bytes(data))
    done = run_linkvet("history", "--db", str(store))  # a reader: it upgrades the older store first
    text = said(done)
    assert done.returncode == 3 and "the result store is damaged" in text, text
    assert "as its owner" not in text and "cannot write it" not in text


def test_a_forged_report_is_refused_in_our_words(run_linkvet: RunLinkvet, tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    done = run_linkvet(
        "accept", "--replay", str(SCENARIOS / "nv18-box"), "--provider", "trialco", "--offering", "h100-sxm-8x",
        "--catalogs", str(CATALOGS), "--out", str(report),
    )  # fmt: skip
    assert done.returncode in (0, 4), done.stderr
    data = json.loads(report.read_text())
    gpu = next(c for c in data["checks"] if c["fact"] == "gpu")
    gpu["catalog_value"] = {"nested": [1, 2]}
    report.write_text(json.dumps(data))
    done = run_linkvet("accept", "import", str(report), "--catalogs", str(CATALOGS))
    text = said(done)
    assert done.returncode == 2 and f"{report}: checks[" in text and "(gpu): " in text, text
    assert "got a table" in text
    for raw in ("pydantic", "errors.pydantic.dev", "Input should be", "type=", "input_value"):
        assert raw not in text, text


@pytest.mark.parametrize(
    "args",
    [
        ("probe", LONG, "--no-store"),
        ("probe", f"http://{LONG}/", "-m", "http", "--no-store"),
        ("probe", "127.0.0.1", "-m", LONG),
        ("catalog", "list", "--provider", LONG),
        ("export", "--since", LONG, "--out", "x.xlsx"),
    ],
)
def test_a_value_is_echoed_at_most_about_200_characters(
    run_linkvet: RunLinkvet, args: tuple[str, ...]
) -> None:
    done = run_linkvet(*args, timeout=60)
    text = said(done)
    assert done.returncode == 2, text
    runs = re.findall(r"a{50,}", text)
    assert runs and max(len(r) for r in runs) <= 200, [len(r) for r in runs]
    assert max(len(line) for line in text.splitlines()) < 600


def test_a_replay_folder_that_is_not_one_is_named_for_what_it_is(
    run_linkvet: RunLinkvet, tmp_path: Path
) -> None:
    fifo = tmp_path / "replay"
    os.mkfifo(fifo)
    a_file = tmp_path / "a-file"
    a_file.write_text("x")
    for given, words in (
        (fifo, "is a named pipe (FIFO), not a folder"),
        (a_file, "is a file, not a folder"),
        (Path("/dev/null"), "is a device, not a folder"),
        (tmp_path / "missing", "no such folder"),
    ):
        done = run_linkvet("accept", "--replay", str(given))
        assert done.returncode == 2 and f"--replay {given}: {words}" in said(done)
