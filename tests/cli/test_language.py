"""The language of `linkvet`: gettext's environment (LANGUAGE, LC_ALL, LC_MESSAGES, LANG) decides, `--lang`
overrides it, a language without a catalog reads as English; the verdicts, doubts and errors people read
follow it while JSON keys and enumerated values stay as they are. Through the real command, against
loopback (a closed port, traces of 127.0.0.1 with a hand-written network table that puts it in CN2)."""

from __future__ import annotations

import argparse
import json
import re
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import cli_env

_CJK = re.compile("[\u4e00-\u9fff]")

NETWORKS = """version = 1

# Hand-written for these tests: loopback as CN2 (AS4809), so a one-hop trace reads as CN2 GIA with a doubt.
[[prefix]]
cidr = "127.0.0.0/8"
asn = 4809
source = "hand-written test table"
"""


def linkvet(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    environment = cli_env(tmp_path)
    environment.update(env)
    return subprocess.run(
        [sys.executable, "-m", "desktop.cli", *args],
        cwd=tmp_path,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture
def closed_port() -> int:
    """A loopback TCP port nothing listens on (bound, then closed: connects are refused)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def networks(tmp_path: Path) -> Path:
    path = tmp_path / "nets.toml"
    path.write_text(NETWORKS)
    return path


def trace_args(networks: Path, *extra: str) -> tuple[str, ...]:
    return (
        "trace",
        "127.0.0.1",
        "-P",
        "udp",
        "-q",
        "1",
        "-n",
        "2",
        "--no-store",
        "--networks",
        str(networks),
        *extra,
    )


def test_trace_verdict_doubts_and_claim_check_in_chinese(tmp_path: Path, networks: Path) -> None:
    done = linkvet(tmp_path, *trace_args(networks, "--line-type", "cn2-gt"), LANG="zh_CN.UTF-8")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "这是从本机（办公室）到该地区的路径：去程。" in out
    assert "判定：cn2-gia — CN2 GIA：有 CN2（AS4809）跳，没有 163（AS4134）跳" in out  # the class stays
    assert "存疑：只有一个 CN2 跳（第 1 跳）" in out
    assert "2 次追踪合计：CN2 GIA — 2 次追踪中 2 次为 cn2-gia" in out
    assert "声称核对（不符）：声称是 CN2 GT，2 次追踪中 2 次经 127 (CN2)、没有 163 跳（cn2-gia）" in out
    assert "跳  地址" in out.splitlines()[5]
    assert "verdict" not in out and "doubt" not in out


def test_trace_json_keeps_keys_and_values_and_words_the_text_in_chinese(
    tmp_path: Path, networks: Path
) -> None:
    done = linkvet(tmp_path, *trace_args(networks, "--line-type", "cn2-gt", "--json"), LANG="zh_CN.UTF-8")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["verdict"]["class"] == "cn2-gia" and data["verdict"]["counts"] == {"cn2-gia": 2}
    assert data["verdict"]["doubts"] == ["只有一个 CN2 跳（第 1 跳） [2 次追踪中 2 次]"]
    assert data["claim"]["claimed_line_type"] == "cn2-gt" and data["claim"]["agrees"] is False
    assert data["claim"]["evidence"].startswith("声称是 CN2 GT")
    assert data["traces"][0]["verdict"]["rule"] == "cn2-only"


def test_probe_errors_in_chinese(tmp_path: Path, closed_port: int) -> None:
    url = f"http://127.0.0.1:{closed_port}/"
    done = linkvet(tmp_path, "probe", url, "-c", "1", "--no-store", LANG="zh_CN.UTF-8")
    assert done.returncode == 1, done.stderr
    assert f"错误 refused：{url}：连接被拒绝" in done.stdout  # the error kind is a value: not translated
    assert done.stdout.splitlines()[0].startswith("目标")
    usage = linkvet(tmp_path, "probe", LANG="zh_CN.UTF-8")
    assert usage.returncode == 2
    assert "linkvet: 没有目标：请给出主机或 URL，或 --file FILE" in usage.stderr
    missing = linkvet(tmp_path, "probe", "--method", "smoke", LANG="zh_CN.UTF-8")
    assert missing.returncode == 2 and "无效的选择" in missing.stderr and "Traceback" not in missing.stderr
    as_json = linkvet(tmp_path, "probe", url, "-c", "1", "--no-store", "--json", LANG="zh_CN.UTF-8")
    row = json.loads(as_json.stdout)
    assert row["error"] == "refused" and row["message"] == f"{url}：连接被拒绝"


@pytest.mark.parametrize("where", ["before", "after"])
def test_lang_en_overrides_a_chinese_environment(tmp_path: Path, closed_port: int, where: str) -> None:
    url = f"http://127.0.0.1:{closed_port}/"
    args = ("--lang", "en", "probe", url) if where == "before" else ("probe", url, "--lang", "en")
    done = linkvet(tmp_path, *args, "-c", "1", "--no-store", LANGUAGE="zh_CN", LANG="zh_CN.UTF-8")
    assert f"ERROR refused: {url}: connection refused" in done.stdout
    assert done.stdout.startswith("TARGET")


def test_lang_zh_cn_overrides_an_english_environment(tmp_path: Path, networks: Path) -> None:
    done = linkvet(tmp_path, "--lang", "zh_CN", *trace_args(networks), LANG="en_US.UTF-8")
    assert done.returncode == 0, done.stderr
    assert "存疑：只有一个 CN2 跳（第 1 跳）" in done.stdout
    helped = linkvet(tmp_path, "probe", "--help", "--lang", "zh_CN")
    assert (
        helped.returncode == 0
        and "用法：" in helped.stdout
        and "立即测量一个或多个主机或 URL" in helped.stdout
    )
    # argparse's section headings end as Chinese ends them, not with its ASCII colon
    assert "\n位置参数：\n" in helped.stdout and "\n选项：\n" in helped.stdout, helped.stdout


@pytest.mark.parametrize(
    "env",
    [
        {"LANG": "fr_FR.UTF-8"},  # no catalog
        {"LANG": "zh_TW.UTF-8"},  # traditional Chinese is not zh_CN
        {"LC_ALL": "C"},
        {"LANGUAGE": "de", "LANG": "zh_CN.UTF-8"},  # LANGUAGE decides first, and has no catalog
    ],
)
def test_a_language_without_a_catalog_reads_as_english(
    tmp_path: Path, networks: Path, env: dict[str, str]
) -> None:
    done = linkvet(tmp_path, *trace_args(networks), **env)
    assert done.returncode == 0, done.stderr
    assert "doubt: only one CN2 hop (hop 1)" in done.stdout
    assert "HOP  ADDRESS" in done.stdout


def test_the_environment_is_read_as_gettext_reads_it(tmp_path: Path, networks: Path) -> None:
    for env in (
        {"LANGUAGE": "zh_CN", "LANG": "en_US.UTF-8"},
        {"LC_MESSAGES": "zh_CN.UTF-8"},
        {"LANG": "zh_CN"},
    ):
        done = linkvet(tmp_path, *trace_args(networks), **env)
        assert "存疑：只有一个 CN2 跳（第 1 跳）" in done.stdout, env


def test_an_unknown_lang_is_a_usage_error_naming_the_choices(tmp_path: Path) -> None:
    done = linkvet(tmp_path, "--lang", "fr", "probe", "127.0.0.1")
    assert done.returncode == 2
    assert "invalid choice: 'fr' (choose from 'en', 'zh_CN')" in done.stderr


def test_tcp_probe_notes_in_chinese(tmp_path: Path, closed_port: int) -> None:
    """The note a tcp probe to a closed port carries reads in Chinese; the refused kind in --json stays."""
    target = f"127.0.0.1:{closed_port}"
    done = linkvet(
        tmp_path, "probe", target, "-c", "3", "--interval", "0.05", "--no-store", LANG="zh_CN.UTF-8"
    )
    assert f"3 次连接中有 3 次被拒绝（RST）：计为有应答，端口 {closed_port} 未开放" in done.stdout, (
        done.stdout
    )
    assert "connects refused" not in done.stdout
    as_json = linkvet(
        tmp_path, "probe", target, "-c", "2", "--interval", "0.05", "--no-store", "--json", LANG="zh_CN.UTF-8"
    )
    row = json.loads(as_json.stdout)
    assert row["method"] == "tcp" and "被拒绝" in row["message"]


def test_schedule_once_reads_in_chinese(tmp_path: Path) -> None:
    """`schedule --once` in a Chinese locale: the round's line (RoundReport.describe, in the log) and what
    it prints read in Chinese; the table's error kinds stay values."""
    from probes.schedule.plan import EXAMPLE_PLAN

    log = tmp_path / "schedule.log"
    done = linkvet(
        tmp_path,
        "schedule",
        "--plan",
        str(EXAMPLE_PLAN),
        "--once",
        "--db",
        str(tmp_path / "office.sqlite3"),
        "--log-file",
        str(log),
        LANG="zh_CN.UTF-8",
    )
    assert done.returncode == 0, done.stderr
    assert "已将第 1 轮存入" in done.stdout
    assert "stored round" not in done.stdout
    text = log.read_text(encoding="utf-8") + done.stderr
    assert "第 1 轮（" in text and "秒内测了" in text, text
    assert "targets in" not in text


def test_store_and_metrics_errors_in_chinese(tmp_path: Path) -> None:
    """No store yet, a --metrics-listen that is no address: said in Chinese, the path and value named."""
    db = tmp_path / "none.sqlite3"
    missing = linkvet(tmp_path, "history", "--db", str(db), LANG="zh_CN.UTF-8")
    assert missing.returncode == 3, missing.stderr
    assert f"{db}：这里还没有结果库（请先运行一次探测）" in missing.stderr
    from probes.schedule.plan import EXAMPLE_PLAN

    bad = linkvet(
        tmp_path, "schedule", "--plan", str(EXAMPLE_PLAN), "--metrics-listen", "nowhere:x", LANG="zh_CN.UTF-8"
    )
    assert bad.returncode == 2, bad.stderr
    assert "'nowhere:x' 不是可监听的地址" in bad.stderr and "Traceback" not in bad.stderr


def test_a_store_from_a_newer_linkvet_is_refused_in_chinese(tmp_path: Path) -> None:
    """An office box left on an older linkvet, its store upgraded by a newer one: the refusal names the
    store and both schema versions, in Chinese."""
    import sqlite3
    from contextlib import closing

    from probes.store.sqlite.schema import SCHEMA_VERSION

    db = tmp_path / "future.sqlite3"
    with closing(sqlite3.connect(db)) as connection:
        connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    done = linkvet(tmp_path, "history", "--db", str(db), LANG="zh_CN.UTF-8")
    assert done.returncode == 3, done.stderr
    assert f"{db} 由更新版本的 linkvet 写入（结果库结构版本 {SCHEMA_VERSION + 1}；" in done.stderr, (
        done.stderr
    )
    assert f"最高只认识 {SCHEMA_VERSION}）。请升级 linkvet" in done.stderr
    assert "written by" not in done.stderr and "Traceback" not in done.stderr


def _parsers(
    parser: argparse.ArgumentParser, path: str = "linkvet"
) -> Iterator[tuple[str, argparse.ArgumentParser]]:
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _parsers(sub, f"{path} {name}")


def test_every_help_text_of_every_command_reads_in_chinese() -> None:
    """Each command's description and each option's help, built in Chinese, has Chinese in it: a help text
    left out of gettext (or missing from the catalog) shows up here by command and option."""
    from desktop import i18n
    from desktop.cli import build_parser

    i18n.set_language("zh_CN")
    try:
        english: list[str] = []
        for path, parser in _parsers(build_parser()):
            texts = [("description", parser.description)]
            texts += [("/".join(a.option_strings) or a.dest, a.help) for a in parser._actions]
            for where, text in texts:
                if text and text is not argparse.SUPPRESS and not _CJK.search(text):
                    english.append(f"{path} {where}: {text}")
            for heading in re.findall(r"^ *(\S.*):$", parser.format_help(), flags=re.MULTILINE):
                if _CJK.search(heading):
                    english.append(f"{path} heading with an ASCII colon: {heading}:")
        assert not english, "\n".join(english)
    finally:
        i18n.set_language(None)
