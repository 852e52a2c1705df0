"""Synthetic catalogs for the benchmarks: N providers × M offerings, each offering in one region."""

from __future__ import annotations

from pathlib import Path

GPUS = [
    ("H100 SXM", 80, "nvlink", 900),
    ("A100 80GB PCIe", 80, "pcie", None),
    ("L40S", 48, "pcie", None),
    ("H200 SXM", 141, "nvlink", 900),
    ("B200", 180, "nvlink", 1800),
]
FABRICS = ["infiniband", "roce", "ethernet"]


def provider_toml(p: int, offerings: int) -> str:
    lines = [
        "format_version = 1",
        "[provider]",
        f'id = "bench-{p:03d}"',
        f'name = "Bench provider {p}"',
        'source = "synthetic benchmark data"',
        'as_of = "2026-11"',
        "[service]",
        f"bmc_ipmi = {'true' if p % 2 else 'false'}",
        f"support_24x7 = {'true' if p % 3 else 'false'}",
        'source = "synthetic"',
        'as_of = "2026-11"',
    ]
    for r in range(10):
        lines += [
            "[[regions]]",
            f'id = "region-{r}"',
            'line_types = ["cn2-gia", "bgp"]',
            'source = "synthetic"',
            'as_of = "2026-11"',
            "[[regions.endpoints]]",
            'kind = "ping"',
            f'host = "198.18.{p % 250}.{r + 1}"',
        ]
    for o in range(offerings):
        gpu, memory, kind, bandwidth = GPUS[(p + o) % len(GPUS)]
        lines += [
            "[[offerings]]",
            f'id = "offer-{o:03d}"',
            f'gpu = "{gpu}"',
            f"gpus_per_node = {8 if o % 4 else 4}",
            f"gpu_memory_gb = {memory}",
            f"max_nodes = {1 + (o % 16)}",
            f'regions = ["region-{o % 10}"]',
            'currency = "USD"',
            f"prices = [{{ gpu_hour = {1.5 + ((p * 7 + o * 13) % 50) / 10:.2f} }}]",
            'source = "synthetic"',
            'as_of = "2026-11"',
            "[offerings.intra_node]",
            f'kind = "{kind}"',
        ]
        if bandwidth:
            lines.append(f"bandwidth_gbytes_s = {bandwidth}")
        lines += [
            "[offerings.inter_node]",
            f'fabric = "{FABRICS[(p + o) % 3]}"',
            f"bandwidth_gbit_s = {[400, 800, 1600, 3200][o % 4]}",
            "[offerings.storage]",
            f"local_nvme_tb = {(o % 8) * 2}",
            f"network_gbit_s = {[10, 25, 100][o % 3]}",
        ]
    return "\n".join(lines) + "\n"


def write_catalogs(directory: Path, providers: int = 100, offerings: int = 100) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for p in range(providers):
        path = directory / f"bench-{p:03d}.toml"
        path.write_text(provider_toml(p, offerings), encoding="utf-8")
        paths.append(path)
    return paths
