"""The GPU reference, the checklist file and needs profiles."""

from __future__ import annotations

from pathlib import Path

import pytest

from catalogs.checklist import default_checklist, parse_checklist_text
from catalogs.errors import ChecklistError, NeedsProfileError, UnknownGpuError
from catalogs.gpus import default_gpu_reference
from catalogs.needs import load_needs, parse_needs_text

NEEDS_DIR = Path(__file__).resolve().parents[2] / "catalogs" / "needs"


def test_reference_covers_the_models_the_issue_lists() -> None:
    reference = default_gpu_reference()
    for name in [
        "H100 SXM",
        "H100 PCIe",
        "H200",
        "H800",
        "A100 40GB",
        "A100 80GB",
        "A800",
        "L40S",
        "L4",
        "A10G",
        "RTX 4090",
        "B200",
        "MI300X",
    ]:
        assert reference.get(name) is not None, name
    for spec in reference:
        assert spec.source and spec.as_of and spec.memory_gb > 0


def test_figures_the_sources_lack_stay_unknown() -> None:
    reference = default_gpu_reference()
    h800 = reference.resolve("H800").exact
    assert h800 is not None and h800.bf16_dense_tflops is None and h800.interconnect_gbytes_s_bidir is None
    assert "DeepEP" in (h800.notes or "")
    a10g = reference.resolve("A10G").exact
    assert a10g is not None and a10g.bf16_dense_tflops is None and a10g.memory_bandwidth_gbytes_s is None
    assert reference.resolve("RTX 4090").bf16_dense_tflops is None


def test_family_names_are_known_only_where_members_agree() -> None:
    reference = default_gpu_reference()
    h100 = reference.resolve("H100")
    assert h100.by_family and h100.memory_gb == 80 and h100.bf16_dense_tflops is None  # SXM 989 vs PCIe 756
    assert h100.intra_node_kind is None
    a100_40 = reference.resolve("A100", memory_gb=40)
    assert {s.id for s in a100_40.candidates} == {"A100 40GB SXM", "A100 40GB PCIe"}
    assert a100_40.bf16_dense_tflops == 312
    assert reference.resolve("h100-sxm").exact is not None
    h200 = reference.resolve("H200")
    assert h200.by_family  # a bare "H200" is not assumed to be the SXM part
    with pytest.raises(UnknownGpuError):
        reference.resolve("H1000")


def test_checklist_lists_every_item_of_the_documents() -> None:
    checklist = default_checklist()
    ids = {c.id for c in checklist.criterion}
    assert ids == {
        "vram_fits",
        "enough_gpus",
        "budget",
        "intra_node",
        "inter_node_bandwidth",
        "inter_node_fabric",
        "rdma",
        "lossless_ethernet",
        "local_nvme",
        "shared_storage",
        "storage_network",
        "management_network",
        "bmc_ipmi",
        "power_redundancy",
        "cooling",
        "line_quality",
        "line_responsiveness",
        "line_claim",
        "ddos_protection",
        "elasticity",
        "price",
        "price_per_tflop",
        "delivery_time",
        "support",
    }
    assert {c.id for c in checklist.gates} == {"vram_fits", "enough_gpus", "budget"}
    assert sum(c.weight for c in checklist.weighted) == pytest.approx(100)
    assert all(c.documents and c.what for c in checklist.criterion)
    assert checklist.scale_row(7e9).min_gbit_s == 200  # type: ignore[union-attr]
    assert checklist.scale_row(236e9).preferred_gbit_s == 400  # type: ignore[union-attr]


def test_bad_checklist_is_reported_with_its_line() -> None:
    text = 'format_version = 1\n[[criterion]]\nid = "x"\nkind = "gate"\nweight = 5\ntitle = "t"\nwhat = "w"\ndocuments = "d"\n'
    with pytest.raises(ChecklistError) as caught:
        parse_checklist_text(text, Path("checklist.toml"))
    assert "takes no weight" in str(caught.value) and caught.value.line == 2


def test_example_needs_profiles_load() -> None:
    for path in sorted(NEEDS_DIR.glob("*.toml")):
        needs = load_needs(path)
        assert needs.model.params > 0, path


@pytest.mark.parametrize(
    ("text", "field", "words"),
    [
        ("format_version = 1\n[model]\nparams = 70\n", "model.params", "70e9"),
        (
            "format_version = 1\n[model]\nparams = 7e9\n[training]\nmode = 'ful'\n",
            "training.mode",
            "pretrain",
        ),
        (
            "format_version = 1\n[model]\nparams = 7e9\nactive_params = 8e9\n",
            "model",
            "active_params ≤ params",
        ),
        (
            "format_version = 1\n[model]\nparams = 7e9\n[trainig]\nmode = 'full'\n",
            "trainig",
            "did you mean 'training'",
        ),
        ("format_version = 1\n", "model", "required"),
        (
            "format_version = 1\n[model]\nparams = 7e9\n[budget.exchange_rates]\nCNY = 0\n",
            "budget.exchange_rates.CNY",
            "greater than 0",
        ),
        (
            "format_version = 1\n[model]\nparams = 7e9\n[budget.exchange_rates]\nUSD = 1.0\n",
            "budget",
            "the budget's own currency",
        ),
    ],
)
def test_bad_needs_profiles(text: str, field: str, words: str) -> None:
    with pytest.raises(NeedsProfileError) as caught:
        parse_needs_text(text, Path("needs.toml"))
    assert caught.value.field == field
    assert words in str(caught.value)


def test_needs_profile_versions() -> None:
    with pytest.raises(NeedsProfileError, match="newer"):
        parse_needs_text("format_version = 2\n[model]\nparams = 7e9\n")
    with pytest.raises(NeedsProfileError, match="not valid TOML"):
        parse_needs_text("[model\n")


def test_exchange_rates_convert_into_the_budget_currency() -> None:
    needs = parse_needs_text(
        'format_version = 1\n[model]\nparams = 7e9\n[budget]\ncurrency = "USD"\n'
        "[budget.exchange_rates]\nCNY = 0.14\nEUR = 1.08\n",
        Path("needs.toml"),
    )
    assert needs.budget.in_budget_currency(15.0, "CNY") == pytest.approx(2.1)
    assert needs.budget.in_budget_currency(2.0, "USD") == 2.0
    assert needs.budget.in_budget_currency(2.0, "JPY") is None  # no rate given: not converted
    assert needs.budget.in_budget_currency(2.0, None) is None  # currency not stated
    assert hash(needs) == hash(parse_needs_text(needs_text := _dump(needs)))  # hashable (sizing caches)
    assert needs == parse_needs_text(needs_text)


def _dump(needs: object) -> str:
    import tomli_w

    return tomli_w.dumps(needs.model_dump(mode="json", exclude_none=True))  # type: ignore[attr-defined]


def test_example_needs_profiles_leave_the_vantage_unset_and_say_what_it_does() -> None:
    for path in sorted(NEEDS_DIR.glob("*.toml")):
        assert load_needs(path).location.vantage is None, path
        text = path.read_text(encoding="utf-8")
        assert '# vantage = "shanghai-office"' in text, path
        assert "measurements from any vantage point count" in text, path
