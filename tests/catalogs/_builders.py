"""Small catalogs written as TOML text, for tests."""

from __future__ import annotations

from textwrap import dedent

from catalogs.loader import ProviderCatalog, parse_catalog_text

HEADER = """\
format_version = 1

[provider]
id = "{id}"
name = "{name}"
source = "test fixture"
as_of = "2026-11"
"""


def catalog_text(provider: str = "acme", body: str = "") -> str:
    return HEADER.format(id=provider, name=provider.title()) + dedent(body)


def catalog(provider: str = "acme", body: str = "") -> ProviderCatalog:
    loaded, errors = parse_catalog_text(catalog_text(provider, body))
    assert loaded is not None, [str(e) for e in errors]
    return loaded


def region(region_id: str, line_types: str = "[]", endpoints: str = "") -> str:
    return f"""
[[regions]]
id = "{region_id}"
line_types = {line_types}
source = "test fixture"
as_of = "2026-11"
{endpoints}
"""


def offering(offering_id: str, regions: str, **facts: str) -> str:
    lines = [
        f'[[offerings]]\nid = "{offering_id}"\nregions = {regions}\nsource = "test fixture"\nas_of = "2026-11"'
    ]
    tables: dict[str, list[str]] = {}
    for key, value in facts.items():
        if "__" in key:
            table, field = key.split("__", 1)
            tables.setdefault(table, []).append(f"{field} = {value}")
        else:
            lines.append(f"{key} = {value}")
    for table, fields in tables.items():
        lines.append(f"[offerings.{table}]\n" + "\n".join(fields))
    return "\n" + "\n".join(lines) + "\n"
