"""The SkyPilot CSV importer: grouping, per-region prices, derived GPU variants, and bad CSVs."""

from __future__ import annotations

from pathlib import Path

import pytest

from catalogs.errors import SkyPilotImportError
from catalogs.loader import parse_catalog_text
from catalogs.skypilot import catalog_to_toml, form_factor_hint, gpu_memory_from_info, import_skypilot_csv

# Rows as they appear in SkyPilot's catalogs (AWS v8 and Lambda v8 column sets), prices shortened.
AWS = """InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region,AvailabilityZone,Arch
p5.48xlarge,H100,8.0,192.0,2048.0,"{'Gpus': [{'Name': 'H100', 'MemoryInfo': {'SizeInMiB': 81920}}], 'TotalGpuMemoryInMiB': 655360}",55.04,30.1,us-east-1,use1-az1,x86_64
p5.48xlarge,H100,8.0,192.0,2048.0,"{'Gpus': [{'Name': 'H100', 'MemoryInfo': {'SizeInMiB': 81920}}], 'TotalGpuMemoryInMiB': 655360}",55.04,28.5,us-east-1,use1-az2,x86_64
p5.48xlarge,H100,8.0,192.0,2048.0,"{'Gpus': [{'Name': 'H100', 'MemoryInfo': {'SizeInMiB': 81920}}], 'TotalGpuMemoryInMiB': 655360}",75.95,,ap-northeast-1,apne1-az1,x86_64
p5e.48xlarge,H200,8.0,192.0,2048.0,"{'Gpus': [{'Name': 'H200', 'MemoryInfo': {'SizeInMiB': 144384}}]}",,,us-east-2,use2-az1,x86_64
g6f.xlarge,L4,0.5,4.0,16.0,"{}",0.4,,us-east-1,use1-az1,x86_64
"""
LAMBDA = """InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,GpuInfo,SpotPrice
gpu_8x_h100_sxm5,H100,8.0,208.0,1800.0,31.92,us-west-1,"{'Gpus': [{'Name': 'H100', 'Count': 8.0, 'MemoryInfo': {'SizeInMiB': 81920}}]}",
gpu_1x_h100_pcie,H100,1.0,26.0,200.0,3.29,us-west-1,"{'Gpus': [{'Name': 'H100', 'Count': 1.0, 'MemoryInfo': {'SizeInMiB': 81920}}]}",
"""
GCP = """InstanceType,vCPUs,MemoryGiB,AcceleratorName,AcceleratorCount,GpuInfo,Region,AvailabilityZone,Price,SpotPrice
,,,A100,8,{'Gpus': [{'MemoryInfo': {'SizeInMiB': 40960}}]},us-central1,us-central1-a,29.38,9.1
,,,,,,us-central1,us-central1-a,1.0,
"""


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_aws_rows_group_into_offerings_with_per_region_prices(tmp_path: Path) -> None:
    result = import_skypilot_csv(write(tmp_path, "aws_gpu.csv", AWS), source="test rows", as_of="2026-11-30")
    catalog = result.catalog
    assert catalog["provider"]["id"] == "aws"
    offerings = {o["id"]: o for o in catalog["offerings"]}
    assert set(offerings) == {"p5.48xlarge", "p5e.48xlarge"}
    p5 = offerings["p5.48xlarge"]
    assert p5["gpu"] == "H100" and p5["gpus_per_node"] == 8 and p5["gpu_memory_gb"] == 80.0
    assert "intra_node" not in p5  # "H100" does not say SXM or PCIe: unknown
    assert p5["prices"] == [
        {"region": "ap-northeast-1", "node_hour": 75.95},
        {"region": "us-east-1", "node_hour": 55.04, "spot_node_hour": 28.5},  # lowest zone spot price
    ]
    assert "no price in the source for: us-east-2" in offerings["p5e.48xlarge"]["notes"]
    assert offerings["p5e.48xlarge"]["gpu"] == "H200"  # family: a bare H200 is not assumed SXM
    assert any(
        "AcceleratorCount '0.5'" in w for w in result.warnings
    )  # fractional GPUs reported, not dropped
    assert result.rows_read == 5 and result.rows_used == 4


def test_form_factor_in_the_name_derives_variant_and_interconnect(tmp_path: Path) -> None:
    catalog = import_skypilot_csv(write(tmp_path, "lambda_gpu.csv", LAMBDA), as_of="2026-11-30").catalog
    offerings = {o["id"]: o for o in catalog["offerings"]}
    sxm = offerings["gpu_8x_h100_sxm5"]
    assert sxm["gpu"] == "H100 SXM"
    assert sxm["intra_node"]["kind"] == "nvlink" and sxm["intra_node"]["bandwidth_gbytes_s"] == 900
    assert sxm["intra_node"]["derived"] is True and "gpu_8x_h100_sxm5" in sxm["intra_node"]["source"]
    assert offerings["gpu_1x_h100_pcie"]["gpu"] == "H100 PCIe"
    assert "intra_node" not in offerings["gpu_1x_h100_pcie"]  # one GPU: nothing to connect


def test_gcp_accelerator_rows_are_gpu_only_prices(tmp_path: Path) -> None:
    result = import_skypilot_csv(write(tmp_path, "gcp_gpu.csv", GCP), as_of="2026-11-30")
    (a100,) = result.catalog["offerings"]
    assert a100["id"] == "a100-x8" and a100["prices"][0]["covers"] == "gpus-only"
    assert "host VM is billed on top" in a100["notes"]
    assert any("without AcceleratorName" in w for w in result.warnings)


def test_output_round_trips_through_the_loader(tmp_path: Path) -> None:
    for name, text in (("aws_gpu.csv", AWS), ("lambda_gpu.csv", LAMBDA), ("gcp_gpu.csv", GCP)):
        result = import_skypilot_csv(write(tmp_path, name, text), as_of="2026-11-30")
        toml = catalog_to_toml(result.catalog, "header line")
        assert toml.startswith("# header line\n")
        loaded, errors = parse_catalog_text(toml)
        assert loaded is not None, errors
        assert loaded.offerings[0].source == f"SkyPilot-format catalog {name}"


def test_a_price_of_zero_is_read_as_not_stated_and_the_catalog_still_loads(tmp_path: Path) -> None:
    text = LAMBDA.replace("3.29,us-west-1", "0,us-west-1")
    result = import_skypilot_csv(write(tmp_path, "lambda_gpu.csv", text), as_of="2026-11-30")
    assert any("1 row(s) with Price 0 read as no price stated" in w for w in result.warnings)
    loaded, errors = parse_catalog_text(catalog_to_toml(result.catalog, "header"))
    assert loaded is not None, [str(e) for e in errors]
    pcie = next(o for o in loaded.offerings if o.id == "gpu_1x_h100_pcie")
    assert pcie.prices == ()


@pytest.mark.parametrize(
    ("text", "words", "line"),
    [
        ("InstanceType,Region\nx,y\n", "missing column(s) AcceleratorName, AcceleratorCount, Price", 1),
        (AWS.replace("55.04,30.1", "fifty,30.1", 1), "'fifty' is not a number", 2),
        (AWS.replace("55.04,30.1", "-1,30.1", 1), "not a usable value", 2),
        (AWS.splitlines()[0] + "\n", "no GPU rows", None),
        (AWS.replace("us-east-1,use1-az1", ",use1-az1", 1), "empty Region", 2),
        (AWS + "p5.48xlarge,H100,8.0,192.0,2048.0,{},1,2,US-East-1,x,y,extra\n", "more cells", 7),
    ],
)
def test_bad_csvs(tmp_path: Path, text: str, words: str, line: int | None) -> None:
    with pytest.raises(SkyPilotImportError) as caught:
        import_skypilot_csv(write(tmp_path, "bad.csv", text))
    assert words in str(caught.value)
    assert caught.value.line == line


def test_helpers() -> None:
    assert gpu_memory_from_info("{'gpus': [{'memoryinfo': {'sizeinmib': 81559}}]}") == pytest.approx(79.65)
    assert gpu_memory_from_info("H100") is None
    assert gpu_memory_from_info("__import__('os')") is None  # never evaluated
    assert form_factor_hint("intel-ice-lake-a800-pci_8x96v192gb", "A800") == "PCIe"
    assert form_factor_hint("H100_NVLINK_80GB::8", "H100") == "NVLink"
    assert form_factor_hint("p5.48xlarge", "H100") is None


def test_a_csv_the_csv_module_cannot_read_is_reported_not_raised(tmp_path: Path) -> None:
    # a field over the csv module's size limit (131,072 characters) used to escape as a bare csv.Error
    text = AWS + '"' + "x" * 200_000 + '",H100\n'
    with pytest.raises(SkyPilotImportError) as caught:
        import_skypilot_csv(write(tmp_path, "huge.csv", text))
    assert "not a readable CSV: field larger than field limit" in str(caught.value)
    assert caught.value.line == len(AWS.splitlines()) + 1
