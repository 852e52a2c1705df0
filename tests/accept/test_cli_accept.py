"""`linkvet accept` end to end in subprocesses: replays of the fixture scenarios, bad input, and a
record → replay round trip on this machine (with a stand-in nvidia-smi that prints a recorded real output)."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

from tests.accept.conftest import CATALOGS, EDGE, REAL, SCENARIOS
from tests.chinese import glued
from tests.conftest import REPO_ROOT, cli_env


def test_replay_json_report(run_linkvet) -> None:  # type: ignore[no-untyped-def]
    out = run_linkvet(
        "accept",
        "--replay",
        str(SCENARIOS / "pcie-box"),
        "--provider",
        "trialco",
        "--offering",
        "h100-sxm-8x",
        "--catalogs",
        str(CATALOGS),
        "--json",
    )
    assert out.returncode == 4, out.stderr  # a contradicted claim is a finding, exit 4
    report = json.loads(out.stdout)
    assert report["format"] == "linkvet-acceptance-report" and report["format_version"] == 1
    assert report["tool"]["name"] == "linkvet" and report["host"]["hostname"] == "h100-pcie"
    assert report["created_at"].endswith("Z") and report["mode"] == "replay"
    assert report["claims"] == {
        "provider": "trialco",
        "provider_name": "Trial Co (test fixture)",
        "offering": "h100-sxm-8x",
        "region": "frankfurt",
        "catalog_file": str(CATALOGS / "trialco.toml"),
    }
    intra = next(c for c in report["checks"] if c["fact"] == "intra_node.kind")
    assert intra["verdict"] == "contradicted" and "GPU0–GPU4 SYS" in intra["evidence"]
    assert set(intra) >= {
        "fact",
        "claimed",
        "measured",
        "verdict",
        "evidence",
        "catalog_value",
        "provenance_when_verified",
    }
    assert intra["provenance_when_verified"].startswith("verified on h100-pcie at ")
    not_read = {r["source"] for r in report["read"] if r["status"] == "not read"}
    assert "nvidia-smi nvlink -s" in not_read and 'ipmitool sdr type "Power Supply"' in not_read
    assert report["facts"]["topology"]["pairs"][0] == {"a": "GPU0", "b": "GPU1", "path": "PIX"}


def test_replay_all_confirmed_exits_0_and_prints_a_summary(run_linkvet, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    target = tmp_path / "report.json"
    out = run_linkvet(
        "accept",
        "--replay",
        str(SCENARIOS / "nv18-box"),
        "--provider",
        "trialco",
        "--offering",
        "h100-sxm-8x",
        "--catalogs",
        str(CATALOGS),
        "--out",
        str(target),
    )
    assert out.returncode == 0, out.stderr
    assert "topology:  nvlink-all" in out.stdout and "CONFIRMED  intra_node.kind" in out.stdout
    assert "0 contradicted" in out.stdout and f"report written to {target}" in out.stdout
    assert json.loads(target.read_text())["summary"]["contradicted"] == 0


def test_bad_inputs_are_one_line_errors(run_linkvet, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    big = tmp_path / "huge.log"
    with big.open("wb") as handle:
        handle.truncate(50 * 1024 * 1024)
    broken = tmp_path / "broken"
    shutil.copytree(SCENARIOS / "a100-ib-box", broken)
    (broken / "sys/class/infiniband/mlx5_0/ports/1/rate").write_text("garbage\n")
    truncated = tmp_path / "truncated"
    truncated.mkdir()
    shutil.copy(EDGE / "topo-truncated.txt", truncated / "nvidia-smi-topo-m.txt")
    cases = [
        (("--nccl-log", str(big)), f"{big}: larger than 8 MiB"),
        (("--nccl-log", str(EDGE / "nccl-no-rows.log")), "has no size rows"),
        (("--replay", str(broken)), "mlx5_0/ports/1/rate:1: rate 'garbage'"),
        (
            ("--replay", str(truncated)),
            "nvidia-smi-topo-m.txt: the matrix has no GPU4 row (the header at line 1",
        ),
        (("--provider", "trialco"), "--provider and --offering go together"),
        (("--replay", str(tmp_path / "missing")), "no such folder"),
    ]
    for args, expected in cases:
        if "--replay" not in args:
            args = ("--replay", str(SCENARIOS / "nv18-box"), *args)
        out = run_linkvet("accept", *args)
        assert out.returncode in (2, 3), (args, out.stderr)
        assert expected in out.stderr, (args, out.stderr)
        assert "Traceback" not in out.stderr and len(out.stderr.strip().splitlines()) == 1


def test_record_then_replay_round_trip(tmp_path: Path) -> None:
    """Live on this machine (no GPU here): a stand-in `nvidia-smi` prints the recorded Hadoop capture; the
    sysfs trees are this machine's own. The replay of what was recorded reads the same facts."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "nvidia-smi"
    fake.write_text(
        f'#!/bin/sh\nif [ "$1" = "-q" ]; then cat "{REAL / "hadoop-nvidia-smi-q-2x-p100.xml"}"; exit 0; fi\n'
        'echo "NVIDIA-SMI has failed: not this subcommand" >&2; exit 9\n'
    )
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    env = cli_env(tmp_path) | {"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    recorded = tmp_path / "recorded"

    def run(*args: str) -> dict[str, object]:
        out = subprocess.run(
            [sys.executable, "-m", "desktop.cli", "accept", "--no-nvml", "--json", *args],
            cwd=REPO_ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout)  # type: ignore[no-any-return]

    live = run(
        "--record",
        str(recorded),
        "--nccl-log",
        str(REAL / "superbench-nccl-allreduce-8x-a100.log"),
        "--fio-json",
        str(REAL / "superbench-fio-disk-performance.json"),
    )
    assert live["mode"] == "live" and live["recorded_to"] == str(recorded)
    assert (recorded / "nvidia-smi-q.xml").read_text() == (
        REAL / "hadoop-nvidia-smi-q-2x-p100.xml"
    ).read_text()
    topo = next(r for r in live["read"] if r["reader"] == "topology")  # type: ignore[union-attr]
    assert topo["status"] == "not read" and "exited with status 9" in topo["reason"]
    replay = run("--replay", str(recorded))
    assert replay["mode"] == "replay" and replay["host"] == {
        **live["host"],
        "kernel": None,
        "privileged": None,
    }  # type: ignore[dict-item]
    assert (recorded / "nccl" / "superbench-nccl-allreduce-8x-a100.log").exists()
    assert replay["facts"]["nccl"]["runs"][0]["peak_busbw_gbytes_s"] == 235.26  # type: ignore[index]
    for section in ("gpus", "rdma", "ethernet", "nvme", "topology", "fio"):
        assert replay["facts"][section] == live["facts"][section], section  # type: ignore[index]


def test_the_report_reads_as_chinese_sentences(run_linkvet) -> None:  # type: ignore[no-untyped-def]
    """In Chinese the report's labelled lines, lists and clauses take ：、；and （）: nothing glued on with
    English punctuation around Chinese words (`tests.chinese`)."""
    args = ["--replay", str(SCENARIOS / "pcie-box"), "--provider", "trialco", "--offering", "h100-sxm-8x"]
    done = run_linkvet("--lang", "zh_CN", "accept", *args, "--catalogs", str(CATALOGS))
    assert done.returncode == 4, done.stderr
    text = done.stdout
    assert not glued(text), "\n".join(glued(text))
    assert "服务器 → 国内电信" in text and "上海电信：" in text and "InfiniBand 端口；" in text


def test_accept_import_and_catalog_list_say_which_facts_stand_contradicted(tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """What a trial server contradicted is never printed like a verified value: `accept import` says each
    fact's standing, `catalog list` marks a contradicted value with ✗ and says what the mark means."""
    import subprocess
    import sys

    from tests.conftest import cli_env

    env = {**cli_env(tmp_path), "LINKVET_CATALOG_DIR": str(tmp_path / "user")}

    def linkvet(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "desktop.cli", *args], env=env, capture_output=True, text=True, timeout=120
        )

    report = tmp_path / "r.json"
    made = linkvet(
        "accept",
        "--replay",
        str(SCENARIOS / "pcie-box"),
        "--catalogs",
        str(CATALOGS),
        "--provider",
        "trialco",
        "--offering",
        "h100-sxm-8x",
        "--region",
        "frankfurt",
        "--json",
        "--out",
        str(report),
    )
    assert made.returncode == 4, made.stderr  # a contradicted claim: a finding
    imported = linkvet("accept", "import", str(report), "--catalogs", str(CATALOGS))
    assert imported.returncode == 0, imported.stderr
    assert "offering[h100-sxm-8x].gpu = H100 PCIe (verified)" in imported.stdout
    assert "(contradicted)" in imported.stdout
    listed = linkvet("catalog", "list", "--catalogs", str(CATALOGS), "--provider", "trialco")
    line = next(row for row in listed.stdout.splitlines() if "h100-sxm-8x" in row)
    assert "✗" in line and "✗ = contradicted" in listed.stdout
