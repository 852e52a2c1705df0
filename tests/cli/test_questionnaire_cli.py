"""`linkvet questionnaire export|import` and `linkvet catalog show` as a user runs them (subprocesses of this
checkout): exit codes, messages, and that each fact's source and file are visible in `catalog list` and
`catalog show`."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from subprocess import CompletedProcess

from catalogs.needs import EXAMPLE_NEEDS
from tests.usecases.test_questionnaire import OFFERING, answer_everything

Run = Callable[..., CompletedProcess[str]]


def test_export_answer_import_list_and_show(run_linkvet: Run, tmp_path: Path) -> None:
    out = tmp_path / "raksmart.xlsx"
    exported = run_linkvet(
        "questionnaire", "export", "--provider", "raksmart", "--needs", str(EXAMPLE_NEEDS), "--out", str(out)
    )
    assert exported.returncode == 0, exported.stderr
    assert f"questions about raksmart ({OFFERING})" in exported.stdout
    again = run_linkvet("questionnaire", "export", "--provider", "raksmart", "--out", str(out))
    assert again.returncode == 2 and "use --force" in again.stderr
    answered = tmp_path / "answered.xlsx"
    answer_everything(out, answered)
    imported = run_linkvet(
        "questionnaire", "import", str(answered), "--provider", "raksmart", "--source", "Li Wei (sales)"
    )
    assert imported.returncode == 0, imported.stderr
    assert "facts added" in imported.stdout and "written to" in imported.stdout
    user = Path(os.environ["LINKVET_CATALOG_DIR"])
    assert (user / "raksmart.overlay.toml").exists()
    listed = run_linkvet("catalog", "list", "--provider", "raksmart", "--json")
    row = json.loads(listed.stdout)[0]
    assert row["overlay"] == str(user / "raksmart.overlay.toml")
    assert row["fact_sources"]["offering.gpu"]["source"].endswith("(Li Wei (sales); answered.xlsx)")
    table = run_linkvet("catalog", "list", "--provider", "raksmart")
    assert f"+ {user / 'raksmart.overlay.toml'}" in table.stdout
    shown = run_linkvet("catalog", "show", "raksmart", OFFERING)
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    gpu = lines.index(f"offering[{OFFERING}].gpu = H100 SXM")
    assert "Li Wei (sales)" in lines[gpu + 1] and str(user / "raksmart.overlay.toml") in lines[gpu + 1]
    name = next(i for i, line in enumerate(lines) if line.startswith(f"offering[{OFFERING}].name = "))
    assert lines[name + 1].endswith("catalogs/providers/raksmart.toml")
    without = run_linkvet("catalog", "list", "--provider", "raksmart", "--json", "--no-user-catalogs")
    assert json.loads(without.stdout)[0].get("gpu") is None


def test_bad_answers_exit_2_and_write_nothing(run_linkvet: Run, tmp_path: Path) -> None:
    out = tmp_path / "raksmart.xlsx"
    assert run_linkvet("questionnaire", "export", "--provider", "raksmart", "--out", str(out)).returncode == 0
    answered = tmp_path / "bad.xlsx"
    answer_everything(out, answered, {f"offering[{OFFERING}].gpus_per_node": "eight"})
    result = run_linkvet("questionnaire", "import", str(answered), "--provider", "raksmart")
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert "Offerings, row " in result.stderr and f"offering[{OFFERING}].gpus_per_node" in result.stderr
    assert "given 'eight', expected a whole number" in result.stderr
    assert not (Path(os.environ["LINKVET_CATALOG_DIR"]) / "raksmart.overlay.toml").exists()
    skipped = run_linkvet(
        "questionnaire", "import", str(answered), "--provider", "raksmart", "--skip-invalid"
    )
    assert skipped.returncode == 0 and "skipped: Offerings, row" in skipped.stderr
    unknown = run_linkvet("questionnaire", "export", "--provider", "nope", "--out", str(tmp_path / "n.xlsx"))
    assert unknown.returncode == 2 and "no provider nope" in unknown.stderr
    missing = run_linkvet("questionnaire", "import", str(tmp_path / "none.xlsx"), "--provider", "raksmart")
    assert missing.returncode == 2 and "no such file" in missing.stderr


def test_skip_invalid_skips_the_answers_a_refused_one_leaves_without_ground(
    run_linkvet: Run, tmp_path: Path
) -> None:
    """`--skip-invalid` with the inter-node fabric refused: the other inter-node answers need it (the
    offering has no inter-node table in the catalog), so they are skipped too, each naming the fabric's row,
    and the rest is written (it used to refuse everything, exit 2)."""
    out = tmp_path / "raksmart.xlsx"
    assert run_linkvet("questionnaire", "export", "--provider", "raksmart", "--out", str(out)).returncode == 0
    answered = tmp_path / "fabric.xlsx"
    fabric = f"offering[{OFFERING}].inter_node.fabric"
    answer_everything(out, answered, {fabric: "nvswitch"})
    result = run_linkvet("questionnaire", "import", str(answered), "--provider", "raksmart", "--skip-invalid")
    assert result.returncode == 0, result.stderr
    assert "written to" in result.stdout and "Traceback" not in result.stderr
    skipped = [line for line in result.stderr.splitlines() if line.startswith("skipped: ")]
    refused = next(line for line in skipped if f", {fabric}: not one of the values" in line)
    where = refused.removeprefix("skipped: ").split(f", {fabric}")[0]  # "Offerings, row N"
    needing = [line for line in skipped if "not written" in line]
    assert len(needing) >= 3 and len(skipped) == len(needing) + 1
    assert all(
        ".inter_node." in line and f"{fabric} ({where}), which was refused" in line for line in needing
    )
    overlay = (Path(os.environ["LINKVET_CATALOG_DIR"]) / "raksmart.overlay.toml").read_text(encoding="utf-8")
    assert "inter_node" not in overlay and f"offering[{OFFERING}].gpu" in overlay
