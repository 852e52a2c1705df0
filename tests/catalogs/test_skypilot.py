"""The SkyPilot CSV importer: grouping, per-region prices, derived GPU variants, real catalogs' quirks
corrected with notes (fixtures/skypilot, recorded real rows), rows it cannot understand skipped with their
reason (or the whole import refused with `strict`), and bad CSVs."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

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
    # fractional GPUs reported, not dropped
    assert [(s.line, s.reason) for s in result.skipped] == [
        (6, "AcceleratorCount '0.5' is not a whole number of GPUs")
    ]
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


def test_a_price_of_zero_means_not_offered_there_and_the_catalog_still_loads(tmp_path: Path) -> None:
    text = (
        LAMBDA.replace("3.29,us-west-1", "0,us-west-1")
        + LAMBDA.splitlines()[2].replace("us-west-1", "us-east-1")
        + "\n"
    )
    result = import_skypilot_csv(write(tmp_path, "lambda_gpu.csv", text), as_of="2026-11-30")
    assert result.not_offered == 1
    assert any("1 row with Price 0 left out: not offered there" in w for w in result.warnings)
    loaded, errors = parse_catalog_text(catalog_to_toml(result.catalog, "header"))
    assert loaded is not None, [str(e) for e in errors]
    pcie = next(o for o in loaded.offerings if o.id == "gpu_1x_h100_pcie")
    assert pcie.regions == ("us-east-1",)  # not listed where it is not offered
    assert [p.region for p in pcie.prices] == ["us-east-1"]


BAD_ROWS = [
    (AWS.replace("55.04,30.1", "fifty,30.1", 1), "Price 'fifty' is not a number", 2),
    (AWS.replace("55.04,30.1", "-1,30.1", 1), "not a usable value", 2),
    (AWS.replace("us-east-1,use1-az1", ",use1-az1", 1), "empty Region", 2),
    (
        AWS + "p5.48xlarge,H100,8.0,192.0,2048.0,{},1,2,US-East-1,x,y,extra\n",
        "12 cells where the header has 11",
        7,
    ),
]


@pytest.mark.parametrize(("text", "words", "line"), BAD_ROWS)
def test_a_row_that_cannot_be_understood_is_skipped_with_its_reason(
    tmp_path: Path, text: str, words: str, line: int
) -> None:
    result = import_skypilot_csv(write(tmp_path, "bad.csv", text))
    skipped = {s.line: s.reason for s in result.skipped}
    assert words in skipped[line]
    loaded, errors = parse_catalog_text(catalog_to_toml(result.catalog))
    assert loaded is not None, errors  # the rest still makes a catalog


@pytest.mark.parametrize(("text", "words", "line"), BAD_ROWS)
def test_strict_fails_the_whole_import_at_the_first_such_row(
    tmp_path: Path, text: str, words: str, line: int
) -> None:
    fractional = AWS.splitlines()[5] + "\n"  # the fractional-GPU row, itself one strict refuses
    text = text.replace(fractional, "")
    line = line - 1 if line > 6 else line
    with pytest.raises(SkyPilotImportError) as caught:
        import_skypilot_csv(write(tmp_path, "bad.csv", text), strict=True)
    assert words in str(caught.value) and "row cannot be understood" in str(caught.value)
    assert caught.value.line == line


@pytest.mark.parametrize(
    ("text", "words", "line"),
    [
        ("InstanceType,Region\nx,y\n", "missing columns AcceleratorName, AcceleratorCount, Price", 1),
        (AWS.splitlines()[0] + "\n", "no GPU rows", None),
    ],
)
def test_files_that_are_not_catalogs_fail_whole(
    tmp_path: Path, text: str, words: str, line: int | None
) -> None:
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


def test_a_cell_over_131072_characters_skips_its_row_and_reads_the_next(tmp_path: Path) -> None:
    # it used to escape as a bare csv.Error, then to fail the whole file
    text = (
        AWS + '"' + "x" * 200_000 + '",H100\n' + AWS.splitlines()[1].replace("us-east-1", "eu-west-1") + "\n"
    )
    result = import_skypilot_csv(write(tmp_path, "huge.csv", text))
    assert [(s.line, s.reason) for s in result.skipped][-1] == (
        len(AWS.splitlines()) + 1,
        "a cell of 200,000 characters (more than 131,072)",
    )
    p5 = next(o for o in result.catalog["offerings"] if o["id"] == "p5.48xlarge")
    assert "eu-west-1" in p5["regions"]  # the row after it is read


def test_a_line_separator_inside_a_cell_does_not_split_the_row(tmp_path: Path) -> None:
    # U+2028 is a line break for str.splitlines, not for CSV: it used to make a bogus offering of half a row
    text = AWS.replace("'Name': 'H100'", "'Name': 'H100\u2028'", 1)
    assert "\u2028" in text
    result = import_skypilot_csv(write(tmp_path, "aws_gpu.csv", text))
    assert result.rows_read == 5 and result.rows_used == 4
    assert not any("cells" in s.reason for s in result.skipped)
    assert sorted(o["id"] for o in result.catalog["offerings"]) == ["p5.48xlarge", "p5e.48xlarge"]
    p5 = next(o for o in result.catalog["offerings"] if o["id"] == "p5.48xlarge")
    assert p5["regions"] == ["ap-northeast-1", "us-east-1"] and p5["gpu_memory_gb"] == 80.0


FIXTURES = Path(__file__).resolve().parent / "fixtures" / "skypilot"


def test_vast_total_memory_in_the_per_gpu_field_is_corrected_with_a_note() -> None:
    result = import_skypilot_csv(FIXTURES / "vast_vms_extract.csv", provider_id="vast", as_of="2026-12-01")
    offerings = {o["id"]: o for o in result.catalog["offerings"]}
    eight = offerings["8x-h200-32-65536"]
    memory = eight["gpu_memory_gb"]
    assert memory["value"] == pytest.approx(140.4, abs=0.01)
    assert memory["note"].startswith("SizeInMiB 1150168 is the 8 GPUs' total, not per GPU: 143771 MiB")
    assert offerings["2x-h200-32-65536"]["gpu_memory_gb"]["value"] == pytest.approx(140.4, abs=0.01)
    assert offerings["1x-h200-32-65536"]["gpu_memory_gb"] == pytest.approx(
        140.4, abs=0.01
    )  # nothing to correct
    # the note stays with the fact in the catalog the loader reads
    loaded, errors = parse_catalog_text(catalog_to_toml(result.catalog))
    assert loaded is not None, [str(e) for e in errors]
    fact = next(o for o in loaded.offerings if o.id == "8x-h200-32-65536").fact("gpu_memory_gb")
    assert fact.note is not None and "8 GPUs' total" in fact.note
    # an empty city: ", US, NA" is read as "US, NA", country US, with a note
    regions = {r["id"]: r for r in result.catalog["regions"]}
    assert regions["us-na"]["name"] == "US, NA" and regions["us-na"]["country"] == "US"
    assert "names no city" in regions["us-na"]["notes"]
    assert "us-na" in offerings["4x-h200-32-65536"]["regions"]
    # counts: every row imported, some corrected; the unknown GPU kept, its GPU left unknown
    assert (result.rows_read, result.rows_used, len(result.skipped)) == (14, 14, 0)
    # memory: the 2×, 4× and 8× H200 rows, 2× and 8× H100 SXM, 4× B200; region: the ", US, NA" rows (three of
    # them among those); 2 × A100 at 81,920 MiB reads as 80 GB per GPU, which the reference has: not touched
    assert result.rows_corrected == 8
    assert "gpu" not in offerings["2x-rtx_5090-32-65536"]
    assert "not in the GPU reference" in offerings["2x-rtx_5090-32-65536"]["notes"]


def test_total_memory_in_size_and_the_per_gpu_memory_in_total_read_right() -> None:
    prime = import_skypilot_csv(
        FIXTURES / "primeintellect_vms_extract.csv", provider_id="prime", as_of="2026-12-01"
    )
    offerings = {o["id"]: o for o in prime.catalog["offerings"]}
    a100 = offerings["lambdalabs__8xa100_80gb__240__1800"]["gpu_memory_gb"]
    assert a100["value"] == 80.0 and "SizeInMiB 655360 is the 8 GPUs' total" in a100["note"]
    spot_only = offerings["datacrunch__8xh200_141gb__176__1450__spot"]
    assert "prices" not in spot_only and "no price in the source for: fi" in spot_only["notes"]
    lambda_ = import_skypilot_csv(
        FIXTURES / "lambda_vms_extract.csv", provider_id="lambda", as_of="2026-12-01"
    )
    (eight,) = lambda_.catalog["offerings"]
    assert eight["gpu_memory_gb"]["value"] == 40.0
    assert "equals the per-GPU SizeInMiB: read as per GPU" in eight["gpu_memory_gb"]["note"]


def test_duplicate_rows_are_read_once_and_counted(tmp_path: Path) -> None:
    rows = (FIXTURES / "vast_vms_extract.csv").read_text(encoding="utf-8").splitlines()
    text = "\n".join([*rows, rows[1], rows[7]]) + "\n"
    result = import_skypilot_csv(write(tmp_path, "vast.csv", text), as_of="2026-12-01")
    assert result.duplicates == 2 and result.rows_read == 16 and result.rows_used == 14
    assert any("2 duplicate rows read once" in w for w in result.warnings)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=400))
def test_any_text_imports_or_is_refused_with_the_importers_own_error(tmp_path: Path, junk: str) -> None:
    header = AWS.splitlines()[0]
    for text in (junk, header + "\n" + junk, AWS + junk):
        path = write(tmp_path, "junk.csv", text)
        try:
            result = import_skypilot_csv(path, as_of="2026-12-01")
        except SkyPilotImportError as exc:
            assert exc.path == path
            continue
        loaded, errors = parse_catalog_text(catalog_to_toml(result.catalog))
        assert loaded is not None, [str(e) for e in errors]
