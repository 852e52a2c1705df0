"""The readers' parsers on recorded real outputs (fixtures/real) and hand-written edge cases (fixtures/edge)."""

from __future__ import annotations

import pytest

from probes.accept.errors import ReadError
from probes.accept.fabric import parse_rate, parse_state
from probes.accept.gpus import parse_nvidia_smi_xml, parse_nvlink_status
from probes.accept.management import parse_mc_info, parse_sdr_power
from probes.accept.nccl import GIB, parse_nccl
from probes.accept.nccl_reference import judge
from probes.accept.storage import parse_fio_json
from probes.accept.topology import parse_topo_matrix
from probes.errors import ImpossibleReading
from tests.accept.conftest import EDGE, REAL, SCENARIOS


def test_nvidia_smi_xml_recorded_p100() -> None:
    inventory = parse_nvidia_smi_xml((REAL / "hadoop-nvidia-smi-q-2x-p100.xml").read_text())
    assert inventory.driver_version == "375.66" and inventory.cuda_version is None
    assert [g.name for g in inventory.gpus] == ["Tesla P100-PCIE-12GB", "Tesla P100-PCIE-12GB_2"]
    assert [g.memory_total_mib for g in inventory.gpus] == [11567, 12290]
    assert [g.bus_id for g in inventory.gpus] == ["0000:04:00.0", "0000:82:00.0"]
    first = inventory.gpus[0]
    assert (first.pcie_gen_current, first.pcie_gen_max, first.pcie_width_current) == (3, 3, 16)


def test_nvidia_smi_xml_truncated_and_hostile() -> None:
    text = (REAL / "hadoop-nvidia-smi-q-2x-p100.xml").read_text()
    with pytest.raises(ReadError, match=r"q\.xml:\d+: not valid XML"):
        parse_nvidia_smi_xml(text[: len(text) // 2], "q.xml")
    bomb = '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaa">]><nvidia_smi_log>&a;</nvidia_smi_log>'
    with pytest.raises(ReadError, match="refused"):
        parse_nvidia_smi_xml(bomb, "q.xml")
    one_gpu_missing = text.replace("<attached_gpus>2</attached_gpus>", "<attached_gpus>3</attached_gpus>")
    with pytest.raises(ReadError, match="attached_gpus says 3 but the file describes 2"):
        parse_nvidia_smi_xml(one_gpu_missing, "q.xml")
    bad_memory = text.replace("<total>11567 MiB</total>", "<total>lots</total>", 1)
    with pytest.raises(ReadError, match=r"gpu\[0\] fb_memory_usage/total: 'lots' is not a number"):
        parse_nvidia_smi_xml(bad_memory, "q.xml")


def test_nvlink_status_links_and_inactive() -> None:
    links = parse_nvlink_status((EDGE / "nvlink-s-one-inactive.txt").read_text())
    assert sorted(links) == [0, 1]
    assert len(links[0]) == 18 and sum(link.active for link in links[0]) == 16
    assert links[0][0].speed_gbytes_s == 26.562 and not links[0][4].active
    with pytest.raises(ReadError, match=r"s\.txt:2: unexpected line 'Link zero'"):
        parse_nvlink_status("GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-x)\n\tLink zero\n", "s.txt")


@pytest.mark.parametrize(
    ("scenario", "verdict", "islands"),
    [
        ("nv18-box", "nvlink-all", [8]),
        ("pcie-box", "pcie-only", [1] * 8),
        ("islands-box", "nvlink-islands", [4, 4]),
        ("a100-ib-box", "nvlink-all", [8]),
        ("p100-soc-box", "pcie-only", [1, 1]),
    ],
)
def test_topology_verdicts(scenario: str, verdict: str, islands: list[int]) -> None:
    topology = parse_topo_matrix((SCENARIOS / scenario / "nvidia-smi-topo-m.txt").read_text())
    assert topology.verdict == verdict
    assert [len(group) for group in topology.islands] == islands


def test_topology_nic_columns_legend_and_ansi() -> None:
    text = (SCENARIOS / "nv18-box" / "nvidia-smi-topo-m.txt").read_text()
    assert "\x1b[4m" in text
    topology = parse_topo_matrix(text)
    assert topology.gpus == tuple(f"GPU{i}" for i in range(8))
    assert len(topology.pairs) == 28 and all(p.path == "NV18" for p in topology.pairs)
    assert topology.nics[:2] == ("NIC0", "NIC1") and dict(topology.nic_names)["NIC8"] == "mlx5_bond_0"


def test_topology_pcie_pairs_are_the_evidence() -> None:
    topology = parse_topo_matrix((SCENARIOS / "pcie-box" / "nvidia-smi-topo-m.txt").read_text())
    assert "GPU0–GPU4 SYS" in [p.describe() for p in topology.pcie_pairs]
    islands = parse_topo_matrix((SCENARIOS / "islands-box" / "nvidia-smi-topo-m.txt").read_text())
    assert islands.islands == (("GPU0", "GPU1", "GPU2", "GPU3"), ("GPU4", "GPU5", "GPU6", "GPU7"))
    assert len(islands.pcie_pairs) == 16


def test_topology_old_soc_driver() -> None:
    topology = parse_topo_matrix((SCENARIOS / "p100-soc-box" / "nvidia-smi-topo-m.txt").read_text())
    assert [p.path for p in topology.pairs] == ["SOC"] and topology.nics == ("mlx5_0",)


def test_topology_bad_input_names_file_and_line() -> None:
    with pytest.raises(
        ReadError, match=r"topo\.txt: the matrix has no GPU4 row \(the header at line 1 names 8 GPUs\)"
    ):
        parse_topo_matrix((EDGE / "topo-truncated.txt").read_text(), "topo.txt")
    with pytest.raises(ReadError, match=r"topo\.txt:2: GPU0×GPU1 is 'NVX'"):
        parse_topo_matrix((EDGE / "topo-bad-cell.txt").read_text(), "topo.txt")
    with pytest.raises(ReadError, match="no matrix header"):
        parse_topo_matrix("NVIDIA-SMI has failed\n", "topo.txt")


def test_sysfs_values() -> None:
    assert parse_rate("400 Gb/sec (4X NDR)", "rate") == 400.0  # gpud's recorded H100 sysfs file
    assert parse_rate("200 Gb/sec (4X HDR)", "rate") == 200.0
    assert parse_rate("25 Gb/sec (1X EDR)", "rate") == 25.0 and parse_rate("56 Gb/sec", "rate") == 56.0
    with pytest.raises(
        ImpossibleReading, match=r"25\.7812 Gb/sec is not a rate an InfiniBand or RoCE port has"
    ):
        parse_rate("25.78125 Gb/sec", "rate")  # Ethernet's signalling rate: the kernel never writes it
    assert parse_state("4: ACTIVE", "state") == "ACTIVE" and parse_state("5: LinkUp", "p") == "LinkUp"
    with pytest.raises(ReadError, match=r"ports/1/rate:1: rate 'garbage'"):
        parse_rate("garbage", "mlx5_0/ports/1/rate")


def test_nccl_pre_2022_recorded_log() -> None:
    run = parse_nccl((REAL / "superbench-nccl-allreduce-8x-a100.log").read_text(), "superbench.log")[0]
    assert run.format == "pre-2022" and run.ranks == 8 and run.hosts == ("localhost",)
    assert len(run.rows) == 34 and run.avg_busbw_gbytes_s == 68.4048
    peak = run.peak()
    assert peak is not None and peak.size_bytes == 8 * GIB and peak.busbw_gbytes_s == 235.26


def test_nccl_current_format_with_info_lines() -> None:
    run = parse_nccl((SCENARIOS / "slow-nccl-box" / "nccl" / "all_reduce_perf.log").read_text(), "slow.log")[
        0
    ]
    assert run.format == "current" and run.collective == "all_reduce_perf" and run.ranks == 8
    peak = run.peak()
    assert peak is not None and peak.busbw_gbytes_s == 158.0 and peak.size_bytes == 4 * GIB
    assert run.avg_busbw_gbytes_s is not None and run.avg_busbw_gbytes_s < 158.0


def test_nccl_srun_prefix_and_json() -> None:
    run = parse_nccl((EDGE / "nccl-srun-prefixed.log").read_text(), "srun.log")[0]
    assert run.peak() is not None and run.busbw(run.peak()) == 466.0  # type: ignore[arg-type]
    doc = parse_nccl((EDGE / "nccl-allreduce-h100.json").read_text(), "out.json")[0]
    assert doc.format == "json" and doc.ranks == 8 and doc.hosts == ("h100-json",)
    assert doc.busbw(doc.peak()) == 471.9 and doc.avg_busbw_gbytes_s == 409.65  # type: ignore[arg-type]


def test_nccl_bad_logs() -> None:
    with pytest.raises(ReadError, match=r"norows\.log: the table at line \d+ has no size rows"):
        parse_nccl((EDGE / "nccl-no-rows.log").read_text(), "norows.log")
    with pytest.raises(ReadError, match="no all_reduce_perf results table"):
        parse_nccl("NCCL INFO only\n", "x.log")
    text = (
        (REAL / "superbench-nccl-allreduce-8x-a100.log")
        .read_text()
        .replace("   float     sum    16215", "   float     sum")
    )
    with pytest.raises(ReadError, match=r"x\.log:48: a result row that does not fit the header at line 14"):
        parse_nccl(text, "x.log")


def test_peak_not_the_footer_average_and_the_reference() -> None:
    slow = parse_nccl((SCENARIOS / "slow-nccl-box" / "nccl" / "all_reduce_perf.log").read_text(), "slow.log")[
        0
    ]
    verdict = judge(slow, ["NVIDIA H100 80GB HBM3"])
    assert (
        verdict["judgement"] == "below-reference" and verdict["reference"]["id"] == "h100-sxm-8gpu-nvswitch"
    )
    assert verdict["peak_busbw_gbytes_s"] == 158.0 and verdict["ratio"] == pytest.approx(158 / 450)
    healthy = parse_nccl((REAL / "superbench-nccl-allreduce-8x-a100.log").read_text(), "sb.log")[0]
    assert judge(healthy, ["NVIDIA A100-SXM4-40GB"])["judgement"] == "at-reference"
    small = parse_nccl((EDGE / "nccl-small-only.log").read_text(), "small.log")[0]
    assert judge(small, ["NVIDIA H100 80GB HBM3"])["judgement"] == "not-judged"
    assert judge(healthy, ["NVIDIA B200"])["judgement"] == "no-reference"


def test_fio_recorded_and_with_notes_before_the_json() -> None:
    real = parse_fio_json((REAL / "superbench-fio-disk-performance.json").read_text(), "fio.json")
    noisy = parse_fio_json((EDGE / "fio-with-notes.json").read_text(), "fio.json")
    assert real == noisy
    assert real.read_bw_mbytes_s == pytest.approx(348.743777) and real.filename == "/dev/nvme0n1"
    with pytest.raises(ReadError, match=r"fio\.json:3: not valid JSON"):
        parse_fio_json('note\n{\n  "jobs": [,\n', "fio.json")


def test_ipmitool_outputs() -> None:
    info = parse_mc_info((EDGE / "ipmitool-mc-info.txt").read_text(), "mc")
    assert info["Manufacturer Name"] == "Supermicro" and info["IPMI Version"] == "2.0"
    supplies, redundancy = parse_sdr_power((EDGE / "ipmitool-sdr-one-psu-failed.txt").read_text(), "sdr")
    assert [p.present for p in supplies] == [True, True] and [p.healthy for p in supplies] == [True, False]
    assert redundancy is None
    with pytest.raises(ReadError, match=r"sdr:1: 2 columns"):
        parse_sdr_power("PS1 Status | ok\n", "sdr")
