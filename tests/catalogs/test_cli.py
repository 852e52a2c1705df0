"""The `linkvet catalog`, `size` and `score` commands, run as a user would (a subprocess of this checkout)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from subprocess import CompletedProcess

from tests.catalogs._builders import catalog_text, offering, region
from tests.catalogs.test_link_quality import CONTRACT_EXAMPLE
from tests.catalogs.test_skypilot import LAMBDA

Run = Callable[..., CompletedProcess[str]]
REPO = Path(__file__).resolve().parents[2]
EXAMPLE = str(REPO / "catalogs" / "needs" / "example-70b-full.toml")


def no_traceback(result: CompletedProcess[str]) -> None:
    assert "Traceback" not in result.stderr and "Traceback" not in result.stdout


def test_validate_bundled_catalogs(run_linkvet: Run) -> None:
    result = run_linkvet("catalog", "validate")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "10 catalog(s) valid, 0 with problems" in result.stdout


def test_validate_reports_every_problem_and_exits_2(run_linkvet: Run, tmp_path: Path) -> None:
    good = catalog_text("good", region("r1") + offering("o1", '["r1"]', gpus_per_node="8"))
    (tmp_path / "good.toml").write_text(good, encoding="utf-8")
    (tmp_path / "bad.toml").write_text(
        catalog_text("bad", region("r1") + offering("o1", '["r9"]', gpu_memory_gb="80000")), encoding="utf-8"
    )
    result = run_linkvet("catalog", "validate", str(tmp_path))
    assert result.returncode == 2
    no_traceback(result)
    assert "ok   " in result.stdout and "good.toml" in result.stdout
    fail = next(line for line in result.stdout.splitlines() if line.startswith("FAIL"))
    assert "bad.toml:" in fail and "offerings[0].gpu_memory_gb" in fail and "expected GB per GPU" in fail
    missing = run_linkvet("catalog", "validate", str(tmp_path / "nope"))
    assert missing.returncode == 2 and "no such file" in missing.stderr
    no_traceback(missing)


def test_list_filters_by_gpu_and_prints_json(run_linkvet: Run) -> None:
    result = run_linkvet("catalog", "list", "--gpu", "H100", "--json")
    assert result.returncode == 0, result.stderr
    rows = json.loads(result.stdout)
    assert rows and all(row["gpu"].startswith("H100") for row in rows)
    assert {"aws", "lambda", "cudo"} <= {row["provider"] for row in rows}
    table = run_linkvet("catalog", "list", "--provider", "fluidstack")
    assert "h100_nvlink_80gb-8" in table.stdout and "'?' = not stated" in table.stdout
    in_node = {line.split()[-5] for line in table.stdout.splitlines()[1:-1]}  # ? or PCIe, no bandwidths
    assert "PCIe" in in_node and "pcie" not in in_node  # interconnects by name, not the catalog's identifier
    bad = run_linkvet("catalog", "list", "--gpu", "H1000")
    assert bad.returncode == 2 and "unknown GPU model 'H1000'" in bad.stderr
    no_traceback(bad)


def test_list_goes_on_past_a_broken_file(run_linkvet: Run, tmp_path: Path) -> None:
    (tmp_path / "a.toml").write_text(
        catalog_text("a", region("r1") + offering("o1", '["r1"]')), encoding="utf-8"
    )
    (tmp_path / "b.toml").write_text("format_version = 1\n[provider\n", encoding="utf-8")
    result = run_linkvet("catalog", "list", "--catalogs", str(tmp_path), "--json")
    assert result.returncode == 0
    assert [row["id"] for row in json.loads(result.stdout)] == ["o1"]
    assert "skipped:" in result.stderr and "b.toml:2" in result.stderr


def test_targets_are_plain_dicts(run_linkvet: Run) -> None:
    result = run_linkvet("catalog", "targets", "--provider", "aws", "--region", "us-west-2")
    targets = json.loads(result.stdout)
    assert targets and all(t["provider"] == "aws" and t["region"] == "us-west-2" for t in targets)


def test_import_skypilot(run_linkvet: Run, tmp_path: Path) -> None:
    csv = tmp_path / "lambda_gpu.csv"
    csv.write_text(LAMBDA, encoding="utf-8")
    out = tmp_path / "out"
    result = run_linkvet(
        "catalog",
        "import-skypilot",
        str(csv),
        "--out",
        str(out),
        "--name",
        "Lambda",
        "--source",
        "test rows",
        "--as-of",
        "2026-11",
    )
    assert result.returncode == 0, result.stderr
    assert "wrote" in result.stdout and (out / "lambda.toml").is_file()
    validated = run_linkvet("catalog", "validate", str(out))
    assert validated.returncode == 0
    again = run_linkvet("catalog", "import-skypilot", str(csv), "--out", str(out))
    assert again.returncode == 2 and "--force" in again.stderr
    broken = tmp_path / "broken.csv"
    broken.write_text("InstanceType,Region\nx,y\n", encoding="utf-8")
    failed = run_linkvet("catalog", "import-skypilot", str(broken))
    assert failed.returncode == 2 and "broken.csv:1" in failed.stderr and "missing column" in failed.stderr
    no_traceback(failed)


SKYPILOT = REPO / "tests" / "catalogs" / "fixtures" / "skypilot"


def test_import_a_real_catalog_with_its_quirks_and_say_what_was_done(
    run_linkvet: Run, tmp_path: Path
) -> None:
    rows = (SKYPILOT / "vast_vms_extract.csv").read_text(encoding="utf-8").splitlines()
    csv = tmp_path / "vast.csv"
    csv.write_text(
        "\n".join([*rows, rows[3], rows[1].replace("2.65", "0"), rows[2] + ",x"]) + "\n", encoding="utf-8"
    )
    result = run_linkvet(
        "catalog", "import-skypilot", str(csv), "--out", str(tmp_path / "out"), "--as-of", "2026-12"
    )
    assert result.returncode == 0, result.stderr
    no_traceback(result)
    assert (
        "17 rows read: 14 imported (8 corrected against the GPU reference, with a note), 1 skipped as not "
        "understood, 1 duplicates, 1 with price 0 (not offered), 0 without a GPU"
    ) in result.stdout
    assert "skipped: vast.csv:18: 10 cells where the header has 9" in result.stderr
    written = tmp_path / "out" / "vast.toml"
    assert "is the 8 GPUs' total, not per GPU" in written.read_text(encoding="utf-8")
    assert run_linkvet("catalog", "validate", str(written)).returncode == 0
    strict = run_linkvet("catalog", "import-skypilot", str(csv), "--out", str(tmp_path / "s"), "--strict")
    assert strict.returncode == 2 and "vast.csv:18: row cannot be understood" in strict.stderr
    assert not (tmp_path / "s").exists()


def test_import_out_a_file_under_a_file_or_a_full_disk(run_linkvet: Run, tmp_path: Path) -> None:
    csv = SKYPILOT / "lambda_vms_extract.csv"
    plain = tmp_path / "plain.txt"
    plain.write_text("keep me", encoding="utf-8")
    into = run_linkvet("catalog", "import-skypilot", str(csv), "--out", str(plain))
    assert into.returncode == 2 and "exists; use --force" in into.stderr
    under = run_linkvet("catalog", "import-skypilot", str(csv), "--out", str(plain / "sub"))
    assert under.returncode == 2 and f"{plain} is a file, not a folder" in under.stderr
    assert plain.read_text(encoding="utf-8") == "keep me"
    named = run_linkvet("catalog", "import-skypilot", str(csv), "--out", str(tmp_path / "mine.toml"))
    assert named.returncode == 0 and (tmp_path / "mine.toml").is_file()
    for result in (into, under, named):
        no_traceback(result)
    if Path("/dev/full").exists():
        full = run_linkvet("catalog", "import-skypilot", str(csv), "--out", "/dev/full", "--force")
        assert full.returncode == 3 and "/dev/full: cannot write: No space left on device" in full.stderr
        no_traceback(full)


def test_size(run_linkvet: Run) -> None:
    text = run_linkvet("size", "--params", "70e9", "--mode", "full", "--strategy", "zero3")
    assert text.returncode == 0, text.stderr
    assert "Weights alone (bf16): 140.0 GB" in text.stdout
    assert "Model states before sharding: 1,120.0 GB" in text.stdout
    data = json.loads(
        run_linkvet(
            "size",
            "--params",
            "70B",
            "--mode",
            "full",
            "--strategy",
            "zero3",
            "--gpus",
            "32",
            "--tokens-per-step",
            "4194304",
            "--json",
        ).stdout
    )
    assert data["weights_gb"] == 140.0 and data["planned_gpus"] == 32 and data["nodes"] == 4
    assert data["internode_gbit_s"] > 0 and data["gpu"] == "H100 SXM"
    lora = json.loads(
        run_linkvet("size", "--params", "7e9", "--mode", "lora", "--strategy", "dp", "--json").stdout
    )
    assert lora["min_gpus"] == 1
    from_file = run_linkvet("size", "--needs", EXAMPLE, "--gpu", "A100-80GB", "--json")
    assert json.loads(from_file.stdout)["planned_gpus"] == 32


def test_size_rejects_bad_input_plainly(run_linkvet: Run) -> None:
    for args, words in [
        (("size",), "give --params"),
        (("size", "--params", "70"), "70e9"),
        (("size", "--params", "7e9", "--gpu", "H1000"), "unknown GPU model"),
        (("size", "--params", "seventy"), "not a parameter count"),
        (("size", "--params", "7e9", "--tp", "0"), "tensor_parallel"),
    ]:
        result = run_linkvet(*args)
        assert result.returncode == 2, (args, result.stdout)
        assert words in result.stderr, (args, result.stderr)
        no_traceback(result)


def test_score_explains_the_ranking(run_linkvet: Run) -> None:
    result = run_linkvet("score", "--needs", EXAMPLE, "--top", "3")
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("\n#") >= 3 - 1
    # by the worst case: the node whose NVSwitch, 8 × 400G InfiniBand and price a public source states
    assert "#1 coreweave/hgx-h100" in result.stdout
    assert "InfiniBand" in result.stdout and "NVSwitch 900 GB/s" in result.stdout
    # the figure that orders the ranking comes first, in the table and in each explanation
    assert "ranked by its score at worst" in result.stdout and "Ask next:" in result.stdout
    header = next(line for line in result.stdout.splitlines() if line.startswith("#  OFFERING"))
    assert header.index("AT WORST") < header.index("SCORE") < header.index("AT BEST")
    assert "Method: weighted sum. Ordered by the score at worst" in result.stdout
    pcie = next(line for line in result.stdout.splitlines() if line.startswith("First PCIe-only offering: #"))
    assert "— 1 ×" not in pcie and " × " in pcie  # a multi-GPU PCIe node, not a one-GPU node
    assert "Sensitivity:" in result.stdout
    assert "line quality is 'not measured'" in result.stdout


def test_score_with_link_summaries_and_json(run_linkvet: Run, tmp_path: Path) -> None:
    catalogs = tmp_path / "catalogs"
    catalogs.mkdir()
    body = region("los-angeles", '["cn2-gia"]') + offering(
        "h100x8", '["los-angeles"]', gpu='"H100 SXM"', gpus_per_node="8", max_nodes="8"
    )
    (catalogs / "raksmart.toml").write_text(catalog_text("raksmart", body), encoding="utf-8")
    links = tmp_path / "links.json"
    links.write_text(json.dumps([CONTRACT_EXAMPLE]), encoding="utf-8")
    result = run_linkvet(
        "score", "--needs", EXAMPLE, "--links", str(links), "--catalogs", str(catalogs), "--json"
    )
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    (entry,) = data["entries"]
    judged = {j["criterion"]: j for j in entry["judgements"]}
    assert judged["line_quality"]["score"] is not None
    assert "median 152 ms" in judged["line_quality"]["reason"]
    assert "claims CN2 GIA but the route measured as CN2 GT" in judged["line_claim"]["reason"]
    topsis = run_linkvet(
        "score", "--needs", EXAMPLE, "--catalogs", str(catalogs), "--method", "topsis", "--weight", "price=30"
    )
    assert topsis.returncode == 0 and "TOPSIS" in topsis.stdout


def test_score_rejects_bad_input_plainly(run_linkvet: Run, tmp_path: Path) -> None:
    bad_json = tmp_path / "links.json"
    bad_json.write_text("[{", encoding="utf-8")
    wrong_shape = tmp_path / "shape.json"
    wrong_shape.write_text(
        json.dumps([{"provider": "x", "region": "y", "peak": {"loss": 7}}]), encoding="utf-8"
    )
    bad_needs = tmp_path / "needs.toml"
    bad_needs.write_text("format_version = 1\n[model]\nparams = -5\n", encoding="utf-8")
    for args, words in [
        (("score", "--needs", EXAMPLE, "--links", str(bad_json)), "not valid JSON"),
        (("score", "--needs", EXAMPLE, "--links", str(wrong_shape)), "[0].peak.loss"),
        (("score", "--needs", str(bad_needs)), "needs.toml:3: model.params"),
        (("score", "--needs", str(tmp_path / "missing.toml")), "no such file"),
        (("score", "--needs", EXAMPLE, "--weight", "speed=3"), "no weighted criterion 'speed'"),
        (("score", "--needs", EXAMPLE, "--weight", "price"), "ID=NUMBER"),
    ]:
        result = run_linkvet(*args)
        assert result.returncode == 2, (args, result.stdout[-300:])
        assert words in result.stderr, (args, result.stderr)
        no_traceback(result)


def test_size_counts_every_tensor_parallel_shard_on_the_node(run_linkvet: Run) -> None:
    # 70B ZeRO-1 with TP 8 in 8-GPU nodes: 8 shards' ring traffic per node, ≈ 97 Gbit/s (was 12; hand check
    # in tests/catalogs/test_sizing.py::test_inter_node_traffic_counts_every_shard_a_node_holds)
    args = ("size", "--params", "70e9", "--strategy", "zero1", "--tp", "8", "--gpus", "32")
    result = run_linkvet(*args, "--tokens-per-step", "1048576")
    assert result.returncode == 0, result.stderr
    assert "210.0 GB over each node's inter-node links" in result.stdout
    assert "Inter-node bandwidth needed: 97 Gbit/s per node" in result.stdout


def test_size_explains_that_the_documents_4_gpus_for_7b_are_a_throughput_minimum(run_linkvet: Run) -> None:
    text = run_linkvet("size", "--params", "7e9", "--mode", "full", "--strategy", "zero3").stdout
    assert "fits from 2 GPU(s)" in text
    assert "the documents' scale table gives 4–8 GPUs for models up to 13B" in text
    assert "That is a throughput minimum, not a memory one" in text
    data = json.loads(run_linkvet("size", "--params", "7e9", "--strategy", "zero3", "--json").stdout)
    assert "throughput minimum" in data["scale_table_note"]
    seventy = json.loads(run_linkvet("size", "--params", "70e9", "--gpus", "32", "--json").stdout)
    assert seventy["scale_table_note"] is None  # 18 of the table's 8–32: nothing to explain


def test_size_with_cpu_offload_fits_70b_on_8_gpus(run_linkvet: Run) -> None:
    args = ("size", "--params", "70e9", "--strategy", "zero3", "--gpus", "8", "--gpu", "A100 80GB SXM")
    text = run_linkvet(*args, "--offload-optimizer", "cpu").stdout
    assert "planned 8 = 1 node(s) of 8" in text and "Offloaded to host RAM: 980 GB per node" in text
    refused = run_linkvet("size", "--params", "70e9", "--strategy", "dp", "--offload-params", "cpu")
    assert refused.returncode == 2 and "offload_params needs the parameters sharded" in refused.stderr
    no_traceback(refused)


def test_catalog_targets_says_when_a_region_has_no_endpoints(run_linkvet: Run) -> None:
    result = run_linkvet("catalog", "targets", "--provider", "raksmart", "--region", "hong-kong")
    assert result.returncode == 0 and json.loads(result.stdout) == []
    assert "the catalog lists no probe endpoints for raksmart region(s) hong-kong" in result.stderr
    assert "[[regions.endpoints]]" in result.stderr and "raksmart.toml" in result.stderr
    found = run_linkvet("catalog", "targets", "--provider", "aws", "--region", "us-east-1")
    assert found.returncode == 0 and json.loads(found.stdout) and found.stderr == ""
    for args, words in (
        (("--provider", "nosuch"), "no provider 'nosuch' (known: aws"),
        (("--provider", "aws", "--region", "nowhere"), "no region 'nowhere' (known: ap-northeast-1"),
    ):
        refused = run_linkvet("catalog", "targets", *args)
        assert refused.returncode == 2 and words in refused.stderr, refused.stderr
        no_traceback(refused)
