"""The use-cases' errors in a Chinese locale read in Chinese, naming the same file, target and field (the
window and the CLI show these words as they are)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop.i18n import set_language
from desktop.usecases.errors import ProbeListError
from desktop.usecases.offerings import load_catalog_set
from desktop.usecases.probe_list import ProbeListFile
from desktop.usecases.user_catalogs import OfferingInvalid, check_offering


@pytest.fixture
def chinese() -> Iterator[None]:
    set_language("zh_CN")
    try:
        yield
    finally:
        set_language(None)


def test_a_bad_target_in_the_probe_list_is_named_in_chinese(tmp_path: Path, chinese: None) -> None:
    path = tmp_path / "targets.json"
    path.write_text(json.dumps({"version": 1, "targets": [{"method": "http", "url": "ftp://nope"}]}))
    with pytest.raises(ProbeListError) as raised:
        ProbeListFile(path).load()
    text = str(raised.value)
    assert text.startswith(f"{path}：第 1 个目标：")
    assert "target 1" not in text


def test_an_invalid_offering_names_its_fields_in_chinese(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chinese: None
) -> None:
    monkeypatch.setenv("LINKVET_CATALOG_DIR", str(tmp_path / "mine"))
    problems = check_offering(
        load_catalog_set(), "raksmart", "high-defence-gpu-server", {"gpus_per_node": "eight"}, "notes"
    )
    text = str(OfferingInvalid(problems))
    assert text.startswith("gpus_per_node：")  # the field is a key: as the file has it
    assert "（应为 " in text and "(expected" not in text
