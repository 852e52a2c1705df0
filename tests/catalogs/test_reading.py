"""Every catalogs data file is read the same way (`catalogs._toml`): an unreadable file, a file that is not
UTF-8, invalid TOML and a field that fails validation each give the reader's own error class, naming the
file, the line and the field. Hand-written edge cases."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from catalogs.checklist import CHECKLIST_PATH, load_checklist
from catalogs.errors import (
    CatalogFileError,
    ChecklistError,
    NeedsProfileError,
    SchemaError,
    SkyPilotImportError,
    TomlSyntaxError,
)
from catalogs.gpus import GPU_REFERENCE_PATH, load_gpu_reference
from catalogs.loader import load_catalog_file
from catalogs.needs import load_needs
from catalogs.skypilot import import_skypilot_csv
from tests.catalogs._builders import catalog_text, region


def load_catalog(path: Path) -> object:
    """`load_catalog_file` reports instead of raising (a broken catalog must not stop the others)."""
    loaded, errors = load_catalog_file(path)
    if errors:
        raise errors[0]
    return loaded


# reader, the error class for a file it cannot use, the error class for bad syntax, a valid file's text
READERS: dict[str, tuple[Callable[[Path], object], type[CatalogFileError], type[CatalogFileError], str]] = {
    "catalog": (load_catalog, CatalogFileError, TomlSyntaxError, catalog_text("acme", region("r1"))),
    "gpu reference": (
        load_gpu_reference,
        CatalogFileError,
        TomlSyntaxError,
        GPU_REFERENCE_PATH.read_text(encoding="utf-8"),
    ),
    "checklist": (load_checklist, ChecklistError, ChecklistError, CHECKLIST_PATH.read_text(encoding="utf-8")),
    "needs": (load_needs, NeedsProfileError, NeedsProfileError, "[model]\nparams = 7e9\n"),
}


@pytest.mark.parametrize("kind", sorted(READERS))
def test_every_reader_names_the_file_and_line_of_a_problem(kind: str, tmp_path: Path) -> None:
    read, unusable, syntax, valid = READERS[kind]
    path = tmp_path / "file.toml"
    path.write_text(valid, encoding="utf-8")
    read(path)  # the valid file loads

    with pytest.raises(unusable, match="no such file") as missing:
        read(tmp_path / "missing.toml")
    assert missing.value.path == tmp_path / "missing.toml"

    path.write_bytes(valid.encode("utf-8") + b'\nnote = "\xff"\n')
    with pytest.raises(syntax, match=r"not UTF-8 text \(invalid start byte at byte \d+\)") as undecodable:
        read(path)
    assert undecodable.value.expected == "a UTF-8 TOML file"

    broken = valid + "\n[[nowhere]\n"
    path.write_text(broken, encoding="utf-8")
    with pytest.raises(syntax, match="not valid TOML") as invalid:
        read(path)
    assert invalid.value.line == len(broken.splitlines())  # the unclosed header
    assert invalid.value.path == path and "(at line" not in invalid.value.message


def test_a_field_that_fails_validation_is_named_with_its_line(tmp_path: Path) -> None:
    # the GPU reference used to report pydantic's raw message without the line (and the whole path joined)
    text = GPU_REFERENCE_PATH.read_text(encoding="utf-8")
    first_memory = text.index("memory_gb = ")
    line = text[:first_memory].count("\n") + 1
    end = text.index("\n", first_memory)
    path = tmp_path / "gpus.toml"
    path.write_text(text[:first_memory] + "memory_gb = 80000" + text[end:], encoding="utf-8")
    with pytest.raises(SchemaError) as error:
        load_gpu_reference(path)
    assert error.value.field == "gpu[0].memory_gb" and error.value.line == line
    assert "at most 1024" in (error.value.expected or "")

    needs = tmp_path / "needs.toml"
    needs.write_text('[model]\nparams = 7e9\n\n[training]\nmode = "fulll"\n', encoding="utf-8")
    with pytest.raises(NeedsProfileError) as wrong:
        load_needs(needs)
    assert wrong.value.field == "training.mode" and wrong.value.line == 5


def test_the_skypilot_importer_reads_its_csv_the_same_way(tmp_path: Path) -> None:
    with pytest.raises(SkyPilotImportError, match="no such file"):
        import_skypilot_csv(tmp_path / "missing.csv")
    path = tmp_path / "vms.csv"
    path.write_bytes(b"InstanceType,AcceleratorName\n\xff\n")
    with pytest.raises(SkyPilotImportError, match="not UTF-8 text") as error:
        import_skypilot_csv(path)
    assert error.value.expected == "a UTF-8 CSV file"
