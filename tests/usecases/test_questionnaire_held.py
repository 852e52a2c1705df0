"""Issue 31 §2: questionnaire answers held to the questions asked. Each seen case of the hostile sweep: a
value outside the stated list or range, an offering, region or key the workbook never asked about, an
endpoint that is not an IP address, host name or http(s) URL, a question answered twice, the same answers
imported again from a copy, a zip bomb, a damaged sheet — refused with sheet, row and key (or the file and
the part), nothing written, never a traceback."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
import zipfile
import zlib
from pathlib import Path
from typing import Any

import pytest
from openpyxl import load_workbook

from catalogs.errors import CatalogFileError
from catalogs.loader import parse_catalog_text
from desktop.i18n import language as in_language
from desktop.usecases.errors import InputError
from desktop.usecases.offerings import load_catalog_set
from desktop.usecases.questionnaire import AnswersInvalid, check_answers, import_questionnaire
from desktop.usecases.questionnaire_workbook import ANSWER, KEY, read_answers
from tests.conftest import cli_env
from tests.usecases.test_questionnaire import OFFERING, answer_everything, export


@pytest.fixture
def user_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "user-catalogs"
    monkeypatch.setenv("LINKVET_CATALOG_DIR", str(folder))
    return folder


@pytest.fixture
def answered(tmp_path: Path, user_dir: Path) -> Path:
    """A workbook answered the way a vendor would, every answer valid."""
    path = tmp_path / "answered.xlsx"
    answer_everything(export(tmp_path, needs=False), path)
    return path


def refused(path: Path) -> dict[str, Any]:
    with pytest.raises(AnswersInvalid) as raised:
        import_questionnaire(path, load_catalog_set(), "raksmart")
    return {p.key: p for p in raised.value.problems}


def with_answers(source: Path, target: Path, answers: dict[str, Any]) -> Path:
    """`source` with these answers typed in: into the key's own row, or into a new row under the last one
    (a key the workbook never asked, as a vendor who unprotects the sheet could add)."""
    book = load_workbook(source)
    sheet = book["Offerings"]
    rows = {
        row[KEY].value: row for ws in book.worksheets for row in ws.iter_rows(min_row=3) if row[KEY].value
    }
    for key, value in answers.items():
        if key in rows:
            rows[key][ANSWER].value = value
        else:
            spare = sheet.max_row + 1
            sheet.cell(spare, KEY + 1, key)
            sheet.cell(spare, ANSWER + 1, value)
    book.save(target)
    return target


@pytest.mark.parametrize(
    ("key", "value", "message", "expected"),
    [
        (f"offering[{OFFERING}].currency", "BTC", "not one of the values asked for", "USD / CNY / EUR"),
        ("service.billing", "hourly, weekly", "weekly: not among the values asked for", "hourly, per-minute"),
        (
            f"offering[{OFFERING}].price.node_month",
            9e15,
            "9e+15 is outside the range asked for",
            "10,000,000",
        ),
        (f"offering[{OFFERING}].gpus_per_node", 7.5, "not a whole number", "a whole number from 1 to 72"),
        (f"offering[{OFFERING}].regions", "san-jose, mars-1", "mars-1: not among the values asked for", ""),
        ("service.support_24x7", "maybe", "not yes or no", "yes / no"),
    ],
)
def test_a_value_outside_the_stated_list_or_range_is_refused(
    tmp_path: Path, answered: Path, key: str, value: Any, message: str, expected: str
) -> None:
    problems = refused(with_answers(answered, tmp_path / "bad.xlsx", {key: value}))
    assert set(problems) == {key}
    problem = problems[key]
    assert problem.message == message and expected in (problem.expected or "")
    assert problem.sheet in ("Provider", "Offerings") and problem.row > 2
    assert f"{problem.sheet}, row {problem.row}, {key}: {message}" in problem.describe()


def test_offerings_regions_and_keys_the_workbook_did_not_ask_are_refused(
    tmp_path: Path, answered: Path, user_dir: Path
) -> None:
    bad = with_answers(
        answered,
        tmp_path / "extra.xlsx",
        {
            "offering[new-one].gpu": "H100 SXM",
            "region[mars-1].endpoints": "203.0.113.9",
            f"offering[{OFFERING}].warp_drive": "yes",
        },
    )
    problems = refused(bad)
    assert problems["offering[new-one].gpu"].message == "the questionnaire did not ask about offering new-one"
    assert OFFERING in (problems["offering[new-one].gpu"].expected or "")
    assert problems["region[mars-1].endpoints"].message == "the questionnaire did not ask about region mars-1"
    assert "no question has this key" in problems[f"offering[{OFFERING}].warp_drive"].message
    assert not (user_dir / "raksmart.overlay.toml").exists()
    about = {r[0]: r[1] for r in load_workbook(answered)["About"].iter_rows(values_only=True)}
    assert about["offerings"] == ", ".join(o.id for o in load_catalog_set().provider("raksmart").offerings)  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("endpoints", "why"),
    [
        (
            "javascript:alert(1)",
            "'javascript:alert(1)': a javascript: address, not an http:// or https:// URL",
        ),
        ("file:///etc/passwd", "'file:///etc/passwd': a file: address, not an http:// or https:// URL"),
        ("https://lg.example.net/\r\nX-Evil: 1", "a URL with a space, a line break or a control character"),
        ("https://lg.example.net/a b", "a URL with a space, a line break or a control character"),
        ("203.0.113.10\n198.51.100.1", "an address with a space, a line break or a control character"),
        ("lg example net", "an address with a space, a line break or a control character"),
        ("gopher://lg.example.net/", "a gopher: address, not an http:// or https:// URL"),
        ("not_a_host!", "not an IP address or a host name"),
    ],
)
def test_an_endpoint_must_be_an_ip_a_host_name_or_an_http_url(
    tmp_path: Path, answered: Path, endpoints: str, why: str
) -> None:
    problems = refused(
        with_answers(answered, tmp_path / "ep.xlsx", {"region[san-jose].endpoints": endpoints})
    )
    (problem,) = problems.values()
    assert problem.key == "region[san-jose].endpoints" and why in problem.message
    assert (
        problem.expected == "IP addresses, host names, test-file or looking-glass URLs, separated by commas"
    )


def test_a_test_file_url_is_downloaded_a_page_url_is_a_looking_glass_and_an_address_is_pinged(
    tmp_path: Path, answered: Path, user_dir: Path
) -> None:
    given = (
        "203.0.113.9, lg.example.net, https://lg.example.net/, http://198.18.1.1/100MB.test, "
        "https://speed.example.net/files/large.bin?x=1, https://lg.example.net/lg.php, https://x.example.net/a/"
    )
    path = with_answers(answered, tmp_path / "files.xlsx", {"region[san-jose].endpoints": given})
    import_questionnaire(path, load_catalog_set(), "raksmart")
    region = next(r for r in load_catalog_set().provider("raksmart").regions if r.id == "san-jose")  # type: ignore[union-attr]
    kinds = {e.url or e.host: e.kind for e in region.endpoints}
    assert {address: kinds.get(address) for address in given.split(", ")} == {
        "203.0.113.9": "ping",
        "lg.example.net": "ping",
        "https://lg.example.net/": "looking_glass",
        "http://198.18.1.1/100MB.test": "http_file",
        "https://speed.example.net/files/large.bin?x=1": "http_file",
        "https://lg.example.net/lg.php": "looking_glass",
        "https://x.example.net/a/": "looking_glass",
    }


@pytest.mark.parametrize(
    "address",
    [
        'host = "javascript:alert(1)"',
        'url = "file:///etc/passwd"',
        'url = "https://lg.example.net/\\r\\nX: 1"',
    ],
)
def test_no_catalog_can_hold_such_an_endpoint_so_none_is_offered_as_a_target(address: str) -> None:
    kind = "ping" if address.startswith("host") else "looking_glass"
    text = f"""format_version = 1
[provider]
id = "evil"
name = "Evil"
source = "test"
as_of = "2026-12"
[[regions]]
id = "r1"
source = "test"
as_of = "2026-12"
[[regions.endpoints]]
kind = "{kind}"
{address}
"""
    catalog, errors = parse_catalog_text(text, Path("evil.toml"))
    assert catalog is None and errors and all(isinstance(e, CatalogFileError) for e in errors)
    message = str(errors[0])
    assert "evil.toml" in message and "regions[0].endpoints[0]" in message.replace(" ", "")
    assert "errors.pydantic.dev" not in message


def test_a_question_answered_twice_names_both_rows(tmp_path: Path, answered: Path, user_dir: Path) -> None:
    book = load_workbook(answered)
    sheet = book["Offerings"]
    key = f"offering[{OFFERING}].price.gpu_hour"
    first = next(row for row in sheet.iter_rows(min_row=3) if row[KEY].value == key)
    spare = sheet.max_row + 1
    sheet.cell(spare, KEY + 1, key)
    sheet.cell(spare, ANSWER + 1, 0.5)
    book.save(tmp_path / "twice.xlsx")
    problems = refused(tmp_path / "twice.xlsx")
    (problem,) = problems.values()
    assert problem.row == spare and problem.given == 0.5
    assert problem.message == f"the key is answered twice: here and in Offerings, row {first[0].row}"
    assert not (user_dir / "raksmart.overlay.toml").exists()
    # skipping the invalid ones takes neither answer: which one the vendor meant is not known
    taken = import_questionnaire(tmp_path / "twice.xlsx", load_catalog_set(), "raksmart", skip_invalid=True)
    assert key not in taken.overlay.read_text(encoding="utf-8")


@pytest.mark.parametrize("dated", [True, False])
def test_the_same_answers_again_from_a_copy_change_nothing(
    tmp_path: Path, user_dir: Path, dated: bool
) -> None:
    answered = tmp_path / "answers.xlsx"
    answer_everything(export(tmp_path, needs=False), answered, None if dated else {"meta.answered_on": None})
    first = import_questionnaire(answered, load_catalog_set(), "raksmart")
    assert sum(c.what == "added" for c in first.changes) > 20
    written = (user_dir / "raksmart.overlay.toml").read_text(encoding="utf-8")
    copy = tmp_path / "Copy of answers (2).xlsx"
    shutil.copy(answered, copy)
    for again in (answered, copy):
        result = import_questionnaire(again, load_catalog_set(), "raksmart", today="2027-01-15")
        assert {c.what for c in result.changes} == {"unchanged"}, [
            c for c in result.changes if c.what != "unchanged"
        ]
        assert (user_dir / "raksmart.overlay.toml").read_text(encoding="utf-8") == written  # no history added
    # a new answer is still a change, with the earlier value in its history
    changed = with_answers(answered, tmp_path / "new.xlsx", {f"offering[{OFFERING}].price.gpu_hour": 1.5})
    result = import_questionnaire(changed, load_catalog_set(), "raksmart")
    assert [c.key for c in result.changes if c.what == "changed"] == [f"offering[{OFFERING}].price.gpu_hour"]


@pytest.mark.parametrize(
    ("fabric", "because"),
    [
        ("nvswitch", "which was refused: this field is required"),  # not a value the question allows
        (None, "which these answers do not give: this field is required"),  # left empty
    ],
)
def test_skipping_an_answer_skips_the_answers_that_cannot_stand_without_it(
    tmp_path: Path, answered: Path, user_dir: Path, monkeypatch: pytest.MonkeyPatch, fabric: Any, because: str
) -> None:
    """The offering has no inter-node table in the catalog, so its other inter-node answers need the fabric
    answered: with --skip-invalid they are skipped too, each on its own row naming the fabric's (it was
    once checked again and again, then refused as a whole); every other answer is written."""
    from desktop.usecases import questionnaire
    from desktop.usecases.user_catalogs import apply_facts, offering_values

    catalog = load_catalog_set().provider("raksmart")
    assert catalog is not None
    assert offering_values(catalog, OFFERING)["inter_node.fabric"] == (None, None)
    key = f"offering[{OFFERING}].inter_node.fabric"
    path = with_answers(answered, tmp_path / "fabric.xlsx", {key: fabric})
    rows = {a.key: a for a in read_answers(path).answers if a.value is not None}
    needing = {k for k in rows if k.startswith(f"offering[{OFFERING}].inter_node.")} - {key}
    assert len(needing) >= 3
    validations = []

    def counted(*args: Any, **kwargs: Any) -> Any:
        validations.append(kwargs.get("write", True))
        return apply_facts(*args, **kwargs)

    monkeypatch.setattr(questionnaire, "apply_facts", counted)
    result = import_questionnaire(path, load_catalog_set(), "raksmart", skip_invalid=True)
    assert len(validations) <= 3  # two checks, then the write
    skipped = {p.key: p for p in result.skipped}
    assert set(skipped) == needing | ({key} if fabric is not None else set())
    fabric_row = f"Offerings, row {rows[key].row}" if fabric is not None else ""
    for need in needing:
        problem = skipped[need]
        assert (problem.sheet, problem.row, problem.given) == ("Offerings", rows[need].row, rows[need].value)
        assert problem.message.startswith(
            f"not written: it needs {'the' if fabric else 'an'} answer to {key}"
        )
        assert fabric_row in problem.message and because in problem.message
        assert problem.expected == f"a valid answer to {key} as well"
    assert result.answers == len(rows) - len([k for k in rows if k.startswith("meta.")]) - len(skipped)
    now = load_catalog_set().provider("raksmart")
    assert now is not None and now.overlay == user_dir / "raksmart.overlay.toml"
    values = offering_values(now, OFFERING)
    assert all(values[k.split("].", 1)[1]][0] is None for k in needing | {key})
    assert values["intra_node.kind"][0] == "nvswitch" and values["price.gpu_hour"][0] == 2.2
    # the same in Chinese, for the terminal and the window
    with in_language("zh_CN"):
        checked = check_answers(path, load_catalog_set(), "raksmart", skip_invalid=True)
    said = {p.key: p for p in checked.problems}
    assert set(said) == set(skipped)
    assert all(said[n].message.startswith(f"未写入：它离不开 {key} 的回答") for n in needing)


# -- workbooks that are not what they say ---------------------------------------------------------------


def _zip(members: list[tuple[str, bytes, int, int, int]], out: Path) -> Path:
    """Write a zip of already-deflated members: (name, deflated data, CRC-32, uncompressed size,
    compressed size) — what zipfile cannot do, and what a zip bomb is made of."""
    import struct

    body, directory = b"", b""
    for name, data, crc, size, packed in members:
        encoded = name.encode()
        header = struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, 8, 0, 0, crc, packed, size, len(encoded), 0)
        directory += (
            struct.pack(
                "<IHHHHHHIIIHHHHHII",
                0x02014B50,
                20,
                20,
                0,
                8,
                0,
                0,
                crc,
                packed,
                size,
                len(encoded),
                0,
                0,
                0,
                0,
                0,
                len(body),
            )
            + encoded
        )
        body += header + encoded + data
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(members), len(members), len(directory), len(body), 0)
    out.write_bytes(body + directory + end)
    return out


def _members(workbook: Path) -> list[tuple[str, bytes, int, int, int]]:
    found = []
    with zipfile.ZipFile(workbook) as archive:
        for info in archive.infolist():
            raw = archive.read(info)
            packer = zlib.compressobj(6, zlib.DEFLATED, -15)
            data = packer.compress(raw) + packer.flush()
            found.append((info.filename, data, zlib.crc32(raw), len(raw), len(data)))
    return found


def bomb(workbook: Path, out: Path, gigabytes: int = 2) -> Path:
    """`workbook` with its shared strings replaced by one string of `gigabytes` GiB of spaces, deflated to
    about 1 MB a GiB (a deflate block flushed whole can be repeated: the stream stays valid)."""
    head = (
        b'<?xml version="1.0"?><sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><si><t>'
    )
    tail = b"</t></si></sst>"
    chunk = b" " * (16 << 20)
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    start = packer.compress(head) + packer.flush(zlib.Z_FULL_FLUSH)
    block = packer.compress(chunk) + packer.flush(zlib.Z_FULL_FLUSH)
    end = packer.compress(tail) + packer.flush()
    repeats = gigabytes * 64
    crc = zlib.crc32(head)
    for _ in range(repeats):
        crc = zlib.crc32(chunk, crc)
    crc = zlib.crc32(tail, crc)
    data = start + block * repeats + end
    size = len(head) + repeats * len(chunk) + len(tail)
    members = [m for m in _members(workbook) if m[0] != "xl/sharedStrings.xml"]
    members.append(("xl/sharedStrings.xml", data, crc, size, len(data)))
    return _zip(members, out)


def test_a_zip_bomb_is_refused_before_it_is_decompressed(tmp_path: Path, answered: Path) -> None:
    path = bomb(answered, tmp_path / "bomb.xlsx")
    assert path.stat().st_size < 4 * 1024 * 1024
    started = time.perf_counter()
    with pytest.raises(InputError) as raised:
        read_answers(path)
    took = time.perf_counter() - started
    assert "xl/sharedStrings.xml would unpack to 2147 MB, more than a questionnaire holds" in str(
        raised.value
    )
    assert took < 1.0, took
    # the whole command, its memory measured: under 200 MB at its peak, the refusal in words, exit 2
    # VmHWM: this process's own peak (ru_maxrss would carry the forking test process's size over the exec)
    probe = (
        "import sys\n"
        "from desktop.cli import main\n"
        "code = main(sys.argv[1:])\n"
        "peak = next(line for line in open('/proc/self/status') if line.startswith('VmHWM:'))\n"
        "print('peak_rss_kib', peak.split()[1], file=sys.stderr)\n"
        "sys.exit(code)\n"
    )
    env = cli_env(tmp_path)
    env["LINKVET_CATALOG_DIR"] = str(tmp_path / "cli-catalogs")
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", probe, "questionnaire", "import", str(path), "--provider", "raksmart"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    elapsed = time.perf_counter() - started
    peak_kib = int(done.stderr.rsplit("peak_rss_kib", 1)[1].split()[0])
    print(
        f"bomb import: refused in {took * 1000:.0f} ms in-process; command {elapsed:.2f} s, peak RSS {peak_kib / 1024:.0f} MiB"
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert "would unpack to 2147 MB" in done.stderr
    assert peak_kib < 200 * 1024


def test_a_highly_compressed_member_and_too_many_parts_are_refused(tmp_path: Path, answered: Path) -> None:
    members = _members(answered)
    raw = b"<x>" + b" " * (2 << 20) + b"</x>"
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    data = packer.compress(raw) + packer.flush()
    dense = _zip(
        [*members, ("xl/media/dense.xml", data, zlib.crc32(raw), len(raw), len(data))], tmp_path / "d.xlsx"
    )
    with pytest.raises(InputError, match=r"xl/media/dense\.xml is compressed \d+:1, as a zip bomb is"):
        read_answers(dense)
    many = [*members, *((f"p{n}", members[0][1], *members[0][2:]) for n in range(300))]
    with pytest.raises(InputError, match=r"parts in the archive, more than a questionnaire has"):
        read_answers(_zip(many, tmp_path / "many.xlsx"))


def damaged(workbook: Path, out: Path) -> Path:
    """`workbook` with its first sheet's XML cut in the middle of a row: a valid zip, a damaged sheet."""
    members = []
    for name, data, crc, size, packed in _members(workbook):
        if name == "xl/worksheets/sheet1.xml":
            raw = zlib.decompress(data, -15)[: size // 2]
            packer = zlib.compressobj(6, zlib.DEFLATED, -15)
            data = packer.compress(raw) + packer.flush()
            crc, size, packed = zlib.crc32(raw), len(raw), len(data)
        members.append((name, data, crc, size, packed))
    return _zip(members, out)


def test_a_damaged_sheet_is_a_clear_error_in_english_and_chinese(tmp_path: Path, answered: Path) -> None:
    path = damaged(answered, tmp_path / "damaged.xlsx")
    with pytest.raises(InputError) as raised:
        read_answers(path)
    assert str(raised.value).startswith(f"{path}: the sheet ")
    assert "is damaged and cannot be read (not well-formed XML" in str(raised.value)
    env = cli_env(tmp_path)
    env["LINKVET_CATALOG_DIR"] = str(tmp_path / "cli-catalogs")
    for language, words in (("en", "is damaged and cannot be read"), ("zh_CN", "已损坏")):
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "desktop.cli",
                "--lang",
                language,
                "questionnaire",
                "import",
                str(path),
                "--provider",
                "raksmart",
            ],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
        assert words in done.stderr and str(path) in done.stderr


def test_what_is_not_a_file_is_named_for_what_it_is(tmp_path: Path) -> None:
    import os

    fifo = tmp_path / "answers.xlsx"
    os.mkfifo(fifo)
    env = cli_env(tmp_path)
    for given, words in (
        (fifo, "is a named pipe (FIFO), not a regular file"),
        (tmp_path, "is a folder, not a file"),
    ):
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "desktop.cli",
                "questionnaire",
                "import",
                str(given),
                "--provider",
                "raksmart",
            ],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 2 and words in done.stderr and "no such file" not in done.stderr, (
            done.stderr
        )
