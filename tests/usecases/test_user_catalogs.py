"""The Qt-free editing use-cases the Catalog screen's forms call (`desktop.usecases.user_catalogs`): every
field the loader knows, validated as typed with the loader's rules, saved into the user's overlay; new
offerings, copies of bundled ones, deletion of one's own only; writes are atomic and a failed write says
why."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from desktop.usecases.errors import InputError, WriteError
from desktop.usecases.offerings import load_catalog_set
from desktop.usecases.user_catalogs import (
    OfferingInvalid,
    check_new_offering,
    check_offering,
    copy_offering,
    create_offering,
    delete_offering,
    is_user_offering,
    offering_fields,
    offering_values,
    own_fields,
    save_offering,
    user_offerings,
    write_overlay,
)


@pytest.fixture
def user_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "mine"
    monkeypatch.setenv("LINKVET_CATALOG_DIR", str(folder))
    return folder


def test_the_form_covers_the_loader_fields_with_their_kinds_and_current_values(user_dir: Path) -> None:
    catalogs = load_catalog_set()
    lambda_ = catalogs.provider("lambda")
    assert lambda_ is not None
    fields = {q.path: q for q in offering_fields(lambda_)}
    assert {
        "gpu",
        "gpus_per_node",
        "intra_node.kind",
        "inter_node.bandwidth_gbit_s",
        "price.gpu_hour",
        "cooling",
    } <= set(fields)
    assert fields["intra_node.kind"].allowed == ("nvswitch", "nvlink", "pcie", "xgmi")
    assert (fields["gpus_per_node"].minimum, fields["gpus_per_node"].maximum) == (1, 72)
    values = offering_values(lambda_, "1-click-cluster-h100-sxm")
    kind, provenance = values["inter_node.fabric"]
    assert kind == "infiniband" and provenance is not None and "KalarisLabs" in (provenance.source or "")
    assert values["cooling"] == (None, None)


def test_values_are_checked_field_by_field_with_the_loader_messages(user_dir: Path) -> None:
    catalogs = load_catalog_set()
    problems = check_offering(
        catalogs,
        "raksmart",
        "high-defence-gpu-server",
        {"gpus_per_node": "eight", "price.gpu_hour": -1, "gpu_memory_gb": 80_000, "warp": 1},
        "my notes",
    )
    assert [p.field for p in problems] == ["warp"]  # an unknown field first: nothing else is checked
    problems = check_offering(
        catalogs,
        "raksmart",
        "high-defence-gpu-server",
        {"gpus_per_node": "eight", "price.gpu_hour": -1, "gpu_memory_gb": 80_000},
        "my notes",
    )
    by = {p.field: p for p in problems}
    assert set(by) == {"gpus_per_node", "price.gpu_hour", "gpu_memory_gb"}
    assert by["gpus_per_node"].expected == "a whole number" and by["gpus_per_node"].given == "eight"
    assert "a price cannot be negative" in by["price.gpu_hour"].message
    assert "is it in MB or MiB" in by["gpu_memory_gb"].message  # the loader's unit-slip hint
    assert not user_dir.exists()  # checking writes nothing


def test_save_create_copy_and_delete(user_dir: Path) -> None:
    catalogs = load_catalog_set()
    path = save_offering(
        catalogs,
        "raksmart",
        "high-defence-gpu-server",
        {"gpu": "H100 SXM", "gpus_per_node": 8, "cooling": "liquid"},
        "RakSmart sales call",
        "2026-12-02",
    )
    assert path == user_dir / "raksmart.overlay.toml"
    catalogs = load_catalog_set()
    offering = catalogs.provider("raksmart").offerings[0]  # type: ignore[union-attr]
    assert (offering.gpu, offering.gpus_per_node, offering.cooling) == ("H100 SXM", 8, "liquid")
    assert offering.fact("cooling").source == "RakSmart sales call"
    with pytest.raises(OfferingInvalid) as raised:
        save_offering(catalogs, "raksmart", "high-defence-gpu-server", {"cooling": "water"}, "x")
    assert raised.value.problems[0].field == "cooling"
    # a new offering of one's own, deleted again
    create_offering(catalogs, "raksmart", "gpu-b200", {"gpu": "B200", "gpus_per_node": 8}, "quote 2026-12")
    catalogs = load_catalog_set()
    assert is_user_offering(catalogs, "raksmart", "gpu-b200")
    assert not is_user_offering(catalogs, "raksmart", "high-defence-gpu-server")
    with pytest.raises(InputError, match="already has an offering gpu-b200"):
        create_offering(catalogs, "raksmart", "gpu-b200", {"gpu": "B200"}, "x")
    with pytest.raises(InputError, match="copy it to your catalogs"):
        delete_offering(catalogs, "raksmart", "high-defence-gpu-server")
    delete_offering(catalogs, "raksmart", "gpu-b200")
    assert [o.id for o in load_catalog_set().provider("raksmart").offerings] == ["high-defence-gpu-server"]  # type: ignore[union-attr]
    # a bundled offering copied into one's catalogs, each fact keeping its source
    copy_offering(load_catalog_set(), "lambda", "1-click-cluster-h100-sxm", "my-1cc")
    copied = next(o for o in load_catalog_set().provider("lambda").offerings if o.id == "my-1cc")  # type: ignore[union-attr]
    assert (
        copied.gpu == "H100 SXM"
        and copied.inter_node is not None
        and copied.inter_node.fabric == "infiniband"
    )
    assert "copied from lambda/1-click-cluster-h100-sxm" in (copied.fact("inter_node.fabric").source or "")
    assert "KalarisLabs" in (copied.fact("inter_node.fabric").source or "")
    # one that states none of the form's facts is copied too (under its name), and can be deleted
    copy_offering(load_catalog_set(), "raksmart", "high-defence-gpu-server", "hd-mine")
    catalogs = load_catalog_set()
    mine = next(o for o in catalogs.provider("raksmart").offerings if o.id == "hd-mine")  # type: ignore[union-attr]
    assert mine.name == "High-defence GPU server (高防GPU服务器) (my copy)"
    assert is_user_offering(catalogs, "raksmart", "hd-mine")


def test_the_id_the_source_and_the_date_are_each_reported_once_under_their_own_field(user_dir: Path) -> None:
    """The form puts these next to the offering id, the source and the date fields, not on every value."""
    catalogs = load_catalog_set()
    values = {"gpu": "H100 SXM", "cooling": "air", "gpus_per_node": 8}
    (problem,) = check_offering(catalogs, "raksmart", "Bad id!", values, "my notes")
    assert (problem.field, problem.given) == ("id", "Bad id!") and "not an offering id" in problem.message
    (problem,) = check_offering(catalogs, "raksmart", "gpu-b200", values, "")
    assert problem.field == "source" and problem.expected == "a source"
    (problem,) = check_offering(catalogs, "raksmart", "gpu-b200", values, "quote", "2026-13")
    assert (problem.field, problem.given) == ("as_of", "2026-13") and "not a real date" in problem.message
    assert problem.expected == "YYYY, YYYY-MM or YYYY-MM-DD"
    assert check_offering(catalogs, "raksmart", "gpu-b200", values, "quote", "2026-12") == []


def test_a_new_offering_needs_a_free_id_and_a_fact(user_dir: Path) -> None:
    catalogs = load_catalog_set()
    (taken,) = check_new_offering(catalogs, "raksmart", "high-defence-gpu-server", {"gpu": "B200"}, "quote")
    assert taken.field == "id" and "already has an offering high-defence-gpu-server" in taken.message
    (no_id,) = check_new_offering(catalogs, "raksmart", "", {}, "quote")
    assert no_id.field == "id" and "not an offering id" in no_id.message  # before any value is typed
    (empty,) = check_new_offering(catalogs, "raksmart", "gpu-b200", {"gpu": "", "cooling": None}, "quote")
    assert empty.field == "" and "at least one fact" in empty.message
    (negative,) = check_new_offering(
        catalogs, "raksmart", "gpu-b200", {"gpu": "B200", "price.gpu_hour": "-2"}, "quote"
    )
    assert negative.field == "price.gpu_hour" and "cannot be negative" in negative.message
    assert check_new_offering(catalogs, "raksmart", "gpu-b200", {"gpu": "B200"}, "quote") == []
    assert not user_dir.exists()


def test_user_offerings_are_those_only_the_users_catalogs_have(user_dir: Path) -> None:
    assert user_offerings(load_catalog_set()) == set()
    save_offering(load_catalog_set(), "raksmart", "high-defence-gpu-server", {"cooling": "air"}, "call")
    create_offering(load_catalog_set(), "raksmart", "gpu-b200", {"gpu": "B200"}, "quote")
    copy_offering(load_catalog_set(), "lambda", "1-click-cluster-h100-sxm", "my-1cc")
    catalogs = load_catalog_set()
    assert user_offerings(catalogs) == {("raksmart", "gpu-b200"), ("lambda", "my-1cc")}
    assert all(is_user_offering(catalogs, p, o) for p, o in user_offerings(catalogs))


def test_a_write_that_fails_says_why_and_leaves_the_old_file_whole(user_dir: Path, tmp_path: Path) -> None:
    from catalogs.overlay import OverlayFile

    save_offering(load_catalog_set(), "raksmart", "high-defence-gpu-server", {"gpu": "H100 SXM"}, "call")
    before = (user_dir / "raksmart.overlay.toml").read_text(encoding="utf-8")
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where a folder should be", encoding="utf-8")
    with pytest.raises(WriteError, match="cannot write"):
        write_overlay(OverlayFile(provider="raksmart"), blocked / "sub")
    full = Path("/dev/full")
    if full.exists():
        with pytest.raises(WriteError):
            write_overlay(OverlayFile(provider="raksmart"), full)
    assert (user_dir / "raksmart.overlay.toml").read_text(encoding="utf-8") == before
    assert not list(user_dir.glob(".*.tmp"))


ANY_CELL = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**12), max_value=10**12),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=60),
    st.dates().map(lambda d: d.isoformat()),
)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_any_value_in_any_field_is_accepted_or_refused_with_a_field_problem(
    user_dir: Path, data: st.DataObject
) -> None:
    """Issue 12: every parser of untrusted input either parses or says where and why; never anything else."""
    catalogs = load_catalog_set()
    fields = [q.path for q in offering_fields(catalogs.provider("raksmart"))]
    values = data.draw(st.dictionaries(st.sampled_from(fields), ANY_CELL, max_size=6))
    problems = check_offering(catalogs, "raksmart", "high-defence-gpu-server", values, "fuzz")
    for problem in problems:
        assert problem.field in fields or problem.field.split(".")[0] in {f.split(".")[0] for f in fields}
        assert problem.message
    assert not user_dir.exists()


def test_a_fact_of_ones_own_is_taken_out_again_and_only_ones_own(user_dir: Path) -> None:
    save_offering(
        load_catalog_set(),
        "raksmart",
        "high-defence-gpu-server",
        {"gpu": "H100 SXM", "cooling": "air"},
        "quote",
    )
    catalog = load_catalog_set().provider("raksmart")
    assert catalog is not None and own_fields(catalog, "high-defence-gpu-server") == {"gpu", "cooling"}
    lambda_catalog = load_catalog_set().provider("lambda")
    assert lambda_catalog is not None and own_fields(lambda_catalog, "1-click-cluster-h100-sxm") == set()
    # taken out with no new value and no source: nothing else changes
    save_offering(load_catalog_set(), "raksmart", "high-defence-gpu-server", {}, "", forget={"cooling"})
    offering = load_catalog_set().provider("raksmart").offerings[0]  # type: ignore[union-attr]
    assert offering.cooling is None and offering.gpu == "H100 SXM"
    # a removal the loader's rules refuse is refused as a value would be, and nothing is written
    save_offering(
        load_catalog_set(),
        "raksmart",
        "high-defence-gpu-server",
        {"inter_node.fabric": "infiniband", "inter_node.bandwidth_gbit_s": 400},
        "quote",
    )
    before = (user_dir / "raksmart.overlay.toml").read_bytes()
    with pytest.raises(OfferingInvalid) as raised:
        save_offering(
            load_catalog_set(), "raksmart", "high-defence-gpu-server", {}, "", forget={"inter_node.fabric"}
        )
    assert raised.value.problems[0].field.startswith("inter_node")
    assert (user_dir / "raksmart.overlay.toml").read_bytes() == before
