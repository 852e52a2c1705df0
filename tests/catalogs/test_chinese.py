"""`catalogs` in Chinese: with a Chinese locale the scorecard's reasons and the catalog errors are Chinese,
with the file, line and field still named and the same numbers as in English; tomllib's own English reasons
are worded by us, in the language."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from catalogs import i18n
from catalogs.errors import CatalogFileError
from catalogs.loader import parse_catalog_text
from tests.catalogs._builders import catalog_text, offering, region
from tests.chinese import glued
from tests.conftest import cli_env

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = str(REPO / "catalogs" / "needs" / "example-70b-full.toml")
CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture
def chinese() -> Iterator[None]:
    i18n.set_language("zh_CN")
    try:
        yield
    finally:
        i18n.set_language(None)


def linkvet(tmp_path: Path, lang: str, *args: str) -> subprocess.CompletedProcess[str]:
    """`linkvet ARGS` with LANG=`lang` (and no LANGUAGE/LC_* of whoever runs the tests to override it)."""
    env = {k: v for k, v in cli_env(tmp_path).items() if k not in ("LANGUAGE", "LC_ALL", "LC_MESSAGES")}
    env["LANG"] = lang
    return subprocess.run(
        [sys.executable, "-m", "desktop.cli", *args],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )


def test_score_reasons_are_chinese_with_a_chinese_locale(tmp_path: Path) -> None:
    args = ("score", "--needs", EXAMPLE, "--top", "2", "--db", str(tmp_path / "none.sqlite3"))
    chinese = linkvet(tmp_path, "zh_CN.UTF-8", *args)
    assert chinese.returncode == 0, chinese.stderr
    assert "Traceback" not in chinese.stderr
    text = chinese.stdout
    assert "第 1 名" in text and "第 2 名" in text  # the headline of each explained entry
    assert "未知项（占权重" in text  # the unknowns' sentence
    assert "门槛项" in text  # "passes every gate", or which failed
    assert "每节点" in text and "GB/s" in text  # reasons with their figures
    assert "Passes every gate" not in text and "Unknown (" not in text  # no English sentence left
    english = linkvet(tmp_path, "C.UTF-8", *args)
    assert english.returncode == 0, english.stderr
    assert "#1 " in english.stdout and "Passes every gate" in english.stdout
    assert not CJK.search(english.stdout)


@pytest.mark.parametrize("needs", ["example-70b-full.toml", "example-7b-lora.toml"])
def test_explanations_and_sizing_are_punctuated_as_chinese(tmp_path: Path, needs: str) -> None:
    """The explanations `score` writes (also the workbook's and the window's) and `size`'s assumptions are
    built from clauses and lists: in Chinese they join with ；and 、, bracket with （）and run on after 。,
    while English keeps "; ", ", " and a space between sentences."""
    path = str(REPO / "catalogs" / "needs" / needs)
    db = str(tmp_path / "none.sqlite3")
    text = ""
    for args in (("score", "--needs", path, "--top", "30", "--db", db), ("size", "--needs", path)):
        done = linkvet(tmp_path, "zh_CN.UTF-8", *args)
        assert done.returncode == 0, done.stderr
        text += done.stdout
    assert not glued(text), "\n".join(glued(text))
    assert "；" in text and "、" in text and ("。最强项" in text or "。最弱项" in text)
    english = linkvet(tmp_path, "C.UTF-8", "score", "--needs", path, "--top", "3", "--db", db).stdout
    assert "; " in english and (". Passes every gate" in english or ". Fails:" in english)


def test_score_json_has_the_same_facts_in_both_languages(tmp_path: Path) -> None:
    args = ("score", "--needs", EXAMPLE, "--json", "--db", str(tmp_path / "none.sqlite3"))
    english, chinese = (json.loads(linkvet(tmp_path, lang, *args).stdout) for lang in ("C.UTF-8", "zh_CN"))

    def facts(entries: list[dict[str, object]]) -> list[tuple[object, ...]]:
        keys = ("rank", "provider", "offering", "region", "total", "score_min", "score_max", "coverage")
        return [tuple(e[k] for k in keys) for e in entries]

    english_entries, chinese_entries = english["entries"], chinese["entries"]
    assert facts(english_entries) == facts(chinese_entries)
    assert set(english_entries[0]) == set(chinese_entries[0])  # keys never translated
    # the words beside the numbers follow the language
    assert english_entries[0]["explanation"] != chinese_entries[0]["explanation"]
    assert CJK.search(chinese_entries[0]["explanation"])


def test_catalog_validate_in_chinese_still_names_file_line_and_field(tmp_path: Path) -> None:
    (tmp_path / "bad.toml").write_text(
        catalog_text("bad", region("r1") + offering("o1", '["r1"]', gpu_memory_gb="80000")), encoding="utf-8"
    )
    (tmp_path / "dangling.toml").write_text(
        catalog_text("dangling", region("r1") + offering("o1", '["r9"]')), encoding="utf-8"
    )
    result = linkvet(tmp_path, "zh_CN.UTF-8", "catalog", "validate", str(tmp_path))
    assert result.returncode == 2
    assert "Traceback" not in result.stdout + result.stderr
    memory = next(line for line in result.stdout.splitlines() if "gpu_memory_gb" in line)
    assert re.search(r"bad\.toml:\d+: offerings\[0\]\.gpu_memory_gb: ", memory), memory
    assert "显存不合理" in memory and "（应为每 GPU 的 GB 数，例如 80）" in memory, memory
    dangling = next(line for line in result.stdout.splitlines() if "offerings[0].regions[0]" in line)
    assert re.search(r"dangling\.toml:\d+: ", dangling) and "没有定义这个区域" in dangling, dangling


def test_a_toml_syntax_error_in_chinese_names_the_line(tmp_path: Path) -> None:
    (tmp_path / "broken.toml").write_text('format_version = 1\n[provider\nid = "x"\n', encoding="utf-8")
    result = linkvet(tmp_path, "zh_CN.UTF-8", "catalog", "validate", str(tmp_path / "broken.toml"))
    assert result.returncode == 2
    said = result.stdout + result.stderr
    assert "broken.toml:2:" in said and "不是有效的 TOML：表名后面缺少闭合的 ']'" in said, said


@pytest.mark.parametrize(
    ("document", "words"),
    [
        ("a = ", "无效的值"),
        ("a = 1\na = 2", "同一个值被设置了两次"),
        ("[t\n", "表名后面缺少闭合的 ']'"),
        ('a = "x', "字符串缺少闭合引号"),
        ("a = {b=1", "内联表 { … } 没有闭合"),
        ("a = 1 b", "值后面应当换行"),
        ("= 1", "既不是 键 = 值"),
        ("[[t]\n", "缺少闭合的 ']]'"),
        ('a = "\\q"', "未转义的"),
        ("[t]\n[t]\n", "被声明了两次"),
        ("a = {b = 1, b = 2}", "内联表中的键 'b' 被设置了两次"),
        ("a = {b=1}\na.c = 2", "不能在这里扩展"),
    ],
)
def test_tomllib_reasons_are_worded_in_the_language(chinese: None, document: str, words: str) -> None:
    loaded, errors = parse_catalog_text(document, Path("x.toml"))
    assert loaded is None and len(errors) == 1
    error = errors[0]
    assert isinstance(error, CatalogFileError)
    assert "不是有效的 TOML：" in error.message and words in error.message, error.message
    # none of tomllib's English words is left (only the TOML punctuation and key it quotes)
    assert not re.search(r"[A-Za-z]{3,}", error.message.replace("TOML", "")), error.message


def test_a_language_without_a_catalog_reads_english(tmp_path: Path) -> None:
    result = linkvet(tmp_path, "fr_FR.UTF-8", "catalog", "validate", str(tmp_path / "nope.toml"))
    assert result.returncode == 2 and "no such file" in result.stderr and not CJK.search(result.stderr)


def test_an_entrys_reasons_follow_a_language_switch() -> None:
    """The judgements an entry builds on first use are words: read again after the language changed, they
    come in the new language (the window keeps a ranking across a switch)."""
    from catalogs.scoring import rank_offerings
    from tests.catalogs._builders import catalog
    from tests.catalogs.test_scoring import NVLINK_IB, job

    (entry,) = rank_offerings(job(), [catalog("acme", region("r1") + NVLINK_IB)]).entries
    assert entry.judgement("cooling").reason == "cooling not stated"
    i18n.set_language("zh_CN")
    try:
        assert CJK.search(entry.judgement("cooling").reason)
        assert CJK.search(entry.explanation)
    finally:
        i18n.set_language(None)
    assert entry.judgement("cooling").reason == "cooling not stated"
