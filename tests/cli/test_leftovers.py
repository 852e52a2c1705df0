"""Issue 31 §4: what the last hostile sweep left. Each case through the real `linkvet` command: the exit
code its cause has, one line saying what is wrong, never a traceback, never a silently wrong result."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.accept.conftest import SCENARIOS
from tests.conftest import REPO_ROOT, cli_env

RunLinkvet = Callable[..., subprocess.CompletedProcess[str]]
SKYPILOT_HEADER = (
    "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,GpuInfo,SpotPrice\n"
)
GPU_INFO = "\"{'Gpus': [{'Name': 'A100', 'Count': 8.0, 'MemoryInfo': {'SizeInMiB': 40960}}]}\""


def said(done: subprocess.CompletedProcess[str]) -> str:
    text = done.stdout + done.stderr
    assert "Traceback" not in text, text
    return text


def without_dac_override(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`linkvet ARGS` as root without CAP_DAC_OVERRIDE: a folder's permission bits hold for it as for any
    user (the tests run as root, which would otherwise write anywhere)."""
    if shutil.which("setpriv") is None or os.geteuid() != 0:
        pytest.skip("needs root and setpriv (util-linux) to drop CAP_DAC_OVERRIDE")
    return subprocess.run(
        [
            "setpriv",
            "--bounding-set=-dac_override",
            "--inh-caps=-dac_override",
            "--",
            sys.executable,
            "-m",
            "desktop.cli",
            *args,
        ],
        cwd=tmp_path,
        env=cli_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_export_into_a_folder_without_write_permission(tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    done = without_dac_override(tmp_path, "export", "--out", str(locked / "report.xlsx"))
    assert done.returncode == 3 and f"{locked / 'report.xlsx'}: cannot write: Permission denied" in said(done)
    assert not list(locked.iterdir())  # no partial file left behind
    done = without_dac_override(
        tmp_path, "questionnaire", "export", "--provider", "raksmart", "--out", str(locked / "q.xlsx")
    )
    assert done.returncode == 3 and "q.xlsx: cannot write: Permission denied" in said(done)


def test_accept_out_to_a_full_device_or_under_a_file(run_linkvet: RunLinkvet, tmp_path: Path) -> None:
    replay = str(SCENARIOS / "nv18-box")
    done = run_linkvet("accept", "--replay", replay, "--out", "/dev/full")
    assert done.returncode == 3 and "/dev/full: cannot write: No space left on device" in said(done)
    a_file = tmp_path / "a-file"
    a_file.write_text("x")
    done = run_linkvet("accept", "--replay", replay, "--out", str(a_file / "report.json"))
    assert (
        done.returncode == 2
        and f"--out {a_file / 'report.json'}: {a_file} is a file, not a folder" in said(done)
    )


@pytest.mark.parametrize(
    "command",
    [
        ("export", "--out"),
        ("accept", "--out"),
        ("questionnaire", "export", "--provider", "raksmart", "--out"),
    ],
)
def test_an_empty_out_is_not_the_current_folder(
    run_linkvet: RunLinkvet, tmp_path: Path, command: tuple[str, ...]
) -> None:
    done = run_linkvet(*command, "")
    assert done.returncode == 2 and "--out: an empty name is not a file or folder" in said(done)
    assert not any(tmp_path.glob("*.xlsx")) and not any(tmp_path.glob("*.json"))


@pytest.mark.parametrize("text", ["", "# only a comment\n\n   \n# another\n"])
def test_a_probe_file_without_targets_is_a_usage_error(
    run_linkvet: RunLinkvet, tmp_path: Path, text: str
) -> None:
    targets = tmp_path / "targets.txt"
    targets.write_text(text)
    done = run_linkvet("probe", "-f", str(targets), "--no-store")
    assert done.returncode == 2
    assert f"{targets}: names no target (only comments or blank lines): nothing to measure" in said(done)


@pytest.mark.parametrize(
    ("row", "why"),
    [
        (f"gpu_8x_a100,A100,8.0,124.0,1800.0,3_2.77,us-east-1,{GPU_INFO},", "Price '3_2.77' is not a number"),
        (
            f"gpu_8x_a100,A100,8.0,96.7,1800.0,32.77,us-east-1,{GPU_INFO},",
            "vCPUs '96.7' is not a whole number of vCPUs",
        ),
        (
            f"gpu_8x_a100,A100,8.0,96,1800.0,32.77,us-east\x00-1,{GPU_INFO},",
            "Region: a control character (U+0000)",
        ),
    ],
)
def test_skypilot_rows_that_are_not_what_they_look_like(
    run_linkvet: RunLinkvet, tmp_path: Path, row: str, why: str
) -> None:
    good = f"gpu_8x_a100,A100,8.0,124.0,1800.0,15.92,europe-central-1,{GPU_INFO},\n"
    csv = tmp_path / "vms.csv"
    csv.write_text(SKYPILOT_HEADER + good + row + "\n")
    out = tmp_path / "out"
    out.mkdir()
    done = run_linkvet("catalog", "import-skypilot", str(csv), "--provider", "sky", "--out", str(out))
    text = said(done)
    assert f"skipped: vms.csv:3: {why}" in text, text
    written = "".join(p.read_text() for p in out.glob("*.toml"))
    assert (
        "32.77" not in written
        and "vcpus = 96" not in written
        and "\\u0000" not in written
        and "\x00" not in written
    )


def test_a_nul_in_a_catalogs_region_name_is_refused(run_linkvet: RunLinkvet, tmp_path: Path) -> None:
    catalog = tmp_path / "nul.toml"
    catalog.write_text(
        'format_version = 1\n[provider]\nid = "nul"\nname = "Nul"\nsource = "test"\nas_of = "2026-12"\n'
        '[[regions]]\nid = "r1"\nname = "East\\u0000Coast"\nsource = "test"\nas_of = "2026-12"\n'
    )
    done = run_linkvet("catalog", "validate", str(catalog))
    assert done.returncode == 2 and "name: a control character (U+0000) in 'East\\x00Coast'" in said(done)


def _summary(provider: str, region: str, start: str, end: str) -> dict[str, object]:
    period = {
        "rtt_median_ms": 150.0,
        "rtt_p95_ms": 180.0,
        "loss": 0.001,
        "jitter_ms": 2.0,
        "samples": 500,
        "hours": 10.0,
    }
    return {
        "provider": provider,
        "region": region,
        "vantage": "shanghai",
        "period_start": start,
        "period_end": end,
        "peak": period,
        "offpeak": period,
    }


def test_links_twice_or_with_a_reversed_period_are_refused(run_linkvet: RunLinkvet, tmp_path: Path) -> None:
    needs = str(REPO_ROOT / "catalogs" / "needs" / "example-70b-full.toml")
    twice = tmp_path / "twice.json"
    first = _summary("raksmart", "san-jose", "2026-12-01T00:00:00Z", "2026-12-08T00:00:00Z")
    twice.write_text(json.dumps([first, {**first, "period_start": "2026-11-01T00:00:00Z"}]))
    done = run_linkvet("score", "--needs", needs, "--links", str(twice))
    assert done.returncode == 2 and f"{twice}: [1] is raksmart/san-jose from shanghai again (as [0])" in said(
        done
    )
    reversed_ = tmp_path / "reversed.json"
    reversed_.write_text(
        json.dumps([_summary("raksmart", "san-jose", "2026-12-08T00:00:00Z", "2026-12-01T00:00:00Z")])
    )
    done = run_linkvet("score", "--needs", needs, "--links", str(reversed_))
    assert done.returncode == 2
    assert "[0]: period_end 2026-12-01T00:00:00Z is before period_start 2026-12-08T00:00:00Z" in said(done)


def test_check_of_a_50000_target_plan_lays_its_table_out_without_rich_tables(tmp_path: Path) -> None:
    """`schedule --check` lists every target; rich's Table took 20 of its 22 s for 50,000 (profiled), so the
    table is laid out by `desktop.cli._format.table` itself. The test holds that decision (rich's table
    module never loaded) and the listing whole; the time is the benchmark's (tests/benchmarks/plan_check.py)."""
    plan = tmp_path / "plan.toml"
    plan.write_text(plan_text(50_000))
    probe = (
        "import sys\n"
        "from desktop.cli import main\n"
        "code = main(sys.argv[1:])\n"
        "print('rich.table loaded' if 'rich.table' in sys.modules else 'rich.table not loaded', file=sys.stderr)\n"
        "sys.exit(code)\n"
    )
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", probe, "schedule", "--plan", str(plan), "--check"],
        cwd=tmp_path,
        env=cli_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=300,
    )
    print(f"schedule --check of 50,000 targets: {time.perf_counter() - started:.1f} s")
    assert done.returncode == 0, done.stderr[-500:]
    assert "rich.table not loaded" in done.stderr
    lines = done.stdout.splitlines()
    listed = [line.split() for line in lines if line.startswith("icmp ")]
    assert len(listed) == 50_000 and listed[0][:4] == ["icmp", "t0", "provider=p0", "region=r0"]


def plan_text(targets: int) -> str:
    lines = ['version = 1\nname = "big"\n[schedule]\nevery = "5m"\n']
    for i in range(targets):
        lines.append(
            f'[[targets]]\nname = "t{i}"\nhost = "198.18.{i // 250}.{i % 250 + 1}"\nprovider = "p{i % 10}"\n'
            f'region = "r{i % 50}"\n'
        )
    return "".join(lines)
