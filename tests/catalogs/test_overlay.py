"""The user's overlays (`catalogs.overlay`, `catalogs.user`): facts merged over a bundled catalog by key, with
their provenance, standing and file; new offerings and providers; problems named by the overlay's line and
key with the loader's own messages; history kept when a value changes; a broken overlay reported and left
out, the catalog still read."""

from __future__ import annotations

from pathlib import Path
from textwrap import dedent

import pytest

from catalogs.overlay import (
    FactKey,
    OverlayFact,
    OverlayFile,
    StoredCheck,
    parse_overlay_text,
    put_checks,
    put_facts,
    render_overlay,
)
from catalogs.user import USER_CATALOG_ENV, load_with_user, user_catalog_dir

HEAD = 'format = "linkvet-catalog-overlay"\nformat_version = 1\nprovider = "{provider}"\n'


def overlay_text(provider: str, *facts: tuple[str, str]) -> str:
    body = "".join(
        f'\n[[facts]]\nkey = "{key}"\nvalue = {value}\nsource = "vendor answer"\nas_of = "2026-12-01"\n'
        for key, value in facts
    )
    return HEAD.format(provider=provider) + body


def write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def test_user_folder_follows_the_environment_else_the_config_directory(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv(USER_CATALOG_ENV, str(tmp_path / "mine"))
    assert user_catalog_dir() == tmp_path / "mine"
    monkeypatch.delenv(USER_CATALOG_ENV)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    assert user_catalog_dir() == tmp_path / "config" / "linkvet" / "catalogs"


def test_facts_merge_over_the_bundled_catalog_with_their_provenance_and_file(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "raksmart.toml",
        overlay_text(
            "raksmart",
            ("offering[high-defence-gpu-server].gpu", '"H100 SXM"'),
            ("offering[high-defence-gpu-server].inter_node.fabric", '"infiniband"'),
            ("offering[high-defence-gpu-server].price.gpu_hour", "2.5"),
            ("offering[high-defence-gpu-server].regions", '["san-jose"]'),
            ("service.delivery_days", "3"),
            ("region[san-jose].endpoints", '[{ kind = "ping", host = "203.0.113.10" }]'),
        ),
    )
    bundled = load_with_user(include_user=False).provider("raksmart")
    merged = load_with_user(user_dir=tmp_path)
    assert merged.ok, [str(e) for e in merged.errors]
    catalog = merged.provider("raksmart")
    assert catalog is not None and bundled is not None
    assert catalog.path == bundled.path and catalog.overlay == path
    offering = catalog.offerings[0]
    assert offering.gpu == "H100 SXM" and offering.regions == ("san-jose",)
    assert offering.inter_node is not None and offering.inter_node.fabric == "infiniband"
    assert offering.prices[0].gpu_hour == 2.5
    provenance = offering.fact("inter_node.fabric")
    assert provenance.source == "vendor answer" and provenance.as_of == "2026-12-01"
    assert provenance.standing == "claimed" and provenance.file == str(path)
    # what the overlay does not say keeps the bundled catalog's own provenance
    assert offering.fact("name").source == bundled.offerings[0].fact("name").source
    assert catalog.service is not None and catalog.service.delivery_days == 3
    assert catalog.service.ddos_protection_gbit_s == 1000  # the bundled claim is still there
    region = catalog.region("san-jose")
    assert region is not None and region.endpoints[0].host == "203.0.113.10"
    assert bundled.offerings[0].gpu is None  # the bundled catalog itself is untouched


def test_an_overlay_can_add_an_offering_or_a_whole_provider(tmp_path: Path) -> None:
    write(tmp_path, "raksmart.toml", overlay_text("raksmart", ("offering[gpu-8x].gpu", '"H200 SXM"')))
    write(
        tmp_path,
        "acme.toml",
        overlay_text(
            "acme",
            ("provider.name", '"Acme GPU"'),
            ("region[fra].city", '"Frankfurt"'),
            ("offering[h100].gpu", '"H100 SXM"'),
            ("offering[h100].regions", '["fra"]'),
        ),
    )
    loaded = load_with_user(user_dir=tmp_path)
    assert loaded.ok, [str(e) for e in loaded.errors]
    assert [o.id for o in loaded.provider("raksmart").offerings] == ["high-defence-gpu-server", "gpu-8x"]  # type: ignore[union-attr]
    acme = loaded.provider("acme")
    assert acme is not None and acme.provider.name == "Acme GPU" and acme.path == tmp_path / "acme.toml"
    assert acme.offerings[0].regions == ("fra",)


def test_problems_name_the_overlay_line_the_key_and_say_what_the_loader_says(tmp_path: Path) -> None:
    text = overlay_text(
        "raksmart",
        ("offering[high-defence-gpu-server].gpus_per_node", '"eight"'),
        ("offering[high-defence-gpu-server].price.gpu_hour", "-2.0"),
        ("offering[high-defence-gpu-server].inter_node.bandwidth_gbit_s", "400"),
    )
    write(tmp_path, "raksmart.toml", text)
    loaded = load_with_user(user_dir=tmp_path)
    problems = {e.field: e for e in loaded.errors}
    assert set(problems) == {
        "offering[high-defence-gpu-server].gpus_per_node",
        "offering[high-defence-gpu-server].price.gpu_hour",
        "offering[high-defence-gpu-server].inter_node.fabric",  # a bandwidth needs the fabric it runs on
    }
    price = problems["offering[high-defence-gpu-server].price.gpu_hour"]
    assert "a price cannot be negative" in price.message and price.expected == "a price greater than 0"
    assert price.path == tmp_path / "raksmart.toml"
    assert price.line == text.splitlines().index("value = -2.0") + 1
    assert problems["offering[high-defence-gpu-server].gpus_per_node"].expected == "a whole number"
    # the provider is still read, without the broken overlay
    raksmart = loaded.provider("raksmart")
    assert raksmart is not None and raksmart.overlay is None and raksmart.offerings[0].gpu is None


def test_a_region_that_is_not_defined_is_refused_as_in_any_catalog(tmp_path: Path) -> None:
    write(
        tmp_path,
        "raksmart.toml",
        overlay_text("raksmart", ("offering[high-defence-gpu-server].regions", '["mars"]')),
    )
    (error,) = load_with_user(user_dir=tmp_path).errors
    assert error.field == "offering[high-defence-gpu-server].regions" and "region 'mars'" in error.message


def test_an_overlay_file_itself_is_checked(tmp_path: Path) -> None:
    overlay, errors = parse_overlay_text(
        HEAD.format(provider="x").replace("format_version = 1", "format_version = 9")
    )
    assert overlay is None and "newer than this linkvet understands" in errors[0].message
    bad_key = overlay_text("x", ("offering.h100.gpu", '"H100"'))
    overlay, errors = parse_overlay_text(bad_key, tmp_path / "x.toml")
    assert overlay is None and errors[0].field == "facts[0].key" and errors[0].line == 6
    assert FactKey.parse("offering[p5.48xlarge].inter_node.fabric") == FactKey(
        "offering", "p5.48xlarge", "inter_node", "fabric"
    )
    assert FactKey.parse("service.delivery_days") == FactKey("service", None, None, "delivery_days")


def test_a_changed_value_keeps_the_earlier_one_and_the_same_fact_again_changes_nothing() -> None:
    first = OverlayFact(key="service.delivery_days", value=5, source="sales", as_of="2026-11-01")
    overlay, changes = put_facts(OverlayFile(provider="acme"), [first])
    assert [c.what for c in changes] == ["added"]
    again, changes = put_facts(overlay, [first])
    assert [c.what for c in changes] == ["unchanged"] and again == overlay
    later = OverlayFact(key="service.delivery_days", value=3, source="sales", as_of="2026-12-01")
    changed, changes = put_facts(overlay, [later], today="2026-12-02")
    assert [(c.what, c.before, c.after) for c in changes] == [("changed", 5, 3)]
    fact = changed.fact("service.delivery_days")
    assert fact is not None and fact.value == 3
    assert [(h.value, h.as_of, h.replaced_on) for h in fact.history] == [(5, "2026-11-01", "2026-12-02")]
    # a verified fact is not replaced by a later claim
    verified = OverlayFact(
        key="offering[x].bmc_ipmi",
        value=True,
        standing="verified",
        source="verified on h",
        as_of="2026-12-01",
    )
    claim = OverlayFact(key="offering[x].bmc_ipmi", value=False, source="sales", as_of="2026-12-05")
    kept, changes = put_facts(put_facts(changed, [verified])[0], [claim])
    assert [c.what for c in changes] == ["kept"] and kept.fact("offering[x].bmc_ipmi").value is True  # type: ignore[union-attr]
    # the file round-trips
    text = render_overlay(kept, "header line")
    assert text.startswith("# header line") and parse_overlay_text(text)[0] == kept


def test_acceptance_checks_are_stored_once() -> None:
    check = StoredCheck(
        offering="x",
        host="h",
        created_at="2026-12-01T00:00:00Z",
        fact="gpu",
        scope="offering",
        verdict="confirmed",
    )
    overlay, added = put_checks(OverlayFile(provider="acme"), [check, check])
    assert added == 1 and len(overlay.checks) == 1
    assert put_checks(overlay, [check])[1] == 0


def test_a_whole_catalog_in_the_user_folder_takes_the_place_of_a_bundled_one(tmp_path: Path) -> None:
    own = dedent(
        """\
        format_version = 1
        [provider]
        id = "raksmart"
        name = "RakSmart (my own notes)"
        source = "my notes"
        as_of = "2026-12"
        """
    )
    write(tmp_path, "mine.toml", own)
    loaded = load_with_user(user_dir=tmp_path)
    catalog = loaded.provider("raksmart")
    assert catalog is not None and catalog.provider.name == "RakSmart (my own notes)"
    assert catalog.path == tmp_path / "mine.toml" and catalog.offerings == ()
    assert [p.provider.id for p in loaded.providers].count("raksmart") == 1
