"""Issue 31 §1: property-based tests of the acceptance readers' physical bounds. Each reader (topology,
NCCL log, sysfs InfiniBand, fio) is fed generated outputs — plausible, absurd and in between — and what it
judges is held to bounds the test works out on its own from what it generated: a topology judged only when
the matrix is square, symmetric, bonds no more NVLinks than a GPU has and holds the GPU query's count; an
NCCL peak judged only when its row passed its correctness check, is arithmetic of its own figures and is
under the GPU's links and the reference's ceiling; a port rate only from the set the kernel writes; a fio
figure only when it is finite and within what a server's PCIe lanes carry. Anything else raises the
reader's own error or is "could not judge"."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from hypothesis import event, example, given
from hypothesis import strategies as st

from probes.accept.errors import ReadError
from probes.accept.fabric import parse_rate, read_rdma_ports, summarize_rdma
from probes.accept.machine import ReplayMachine
from probes.accept.nccl import GIB, parse_nccl
from probes.accept.nccl_reference import judge
from probes.accept.storage import parse_fio_json
from probes.accept.topology import parse_topo_matrix
from probes.errors import ImpossibleReading
from tests.fuzz.strategies import FUZZ

PCIE_PATHS = ["PIX", "PXB", "PHB", "NODE", "SYS", "SOC"]


# -- topology ---------------------------------------------------------------------------------------------


@st.composite
def matrices(draw: st.DrawFn) -> tuple[str, int, dict[tuple[int, int], str], bool]:
    n = draw(st.integers(1, 9))
    links = st.one_of(
        st.sampled_from(["NV4", "NV12", "NV18", "NV18"]), st.integers(1, 40).map(lambda k: f"NV{k}")
    )
    mostly_nvlink = draw(st.booleans())
    cell = links if mostly_nvlink else st.one_of(st.sampled_from(PCIE_PATHS), links)
    cells: dict[tuple[int, int], str] = {}
    for i in range(n):
        for j in range(n):
            cells[(i, j)] = "X" if i == j else draw(cell)
    if draw(st.integers(0, 3)):  # most often a symmetric one, so that some are judged
        for i in range(n):
            for j in range(i):
                cells[(i, j)] = cells[(j, i)]
    if n > 1 and not draw(st.integers(0, 7)):  # now and then one cell that is no path at all
        spot = (draw(st.integers(0, n - 1)), draw(st.integers(0, n - 1)))
        cells[spot] = draw(st.sampled_from(["NVX", "NV", "nv4", "?", "X", "PCI"]))
    extra = not draw(st.integers(0, 9))
    names = [f"GPU{i}" for i in range(n)]
    lines = ["\t" + "\t".join(names) + "\tCPU Affinity\tNUMA Affinity"]
    for i in range(n):
        lines.append(names[i] + "\t" + "\t".join(cells[(i, j)] for j in range(n)) + "\t0-31\t0")
    if extra:
        lines.append(f"GPU{n}\t" + "\t".join("NV4" for _ in range(n)))
    return "\n".join(lines) + "\n", n, cells, extra


@FUZZ
@given(matrices(), st.one_of(st.none(), st.integers(1, 12), st.just(-1), st.just(-1)))
def test_a_topology_is_judged_only_when_it_can_be_a_node(
    matrix: tuple[str, int, dict[tuple[int, int], str], bool], asked: int | None
) -> None:
    text, n, cells, extra = matrix
    queried = n if asked == -1 else asked  # most often the GPU query agrees
    try:
        topology = parse_topo_matrix(text, "topo.txt").against_gpu_query(queried)
    except ReadError as error:
        assert str(error).startswith("topo.txt")
        event("refused")
        return
    event(topology.verdict)
    if topology.verdict == "not-judged":
        assert topology.explain().startswith("could not judge: ")
        return
    assert queried == n and not extra
    for i in range(n):
        assert cells[(i, i)] == "X"
        for j in range(n):
            assert cells[(i, j)] == cells[(j, i)]
            if i != j and cells[(i, j)].startswith("NV"):
                assert int(cells[(i, j)][2:]) <= 18
    nvlink = [cells[(i, j)].startswith("NV") for i in range(n) for j in range(i + 1, n)]
    if n > 1:
        assert (topology.verdict == "nvlink-all") == all(nvlink)
        assert (topology.verdict == "pcie-only") == (not any(nvlink))


# -- NCCL ---------------------------------------------------------------------------------------------------

# The fastest link each way of the GPUs generated here, as published (NVLink 4, NVLink 3, an H100 PCIe's
# NVLink bridge, NVLink 2, PCIe 4), and NVLink 5 for a GPU nothing names.
LINK_EACH_WAY = {
    "NVIDIA H100 80GB HBM3": 450,
    "NVIDIA A100-SXM4-40GB": 300,
    "NVIDIA H100 PCIe": 300,
    "Tesla V100-SXM2-32GB": 150,
    "NVIDIA L40S": 31,
    "Mystery Accelerator 9000": 900,
}
REFERENCES = {
    ("NVIDIA H100 80GB HBM3", 8): 450.0,
    ("NVIDIA A100-SXM4-40GB", 8): 235.26,
    ("NVIDIA H100 PCIe", 2): 116.34,
}


@st.composite
def nccl_logs(draw: st.DrawFn) -> tuple[str, str, int, list[dict[str, Any]]]:
    gpu = draw(st.sampled_from(sorted(LINK_EACH_WAY)))
    ranks = draw(st.sampled_from([1, 2, 4, 8, 8, 8, 16]))
    listed = list(range(ranks)) + (
        draw(st.lists(st.integers(0, ranks - 1), max_size=1)) if not draw(st.integers(0, 5)) else []
    )
    lines = ["# nccl-tests version 2.16.9", "# Collective test starting: all_reduce_perf", "# Using devices"]
    for rank in listed:
        lines.append(
            f"#  Rank {rank:2d} Group  0 Pid  4123 on     node-a device {rank % 8:2d} [0000:18:00] {gpu}"
        )
    lines.append(
        "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong"
    )
    rows: list[dict[str, Any]] = []
    factor = 2 * (ranks - 1) / ranks  # all_reduce's bus bandwidth factor (0 for one rank)
    each_way = LINK_EACH_WAY[gpu]
    number = st.one_of(
        st.floats(0, 2 * each_way, allow_nan=False),
        st.floats(0, 2 * each_way, allow_nan=False),
        st.floats(0, 1e308, allow_nan=False, allow_infinity=False),
        st.sampled_from([0.0, 1e308, 99999.0, 450.0, 478.2, 235.26, 2 * each_way + 0.5]),
    )
    for size in sorted(
        draw(st.lists(st.sampled_from([2**k for k in range(26, 35)]), min_size=1, max_size=6))
    ):
        sides = []
        for _side in range(2):
            busbw = draw(number)
            if draw(st.integers(0, 3)):  # most often arithmetic of its own figures
                algbw = busbw / factor if factor else draw(number)
                busbw = algbw * factor
                time_us = size / algbw / 1e3 if algbw > 0 else 1.0
            else:
                algbw, time_us = draw(number), draw(st.floats(1e-3, 1e9))
            wrong = draw(st.sampled_from(["0", "0", "0", "N/A", "1", "12"]))
            sides.append({"time": time_us, "algbw": algbw, "busbw": busbw, "wrong": wrong})
        rows.append({"size": size, "sides": sides})
        cells = "  ".join(f"{s['time']:.6g}  {s['algbw']:.6g}  {s['busbw']:.6g}  {s['wrong']}" for s in sides)
        lines.append(f"  {size:12d}  {size // 4:12d}     float     sum      -1  {cells}")
    lines.append("# Out of bounds values : 0 OK")
    return "\n".join(lines) + "\n", gpu, len(set(listed)) if len(set(listed)) == len(listed) else -1, rows


def _passes(size: int, side: dict[str, Any], ranks: int) -> bool:
    """The side's own checks, worked out here: correctness passed (or not checked), algbw = size ÷ time,
    busbw = algbw × 2(n-1)/n, within the printing's rounding."""
    printed = {k: float(f"{side[k]:.6g}") for k in ("time", "algbw", "busbw")}
    if side["wrong"] not in ("0", "N/A") or printed["time"] <= 0:
        return False
    if abs(printed["algbw"] - size / printed["time"] / 1e3) > 0.02 * size / printed["time"] / 1e3 + 0.02:
        return False
    factor = 2 * (ranks - 1) / ranks
    return abs(printed["busbw"] - printed["algbw"] * factor) <= 0.02 * printed["algbw"] * factor + 0.02


@FUZZ
@given(nccl_logs())
@example(
    (
        "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   "
        "busbw #wrong\n  1073741824  268435456  float  sum  -1  1e-301  5.7e307  1e308  0  1e-301  5.7e307  1e308  0\n",
        "NVIDIA H100 80GB HBM3",
        0,
        [],
    )
)
def test_an_nccl_peak_is_judged_only_within_its_bounds(
    log: tuple[str, str, int, list[dict[str, Any]]],
) -> None:
    text, gpu, ranks, rows = log
    try:
        runs = parse_nccl(text, "nccl.log")
    except ReadError as error:
        assert str(error).startswith("nccl.log")
        return
    (run,) = runs
    verdict = judge(run, [gpu])
    event(verdict["judgement"])
    if verdict["judgement"] == "not-judged":
        assert verdict["explanation"].startswith("could not judge: ")
        assert verdict["peak_busbw_gbytes_s"] is None
        return
    assert ranks > 0 and not run.doubts  # no rank listed twice
    peak = verdict["peak_busbw_gbytes_s"]
    assert math.isfinite(peak) and 0 <= peak <= 2 * LINK_EACH_WAY[gpu]
    reference = REFERENCES.get((gpu, ranks))
    if reference is not None:
        assert verdict["judgement"] in ("at-reference", "below-reference") and peak <= 1.5 * reference
        assert (verdict["judgement"] == "below-reference") == (peak < 0.9 * reference)
    else:
        assert verdict["judgement"] == "no-reference"
    assert any(
        row["size"] >= GIB and float(f"{side['busbw']:.6g}") == peak and _passes(row["size"], side, ranks)
        for row in rows
        for side in row["sides"]
    )


# -- sysfs InfiniBand -------------------------------------------------------------------------------------

# The rates the kernel writes (drivers/infiniband/core/sysfs.c rate_show): widths 1, 2, 4, 8, 12 times the
# lane speeds SDR 2.5, DDR 5, QDR/FDR10 10, FDR 14, EDR 25, HDR 50, NDR 100, XDR 200 Gb/s.
LANES = {
    "SDR": 2.5,
    "DDR": 5,
    "QDR": 10,
    "FDR10": 10,
    "FDR": 14,
    "EDR": 25,
    "HDR": 50,
    "NDR": 100,
    "XDR": 200,
}
KERNEL_RATES = {w * lane for w in (1, 2, 4, 8, 12) for lane in LANES.values()}

rate_numbers = st.one_of(
    st.sampled_from(sorted(KERNEL_RATES)),
    st.floats(0, 1e30, allow_nan=False, allow_infinity=False).map(lambda x: f"{x:g}"),
    st.integers(0, 10**21),
    st.sampled_from(["1e20", "25.78125", "0", "1e400", "400.0"]),
)
rate_texts = st.builds(
    lambda number, width, lane, bracket: (
        f"{number:g} Gb/sec ({width}X {lane})"
        if bracket and isinstance(number, float)
        else f"{number} Gb/sec ({width}X {lane})"
        if bracket
        else f"{number} Gb/sec"
    ),
    rate_numbers,
    st.integers(0, 16),
    st.sampled_from([*LANES, "QDR2", "TDR", "hdr"]),
    st.booleans(),
)


@FUZZ
@given(st.one_of(rate_texts, st.text(max_size=40)))
@example("100000000000000000000 Gb/sec (4X HDR)")
@example("1e20 Gb/sec")
def test_a_port_rate_is_one_the_kernel_writes(text: str) -> None:
    try:
        rate = parse_rate(text, "rate")
    except (ReadError, ImpossibleReading) as error:
        event(type(error).__name__)
        return
    event("a rate")
    assert rate in KERNEL_RATES
    if "(" in text and text.split("(")[1].split("X")[0].strip().isdigit():
        width, lane = text.split("(")[1].rstrip(")").split("X")
        if lane.strip() in LANES:
            assert rate == int(width) * LANES[lane.strip()]


@FUZZ
@given(
    st.lists(
        st.tuples(
            st.one_of(
                rate_texts, st.just(""), st.sampled_from(["200 Gb/sec (4X HDR)", "400 Gb/sec (4X NDR)"])
            ),
            st.sampled_from(["4: ACTIVE", "1: DOWN"]),
            st.sampled_from(["InfiniBand", "Ethernet"]),
        ),
        min_size=1,
        max_size=6,
    )
)
def test_a_fabric_total_sums_only_rates_that_are_readings(
    tmp_path_factory: Any, ports: list[tuple[str, str, str]]
) -> None:
    folder = tmp_path_factory.mktemp("ib")
    for index, (rate, state, layer) in enumerate(ports):
        port = folder / f"sys/class/infiniband/mlx5_{index}/ports/1"
        port.mkdir(parents=True)
        (port / "rate").write_text(rate + "\n" if rate else "")
        (port / "state").write_text(state + "\n")
        (port / "link_layer").write_text(layer + "\n")
    try:
        found, _reading = read_rdma_ports(ReplayMachine(folder))
    except ReadError:
        return
    assert found is not None
    summary = summarize_rdma(found)
    for kind, layer in (("infiniband", "InfiniBand"), ("roce", "Ethernet")):
        active = [p for p in found if p.link_layer == layer and p.state == "ACTIVE"]
        assert all(p.rate_gbit_s is None or p.rate_gbit_s in KERNEL_RATES for p in active)
        total = summary[kind]["total_gbit_s"]
        event(f"{kind} total {'unjudged' if total is None else 'summed'}")
        if total is None:
            assert any(p.rate_gbit_s is None for p in active) and summary[kind]["unjudged"]
        else:
            assert total == sum(p.rate_gbit_s or 0 for p in active)
            assert all(p.rate_gbit_s is not None for p in active)


# -- fio ----------------------------------------------------------------------------------------------------

figures = st.one_of(
    st.floats(0, 5e12, allow_nan=False, allow_infinity=False),
    st.floats(-1e308, 1e308, allow_nan=False, allow_infinity=False),
    st.integers(-(10**20), 10**20),
    st.sampled_from([0, 1e308, 348_743_777, 1e13]),
)


@FUZZ
@given(st.lists(st.tuples(figures, figures, figures), min_size=1, max_size=4))
@example([(1e308, 10.0, 0)])
@example([(1e13, 1e4, 0)])
def test_a_fio_figure_is_a_reading_only_within_a_servers_lanes(
    jobs: list[tuple[float, float, float]],
) -> None:
    document = {
        "fio version": "fio-3.36",
        "jobs": [{"read": {"bw_bytes": r, "iops": i}, "write": {"bw_bytes": w}} for r, i, w in jobs],
    }
    try:
        result = parse_fio_json(json.dumps(document), "fio.json")
    except ReadError as error:
        assert str(error).startswith("fio.json")
        return
    event("could not judge" if result.doubt else "a reading")
    if result.doubt is not None:
        assert result.read_bw_mbytes_s is None and result.read_iops is None
        return
    assert result.read_bw_mbytes_s is not None and result.read_iops is not None
    assert math.isfinite(result.read_bw_mbytes_s) and 0 <= result.read_bw_mbytes_s <= 1e6
    for read, iops, write in jobs:
        assert 0 <= read <= 1e12 and 0 <= write <= 1e12 and iops >= 0
        assert read >= 512 * iops * 0.99 - 1


def test_the_generated_cases_reach_both_sides() -> None:
    """The strategies above make judged readings as well as refused ones (a bound that refuses everything
    would pass them all): one of each, built as they build them."""
    good = "\n".join(
        [
            "#  Rank  0 Group  0 Pid  1 on a device  0 [0] NVIDIA H100 80GB HBM3",
            "#  Rank  1 Group  0 Pid  1 on a device  1 [0] NVIDIA H100 80GB HBM3",
            "#       size  count  type  redop  root  time  algbw  busbw  #wrong  time  algbw  busbw  #wrong",
            f"  {GIB}  268435456  float  sum  -1  {GIB / 400 / 1e3:.6g}  400  400  0  {GIB / 400 / 1e3:.6g}  400  400  0",
        ]
    )
    (run,) = parse_nccl(good, "good.log")
    assert judge(run, ["NVIDIA H100 80GB HBM3"])["peak_busbw_gbytes_s"] == 400.0
    assert parse_rate("400 Gb/sec (4X NDR)", "rate") == 400.0
    fio = parse_fio_json(json.dumps({"jobs": [{"read": {"bw_bytes": 1e9, "iops": 1000}}]}), "fio.json")
    assert fio.read_bw_mbytes_s == 1000.0
    folder = Path(__file__).resolve().parent / "fixtures" / "scenarios" / "nv18-box" / "nvidia-smi-topo-m.txt"
    assert parse_topo_matrix(folder.read_text()).against_gpu_query(8).verdict == "nvlink-all"
