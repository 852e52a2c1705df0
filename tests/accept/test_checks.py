"""The checks against catalog claims, on replays of the fixture scenarios (the done-when cases)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from catalogs.acceptance import reference_id_for
from catalogs.loader import load_catalogs
from catalogs.needs import load_needs
from desktop.usecases.accept import ClaimLookupError, accept
from probes.accept import AcceptOptions
from tests.accept.conftest import CATALOGS, SCENARIOS

NEEDS_70B = Path(__file__).resolve().parents[2] / "catalogs" / "needs" / "example-70b-full.toml"


def report_for(scenario: str, offering: str, **kwargs: Any) -> dict[str, Any]:
    return accept(
        AcceptOptions(replay_dir=SCENARIOS / scenario, **kwargs),
        catalogs=load_catalogs(CATALOGS),
        provider="trialco",
        offering=offering,
    )


def check(report: dict[str, Any], fact: str) -> dict[str, Any]:
    return next(c for c in report["checks"] if c["fact"] == fact)


def test_pcie_box_claimed_as_nvswitch_is_contradicted_with_the_pairs() -> None:
    report = report_for("pcie-box", "h100-sxm-8x")
    intra = check(report, "intra_node.kind")
    assert intra["verdict"] == "contradicted" and intra["measured"] == "pcie-only"
    assert "GPU0–GPU4 SYS" in intra["evidence"] and intra["catalog_value"] == "pcie"
    assert intra["claim_source"] == "hand-written test fixture"
    assert check(report, "intra_node.bandwidth_gbytes_s")["verdict"] == "contradicted"
    assert check(report, "gpu")["verdict"] == "contradicted"  # H100 PCIe, not H100 SXM
    assert check(report, "inter_node.fabric")["verdict"] == "contradicted"  # no RDMA device at all
    assert report["summary"]["contradicted"] >= 4


def test_nv18_mesh_confirms_the_nvswitch_node() -> None:
    report = report_for("nv18-box", "h100-sxm-8x")
    assert check(report, "intra_node.kind")["verdict"] == "confirmed"
    bandwidth = check(report, "intra_node.bandwidth_gbytes_s")
    assert bandwidth["verdict"] == "confirmed" and bandwidth["measured"] == pytest.approx(956.2)
    gpu = check(report, "gpu")
    assert (
        gpu["verdict"] == "confirmed"
        and gpu["measured"] == ["NVIDIA H100 80GB HBM3"]
        and gpu["catalog_value"] == "H100 SXM"
    )
    assert check(report, "gpus_per_node")["verdict"] == "confirmed"
    for fact in (
        "inter_node.fabric",
        "inter_node.bandwidth_gbit_s",
        "inter_node.rails",
        "inter_node.rdma",
        "storage.local_nvme_tb",
        "bmc_ipmi",
        "power_redundancy",
        "nccl.allreduce_busbw_gbytes_s",
        "line_types",
    ):
        assert check(report, fact)["verdict"] == "confirmed", (fact, check(report, fact)["evidence"])
    assert report["summary"]["contradicted"] == 0
    assert check(report, "bmc_ipmi")["scope"] == "service"  # the service table claims it
    assert check(report, "line_types")["scope"] == "region"


def test_two_islands_of_four_are_not_a_full_nvlink_node() -> None:
    report = report_for("islands-box", "a100-nvlink-8x")
    intra = check(report, "intra_node.kind")
    assert intra["verdict"] == "contradicted" and intra["measured"] == "nvlink-islands"
    assert "not a full NVLink node" in intra["evidence"] and "GPU0–GPU4 SYS" in intra["evidence"]


def test_400g_infiniband_claim_against_200g_hcas() -> None:
    report = report_for("a100-ib-box", "a100-ib-400")
    bandwidth = check(report, "inter_node.bandwidth_gbit_s")
    assert bandwidth["verdict"] == "contradicted"
    assert "8 active InfiniBand ports at 200 Gb/s" in bandwidth["evidence"]
    assert "per-port speed" in bandwidth["evidence"] and bandwidth["catalog_value"] == 1600
    assert check(report, "inter_node.fabric")["verdict"] == "confirmed"  # mlx5_8 is RoCE, the rest IB
    nccl = check(report, "nccl.allreduce_busbw_gbytes_s")
    assert nccl["verdict"] == "confirmed" and nccl["measured"] == 235.26


def test_peak_of_158_against_8x_h100_is_below_the_reference_though_the_footer_reads_less() -> None:
    report = report_for("slow-nccl-box", "h100-sxm-8x")
    nccl = check(report, "nccl.allreduce_busbw_gbytes_s")
    assert nccl["verdict"] == "contradicted" and nccl["measured"] == 158.0 and nccl["claimed"] == 450
    run = report["facts"]["nccl"]["runs"][0]
    assert run["avg_busbw_gbytes_s_footer"] < 158.0 and run["peak_busbw_gbytes_s"] == 158.0
    assert "not judged" in nccl["evidence"]


def test_needs_profile_inter_node_bandwidth() -> None:
    needs = load_needs(NEEDS_70B)
    report = accept(
        AcceptOptions(replay_dir=SCENARIOS / "a100-ib-box"),
        catalogs=load_catalogs(CATALOGS),
        provider="trialco",
        offering="a100-ib-400",
        needs=needs,
    )
    need = check(report, "needs.internode_gbit_s")
    # one node's NCCL run says nothing about the link between nodes; the line rate (1600) does not rule it out
    assert need["verdict"] == "unverified" and "no NCCL run across nodes" in need["evidence"]
    assert need["claimed"] > 0 and report["needs"]["name"] == needs.name


def test_no_claims_without_an_offering_and_unknown_names() -> None:
    report = accept(AcceptOptions(replay_dir=SCENARIOS / "nv18-box"))
    assert report["checks"] == [] and report["claims"] is None
    assert report["summary"] == {"confirmed": 0, "contradicted": 0, "unverified": 0}
    with pytest.raises(ClaimLookupError, match=r"no offering 'nope'.*h100-sxm-8x"):
        report_for("nv18-box", "nope")


def test_product_names_map_to_the_gpu_reference() -> None:
    assert reference_id_for("NVIDIA H100 80GB HBM3") == "H100 SXM"
    assert reference_id_for("NVIDIA H100 PCIe") == "H100 PCIe"
    assert reference_id_for("NVIDIA A100-SXM4-40GB") == "A100 40GB SXM"
    assert reference_id_for("A100-SXM4-40GB") == "A100 40GB SXM"
    assert reference_id_for("NVIDIA H200") == "H200 SXM"
    assert reference_id_for("Tesla P100-PCIE-12GB") is None


def test_report_round_trip_and_format_refusals(tmp_path: Path) -> None:
    import json

    from probes.accept import FORMAT_VERSION, ReportFormatError, load_report

    report = report_for("islands-box", "a100-nvlink-8x")
    path = tmp_path / "report.json"
    path.write_text(json.dumps(report, ensure_ascii=False))
    assert load_report(path)["checks"] == report["checks"]
    newer = dict(report, format_version=FORMAT_VERSION + 1)
    path.write_text(json.dumps(newer))
    with pytest.raises(ReportFormatError, match="newer than this linkvet understands"):
        load_report(path)
    path.write_text(json.dumps({"format": "something-else"}))
    with pytest.raises(ReportFormatError, match="not a linkvet acceptance report"):
        load_report(path)
    bad = dict(report, checks=[{"fact": "gpu", "verdict": "maybe"}])
    path.write_text(json.dumps(bad))
    with pytest.raises(ReportFormatError, match=r"checks\[0\] has no verdict"):
        load_report(path)
