"""Issue 31 §1: a reading is judged only when it is physically possible. Each seen case of the hostile
sweep, on a copy of a fixture scenario changed the way the sweep changed it: what cannot be so is "could not
judge: …" with the reason, never confirmed and never contradicted."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from catalogs.loader import load_catalogs
from desktop.usecases.accept import accept
from probes.accept import AcceptOptions
from probes.accept.nccl import GIB, parse_nccl
from probes.accept.nccl_reference import judge, reference_table
from tests.accept.conftest import CATALOGS, SCENARIOS

H100 = ["NVIDIA H100 80GB HBM3"]
NV18_LOG = SCENARIOS / "nv18-box" / "nccl" / "all_reduce_perf.log"
SLOW_LOG = SCENARIOS / "slow-nccl-box" / "nccl" / "all_reduce_perf.log"
_BIG_ROW = re.compile(
    r"^(\s*)(\d+)(\s+\d+\s+\w+\s+\w+\s+-?\d+\s+)(\S+)\s+(\S+)\s+(\S+)\s+(\S+)(\s+)(\S+)\s+(\S+)\s+(\S+)\s+(\S+)$"
)


def copy_of(scenario: str, tmp_path: Path) -> Path:
    folder = tmp_path / scenario
    shutil.copytree(SCENARIOS / scenario, folder, symlinks=True)
    return folder


def report_for(folder: Path, offering: str = "h100-sxm-8x") -> dict[str, Any]:
    return accept(
        AcceptOptions(replay_dir=folder),
        catalogs=load_catalogs(CATALOGS),
        provider="trialco",
        offering=offering,
    )


def check(report: dict[str, Any], fact: str) -> dict[str, Any]:
    return next(c for c in report["checks"] if c["fact"] == fact)


def forged(text: str, busbw: float, *, consistent: bool, wrong: str = "0") -> str:
    """The log with every row of ≥ 1 GiB claiming `busbw`: its algbw and time made to fit (`consistent`, so
    only the physical bounds can tell), or the busbw cells alone changed (as the sweep typed them in)."""
    lines = []
    for line in text.splitlines():
        match = _BIG_ROW.match(line)
        if match is None or int(match.group(2)) < GIB:
            lines.append(line)
            continue
        size = int(match.group(2))
        if consistent:
            algbw = busbw / 1.75
            time_us = size / algbw / 1e3
            side = f"{time_us:.6g}  {algbw:.6g}  {busbw:.6g}  {wrong}"
        else:
            side = f"{match.group(4)}  {match.group(5)}  {busbw:.6g}  {wrong}"
        lines.append(f"{match.group(1)}{size}{match.group(3)}{side}  {side}")
    return "\n".join(lines) + "\n"


def with_log(folder: Path, text: str) -> None:
    (folder / "nccl" / "all_reduce_perf.log").write_text(text)


@pytest.mark.parametrize("busbw", [1e308, 99_999.0, 191_277.0])
def test_impossible_bus_bandwidth_is_never_confirmed(tmp_path: Path, busbw: float) -> None:
    folder = copy_of("nv18-box", tmp_path)
    with_log(folder, forged(NV18_LOG.read_text(), busbw, consistent=True))
    nccl = check(report_for(folder), "nccl.allreduce_busbw_gbytes_s")
    assert nccl["verdict"] == "unverified" and nccl["measured"] is None
    assert "could not judge" in nccl["evidence"]
    assert "more than NVIDIA H100 80GB HBM3' fastest link (NVLink 4, 450 GB/s each way)" in nccl["evidence"]


def test_a_bus_bandwidth_far_over_the_reference_is_not_judged(tmp_path: Path) -> None:
    folder = copy_of("nv18-box", tmp_path)
    with_log(folder, forged(NV18_LOG.read_text(), 800.0, consistent=True))  # possible on NVLink 4, not seen
    nccl = check(report_for(folder), "nccl.allreduce_busbw_gbytes_s")
    assert nccl["verdict"] == "unverified"
    assert "could not judge" in nccl["evidence"] and "178% of the reference 450 GB/s" in nccl["evidence"]
    assert "over the 150% a healthy run reaches" in nccl["evidence"]


def test_a_bus_bandwidth_typed_over_its_own_row_is_set_aside(tmp_path: Path) -> None:
    folder = copy_of("nv18-box", tmp_path)
    with_log(folder, forged(NV18_LOG.read_text(), 1e308, consistent=False))
    nccl = check(report_for(folder), "nccl.allreduce_busbw_gbytes_s")
    assert nccl["verdict"] == "unverified" and "could not judge" in nccl["evidence"]
    assert "is not algbw × 2(n-1)/n for 8 ranks" in nccl["evidence"]


def test_rows_whose_correctness_check_failed_are_not_bandwidth(tmp_path: Path) -> None:
    folder = copy_of("nv18-box", tmp_path)
    with_log(folder, forged(NV18_LOG.read_text(), 478.2, consistent=True, wrong="12"))
    nccl = check(report_for(folder), "nccl.allreduce_busbw_gbytes_s")
    assert nccl["verdict"] == "unverified"
    assert (
        "could not judge" in nccl["evidence"]
        and "its correctness check failed (#wrong 12)" in nccl["evidence"]
    )
    # only the peak row wrong: the next row is the reading, and the one set aside is said
    text = NV18_LOG.read_text().replace("273.26  478.20       0", "273.26  478.20       3")
    (run,) = parse_nccl(text, "wrong.log")
    judged = judge(run, H100)
    assert judged["judgement"] == "at-reference" and judged["peak_busbw_gbytes_s"] == 475.81  # in-place
    assert "#wrong 3" in judged["explanation"]


def test_a_pre_2022_error_over_the_bound_and_a_failed_footer(tmp_path: Path) -> None:
    real = (SCENARIOS / "a100-ib-box" / "nccl" / "superbench-allreduce.log").read_text()
    (run,) = parse_nccl(real.replace("235.26    N/A", "235.26  3e-02"), "old.log")
    judged = judge(run, ["NVIDIA A100-SXM4-40GB"])
    assert judged["peak_busbw_gbytes_s"] == 235.03  # the in-place side of the same row passed
    assert "correctness check failed (#wrong 3e-02)" in judged["explanation"]
    (failed,) = parse_nccl(
        real.replace("Out of bounds values : 0 OK", "Out of bounds values : 7 FAILED"), "f.log"
    )
    verdict = judge(failed, ["NVIDIA A100-SXM4-40GB"])
    assert verdict["judgement"] == "not-judged"
    assert verdict["explanation"].startswith("could not judge: nccl-tests counted 7 wrong values")


def test_two_runs_in_one_log_are_judged_apart(tmp_path: Path) -> None:
    folder = copy_of("nv18-box", tmp_path)
    with_log(folder, NV18_LOG.read_text() + SLOW_LOG.read_text())
    report = report_for(folder)
    runs = report["facts"]["nccl"]["runs"]
    assert [r["judgement"]["judgement"] for r in runs] == ["at-reference", "below-reference"]
    assert [r["judgement"]["peak_busbw_gbytes_s"] for r in runs] == [478.2, 158.0]
    assert runs[1]["source"].endswith("(run 2 of 2, from line 57)")
    assert all(r["ranks"] == 8 for r in runs)
    nccl = check(report, "nccl.allreduce_busbw_gbytes_s")
    assert nccl["measured"] == 478.2 and "(run 1 of 2, from line 1)" in nccl["evidence"]
    assert "106%" in nccl["evidence"] and "200%" not in nccl["evidence"]


def test_two_device_lists_over_one_table_are_not_judged() -> None:
    text = NV18_LOG.read_text()
    devices = "".join(line + "\n" for line in text.splitlines() if "# " in line and " Rank " in line)
    doubled = text.replace("# Using devices\n", "# Using devices\n" + devices, 1)
    (run,) = parse_nccl(doubled, "twice.log")
    verdict = judge(run, H100)
    assert verdict["judgement"] == "not-judged"
    assert "rank 0, 1, 2, 3, 4 listed more than once: two runs pasted into one log?" in verdict["explanation"]


def test_another_collective_is_not_judged_against_all_reduce() -> None:
    text = NV18_LOG.read_text().replace("all_reduce_perf", "all_gather_perf")
    (run,) = parse_nccl(text, "gather.log")
    verdict = judge(run, H100)
    assert verdict["judgement"] == "not-judged" and "all_gather_perf" in verdict["explanation"]


def _matrix(gpus: int, cell: str = "NV18") -> str:
    names = [f"GPU{i}" for i in range(gpus)]
    rows = ["\t" + "\t".join(names) + "\tCPU Affinity\tNUMA Affinity"]
    for i, name in enumerate(names):
        cells = ["X" if i == j else cell for j in range(gpus)]
        rows.append(name + "\t" + "\t".join(cells) + "\t0-51\t0")
    return "\n".join(rows) + "\n"


def test_an_asymmetric_matrix_confirms_nothing(tmp_path: Path) -> None:
    folder = copy_of("nv18-box", tmp_path)
    lines = _matrix(8).splitlines()
    lines[2] = lines[2].replace("GPU1\tNV18", "GPU1\tSYS", 1)  # GPU0→GPU1 NV18, GPU1→GPU0 SYS
    (folder / "nvidia-smi-topo-m.txt").write_text("\n".join(lines) + "\n")
    report = report_for(folder)
    intra = check(report, "intra_node.kind")
    assert intra["verdict"] == "unverified" and intra["measured"] is None
    assert intra["evidence"].startswith(
        "could not judge: not symmetric: GPU0→GPU1 is NV18 but GPU1→GPU0 is SYS"
    )
    assert report["facts"]["topology"]["verdict"] == "not-judged"
    assert check(report, "intra_node.bandwidth_gbytes_s")["verdict"] != "contradicted"


def test_a_600_gpu_matrix_on_an_8_gpu_server_confirms_nothing(tmp_path: Path) -> None:
    folder = copy_of("nv18-box", tmp_path)
    (folder / "nvidia-smi-topo-m.txt").write_text(_matrix(600))
    intra = check(report_for(folder), "intra_node.kind")
    assert intra["verdict"] == "unverified"
    assert intra["evidence"] == "could not judge: the matrix has 600 GPUs but the GPU query reports 8"


def test_a_matrix_that_is_not_square_or_bonds_too_many_links(tmp_path: Path) -> None:
    folder = copy_of("nv18-box", tmp_path)
    (folder / "nvidia-smi-topo-m.txt").write_text(_matrix(8) + "GPU8\tNV18\tNV18\n")
    intra = check(report_for(folder), "intra_node.kind")
    assert intra["verdict"] == "unverified" and "not square: GPU8 without a column" in intra["evidence"]
    (folder / "nvidia-smi-topo-m.txt").write_text(_matrix(8, "NV99"))
    intra = check(report_for(folder), "intra_node.kind")
    assert (
        intra["verdict"] == "unverified"
        and "GPU0–GPU1 NV99: more NVLinks than a GPU has" in intra["evidence"]
    )


def test_a_matrix_without_the_gpu_query_is_not_judged(tmp_path: Path) -> None:
    folder = copy_of("nv18-box", tmp_path)
    (folder / "nvidia-smi-q.xml").unlink()
    intra = check(report_for(folder), "intra_node.kind")
    assert (
        intra["verdict"] == "unverified"
        and "the GPU query (nvidia-smi -q, NVML) was not read" in intra["evidence"]
    )


@pytest.mark.parametrize(
    ("rate", "why"),
    [
        ("100000000000000000000 Gb/sec (4X HDR)", "1e+20 Gb/sec is not 4X HDR (200 Gb/sec)"),
        ("1e20 Gb/sec", "1e+20 Gb/sec is not a rate an InfiniBand or RoCE port has"),
        ("600 Gb/sec (4X NDR)", "600 Gb/sec is not 4X NDR (400 Gb/sec)"),
        ("400 Gb/sec (3X NDR)", "400 Gb/sec names 3X NDR, a width or lane speed no port has"),
        ("", "its rate file is empty or missing"),
    ],
)
def test_an_infiniband_rate_no_port_has_is_not_summed(tmp_path: Path, rate: str, why: str) -> None:
    folder = copy_of("nv18-box", tmp_path)
    (folder / "sys/class/infiniband/mlx5_4/ports/1/rate").write_text(rate + "\n" if rate else "")
    report = report_for(folder)
    bandwidth = check(report, "inter_node.bandwidth_gbit_s")
    assert bandwidth["verdict"] == "unverified" and bandwidth["measured"] is None
    assert bandwidth["evidence"] == f"could not judge: mlx5_4 port 1: {why}"
    ib = report["facts"]["rdma"]["infiniband"]
    assert ib["total_gbit_s"] is None and ib["rates_gbit_s"] == [400.0]
    assert check(report, "inter_node.rails")["verdict"] == "confirmed"  # the count needs no rate


def test_an_ethernet_speed_no_link_has_is_not_a_reading(tmp_path: Path) -> None:
    folder = copy_of("nv18-box", tmp_path)
    speeds = sorted((folder / "sys/class/net").glob("*/speed"))
    assert speeds, "the scenario records NIC speeds"
    speeds[0].write_text("123456789\n")
    nics = report_for(folder)["facts"]["ethernet"]["interfaces"]
    odd = next(n for n in nics if n["name"] == speeds[0].parent.name)
    assert (
        odd["speed_mbit_s"] is None and odd["speed_doubt"] == "123456789 Mbit/s is not a speed Ethernet has"
    )


def test_an_nvlink_speed_no_link_has_is_not_judged(tmp_path: Path) -> None:
    folder = copy_of("nv18-box", tmp_path)
    status = folder / "nvidia-smi-nvlink-s.txt"
    status.write_text(status.read_text().replace("Link 0: 26.562 GB/s", "Link 0: 99999 GB/s", 1))
    bandwidth = check(report_for(folder), "intra_node.bandwidth_gbytes_s")
    assert bandwidth["verdict"] == "unverified"
    assert bandwidth["evidence"].startswith("could not judge: GPU 0 link 0 reads 99999 GB/s")


def test_replays_read_nothing_outside_their_folder(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("root:x:0:0:SECRET-CONTENT:/root:/bin/bash\n")
    folder = copy_of("nv18-box", tmp_path)
    (folder / "nccl" / "evil.log").symlink_to(secret)
    (folder / "nvidia-smi-topo-m.txt").unlink()
    (folder / "nvidia-smi-topo-m.txt").symlink_to(secret)
    (folder / "traces" / "out.json").symlink_to(secret)
    rate = folder / "sys/class/infiniband/mlx5_0/ports/1/rate"
    rate.unlink()
    rate.symlink_to(secret)
    (folder / "hostname").unlink()
    (folder / "hostname").symlink_to(secret)
    report = report_for(folder)
    assert "SECRET-CONTENT" not in repr(report)
    topology = next(r for r in report["read"] if r["reader"] == "topology")
    assert (
        topology["status"] == "not read" and "leads outside the replay folder; not read" in topology["reason"]
    )
    assert [r["source"] for r in report["facts"]["nccl"]["runs"]] == [
        str(folder / "nccl" / "all_reduce_perf.log")
    ]
    assert report["host"]["hostname"] == "replay of nv18-box"
    port = next(p for p in report["facts"]["rdma"]["ports"] if p["device"] == "mlx5_0")
    assert port["rate_gbit_s"] is None


def test_a_replay_folder_that_is_a_link_is_read_where_it_leads(tmp_path: Path) -> None:
    folder = copy_of("nv18-box", tmp_path)
    link = tmp_path / "link-to-box"
    link.symlink_to(folder)
    assert check(report_for(link), "intra_node.kind")["verdict"] == "confirmed"


def test_the_reference_library_names_its_sources_and_where_there_is_none() -> None:
    table = reference_table()
    for ref in table.references:
        assert ref.source and (ref.busbw_gbytes_s is None) == (ref.kind == "none"), ref.id
    for limit in table.limits:
        assert limit.source and limit.gbytes_s_per_direction > 0
    ids = {r.id for r in table.references}
    assert {"a100-sxm4-8gpu-nvswitch", "h100-sxm-8gpu-nvswitch", "h100-pcie-8gpu"} <= ids
    text = NV18_LOG.read_text().replace("NVIDIA H100 80GB HBM3", "NVIDIA H100 PCIe")
    (pcie,) = parse_nccl(forged(text, 60.0, consistent=True), "pcie.log")
    verdict = judge(pcie, ["NVIDIA H100 PCIe"])
    assert verdict["judgement"] == "no-reference" and verdict["reference"]["id"] == "h100-pcie-8gpu"
    assert "no public all_reduce_perf result of a healthy 8 x H100 PCIe server" in verdict["explanation"]
