"""Loading catalogs: the bundled ones load clean; every kind of bad input gets a specific, located error and
the other files still load."""

from __future__ import annotations

from pathlib import Path

import pytest

from catalogs.errors import (
    DanglingReferenceError,
    DuplicateIdError,
    FormatVersionError,
    SchemaError,
    TomlSyntaxError,
    UnknownGpuError,
)
from catalogs.loader import BUNDLED_PROVIDERS_DIR, load_catalogs, parse_catalog_text
from tests.catalogs._builders import catalog_text, offering, region

GOOD = catalog_text("good", region("r1") + offering("o1", '["r1"]', gpu='"H100 SXM"', gpus_per_node="8"))


def errors_of(text: str) -> list:
    loaded, errors = parse_catalog_text(text, Path("test.toml"))
    assert loaded is None
    return errors


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), start=1) if needle in line)


def test_bundled_catalogs_load_without_errors() -> None:
    loaded = load_catalogs()
    assert loaded.errors == ()
    ids = {c.provider.id for c in loaded.providers}
    assert {"raksmart", "aws", "gcp", "lambda", "cudo", "digitalocean", "fluidstack", "paperspace"} <= ids
    assert sum(len(c.offerings) for c in loaded.providers) > 100


def test_every_bundled_fact_has_source_and_as_of() -> None:
    for catalog in load_catalogs().providers:
        for table in (catalog.provider, catalog.service, *catalog.regions, *catalog.offerings):
            if table is not None:
                assert table.source and table.as_of, (catalog.path, table)
        for offering_ in catalog.offerings:
            for sub in (offering_.intra_node, offering_.inter_node, *offering_.prices):
                if sub is not None:
                    assert offering_.fact("prices").source


def test_raksmart_claims_are_marked_as_vendor_claims_and_unknowns_stay_unknown() -> None:
    raksmart = load_catalogs().provider("raksmart")
    assert raksmart is not None and raksmart.service is not None
    assert "vendor claim" in raksmart.service.source
    assert raksmart.service.ddos_protection_gbit_s == 1000
    assert raksmart.service.scale_out is True
    assert raksmart.service.bmc_ipmi is None  # the documents do not say RakSmart has it
    assert all(r.line_types == ("cn2-gia", "bgp") for r in raksmart.regions)
    assert all(r.endpoints == () for r in raksmart.regions)  # no nameable source: left unknown
    (server,) = raksmart.offerings
    assert server.gpu is None and server.prices == () and server.intra_node is None


def test_derived_facts_say_so() -> None:
    lambda_ = load_catalogs().provider("lambda")
    assert lambda_ is not None
    h100 = next(o for o in lambda_.offerings if o.id == "gpu_8x_h100_sxm5")
    assert h100.intra_node is not None and h100.intra_node.kind == "nvlink"
    assert h100.intra_node.bandwidth_gbytes_s == 900
    assert h100.fact("intra_node.kind").derived
    aws = load_catalogs().provider("aws")
    assert aws is not None
    p5 = next(o for o in aws.offerings if o.id == "p5.48xlarge")
    assert p5.intra_node is None and p5.inter_node is None  # no source says: unknown, not false


def test_inline_fact_carries_its_own_provenance() -> None:
    text = catalog_text(
        "acme",
        region("r1")
        + offering("o1", '["r1"]', gpus_per_node='{ value = 8, source = "datasheet", as_of = "2025-03" }'),
    )
    loaded, errors = parse_catalog_text(text)
    assert loaded is not None, errors
    only = loaded.offerings[0]
    assert only.gpus_per_node == 8
    assert only.fact("gpus_per_node").source == "datasheet"
    assert only.fact("gpus_per_node").as_of == "2025-03"
    assert only.fact("gpu").source == "test fixture"


def test_malformed_toml_names_the_line() -> None:
    text = GOOD + "\n[[offerings]\nid = 3\n"
    (error,) = errors_of(text)
    assert isinstance(error, TomlSyntaxError)
    assert error.line == len(text.splitlines()) - 1  # the unclosed [[offerings] header
    assert "(at line" not in error.message
    assert "test.toml" in str(error)


def test_missing_and_newer_format_version() -> None:
    (missing,) = errors_of(GOOD.replace("format_version = 1\n", ""))
    assert isinstance(missing, FormatVersionError) and "format_version = 1" in (missing.expected or "")
    (newer,) = errors_of(GOOD.replace("format_version = 1", "format_version = 7"))
    assert isinstance(newer, FormatVersionError) and "newer" in newer.message


def test_vram_unit_slip_is_rejected_with_what_was_meant() -> None:
    text = catalog_text("acme", region("r1") + offering("o1", '["r1"]', gpu_memory_gb="80000"))
    (error,) = errors_of(text)
    assert isinstance(error, SchemaError)
    assert error.field == "offerings[0].gpu_memory_gb"
    assert error.line == line_of(text, "gpu_memory_gb")
    assert "MiB" in error.message and "≈ 78 GiB" in error.message
    assert error.expected == "GB per GPU, e.g. 80"
    assert "'o1'" in error.message


@pytest.mark.parametrize(
    ("facts", "field", "words"),
    [
        ({"ram_gib": "2097152"}, "offerings[0].ram_gib", "MiB"),
        ({"gpus_per_node": "512"}, "offerings[0].gpus_per_node", "cluster total"),
        ({"gpus_per_node": "0"}, "offerings[0].gpus_per_node", "at least one GPU"),
        (
            {"inter_node__fabric": '"infiniband"', "inter_node__bandwidth_gbit_s": "400000"},
            "offerings[0].inter_node.bandwidth_gbit_s",
            "Mbit/s",
        ),
        (
            {"intra_node__kind": '"nvlink"', "intra_node__bandwidth_gbytes_s": "900000"},
            "offerings[0].intra_node.bandwidth_gbytes_s",
            "MB/s",
        ),
        ({"storage__local_nvme_tb": "30720"}, "offerings[0].storage.local_nvme_tb", "in GB"),
        ({"prices": "[{ gpu_hour = 2500 }]"}, "offerings[0].prices[0]", "monthly"),
        ({"prices": "[{ gpu_hour = -1 }]"}, "offerings[0].prices[0].gpu_hour", "negative"),
        ({"prices": "[{ gpu_hour = 0 }]"}, "offerings[0].prices[0].gpu_hour", "a price of 0 is not a price"),
        ({"prices": "[{ node_hour = 0.0 }]"}, "offerings[0].prices[0].node_hour", "greater than 0"),
        ({"prices": "[{ node_month = 0 }]"}, "offerings[0].prices[0].node_month", "free offering"),
        ({"prices": '[{ currency = "USD" }]'}, "offerings[0].prices[0]", "needs gpu_hour"),
        ({"intra_node__kind": '"nvlinc"'}, "offerings[0].intra_node.kind", "nvswitch"),
        ({"gpu_memory_gb": '"eighty"'}, "offerings[0].gpu_memory_gb", "number"),
        ({"gpu_memory_gb": "nan"}, "offerings[0].gpu_memory_gb", "finite"),
        ({"gpu_memory_gb": "-80"}, "offerings[0].gpu_memory_gb", "greater than 0"),
        ({"cooling": '"water"'}, "offerings[0].cooling", "liquid"),
        ({"gpu_memroy_gb": "80"}, "offerings[0].gpu_memroy_gb", "did you mean 'gpu_memory_gb'"),
        ({"as_of": '"2026-13"'}, "offerings[0].as_of", "not a real date"),
        ({"as_of": '"2099-01-01"'}, "offerings[0].as_of", "future"),
    ],
)
def test_bad_offering_fields(facts: dict[str, str], field: str, words: str) -> None:
    body = region("r1") + offering("o1", '["r1"]', **facts)
    if "as_of" in facts:  # replace the fixture's own as_of
        body = body.replace('as_of = "2026-11"\n' + "as_of", "as_of", 1)
        body = body.replace(
            f'regions = ["r1"]\nsource = "test fixture"\nas_of = "2026-11"\nas_of = {facts["as_of"]}',
            f'regions = ["r1"]\nsource = "test fixture"\nas_of = {facts["as_of"]}',
        )
    errors = errors_of(catalog_text("acme", body))
    matching = [e for e in errors if e.field == field]
    assert matching, [str(e) for e in errors]
    text = str(matching[0])
    assert words in text, text
    assert matching[0].line is not None


def test_service_sla_fraction_and_provider_slug() -> None:
    text = catalog_text("acme", '\n[service]\nsla_uptime_percent = 0.999\nsource = "s"\nas_of = "2026"\n')
    (error,) = errors_of(text)
    assert error.field == "service.sla_uptime_percent" and "99.9" in error.message
    errors = errors_of(GOOD.replace('id = "good"', 'id = "Bad Id!"'))
    assert errors[0].field == "provider.id"


def test_duplicate_ids_and_dangling_regions_and_unknown_gpu() -> None:
    body = (
        region("r1")
        + region("r1")
        + offering("o1", '["r1", "nowhere"]', gpu='"H1000"')
        + offering("o1", '["r1"]', prices='[{ region = "r2", gpu_hour = 2.0 }]')
    )
    text = catalog_text("acme", body)
    errors = errors_of(text)
    kinds = {type(e) for e in errors}
    assert kinds == {DuplicateIdError, DanglingReferenceError, UnknownGpuError}
    dangling = next(e for e in errors if isinstance(e, DanglingReferenceError) and "nowhere" in e.message)
    assert dangling.line == line_of(text, '"nowhere"')
    assert "r1" in (dangling.expected or "")
    unknown = next(e for e in errors if isinstance(e, UnknownGpuError))
    assert "H100 SXM" in (unknown.expected or "") and unknown.line == line_of(text, "H1000")
    duplicate_region = next(e for e in errors if isinstance(e, DuplicateIdError) and "region" in e.message)
    assert duplicate_region.field == "regions[1].id"


def test_a_broken_file_is_reported_and_the_others_still_load(tmp_path: Path) -> None:
    (tmp_path / "a-good.toml").write_text(GOOD, encoding="utf-8")
    (tmp_path / "b-broken.toml").write_text(
        GOOD.replace('id = "good"', 'id = "other"') + "x = [", encoding="utf-8"
    )
    (tmp_path / "c-binary.toml").write_bytes(b"\xff\xfe\x00garbage\x00")
    (tmp_path / "d-dupe.toml").write_text(GOOD, encoding="utf-8")
    (tmp_path / "e-empty.toml").write_text("", encoding="utf-8")
    (tmp_path / "notes.txt").write_text("not a catalog", encoding="utf-8")
    loaded = load_catalogs(tmp_path)
    assert [c.provider.id for c in loaded.providers] == ["good"]
    by_file = {e.path.name: e for e in loaded.errors if e.path}
    assert set(by_file) == {"b-broken.toml", "c-binary.toml", "d-dupe.toml", "e-empty.toml"}
    assert isinstance(by_file["b-broken.toml"], TomlSyntaxError)
    assert "UTF-8" in by_file["c-binary.toml"].message
    assert (
        isinstance(by_file["d-dupe.toml"], DuplicateIdError)
        and "a-good.toml" in by_file["d-dupe.toml"].message
    )
    assert isinstance(by_file["e-empty.toml"], FormatVersionError)


def test_hostile_shapes_do_not_crash() -> None:
    for text in [
        "format_version = 1\nprovider = 3\n",
        "format_version = 1\nprovider = []\n",
        'format_version = "1"\n',
        "format_version = true\n",
        "format_version = 1\n[provider]\nid = 'x'\nname = 'x'\nsource = 's'\nas_of = 2026-01-01T00:00:00Z\n"
        "[[offerings]]\nid = 'o'\nsource = 's'\nas_of = '2026'\nregions = 5\n",
        "format_version = 1\n" + "[a]\n" * 3,
        "format_version = 1\n[provider]\n" + "x" * 100_000 + " = 1\n",
    ]:
        loaded, errors = parse_catalog_text(text, Path("hostile.toml"))
        assert loaded is None and errors
        for error in errors:
            assert "hostile.toml" in str(error)


def test_bundled_dir_constant_points_at_the_package_data() -> None:
    assert (BUNDLED_PROVIDERS_DIR / "raksmart.toml").is_file()
