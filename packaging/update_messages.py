"""Keep the gettext catalogs of `probes`, `catalogs` and `desktop` in step with the code.

    python packaging/update_messages.py            # extract, merge into each zh_CN .po, compile the .mo
    python packaging/update_messages.py --check    # change nothing; exit 1 naming what is out of step

Extraction is Babel's (the `_`, `N_` and `ngettext` calls of each package's modules, and the titles and
descriptions of the bundled checklist, `catalogs/checklist.toml`); new messages arrive in the
.po untranslated, changed ones fuzzy — translate them (the glossary beside the translations,
`desktop/locale/glossary.md`, keeps the words the same everywhere), then run this again to compile.
`tests/test_messages.py` fails while a message lacks a translation, a translation is fuzzy or drops a
placeholder, or a compiled catalog is stale.

One catalog is kept by hand and only compiled here: `desktop/locale/<lang>/LC_MESSAGES/argparse.po`, argparse's
own words ("usage:", "the following arguments are required: %s"), whose msgids are the standard library's
(`desktop/cli/_argparse_words.py` says how the CLI uses them).
"""

from __future__ import annotations

import argparse
import io
import re
import sys
import tomllib
from collections.abc import Collection, Iterator, Mapping
from datetime import UTC, datetime
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

REPO_ROOT = Path(__file__).resolve().parent.parent
DOMAINS = ("probes", "catalogs", "desktop")
LANGUAGES = ("zh_CN",)
# Catalogs kept by hand (no extraction: the messages are another program's), by domain: the package they
# ship in.
HAND_KEPT = {"argparse": "desktop"}
# N_: marked where defined, translated where shown; npgettext: a context tells apart two messages of one text
# (the header "GPU" and the unit "GPU"/"GPUs" of a count, a measure word in Chinese).
KEYWORDS = {"_": None, "N_": None, "ngettext": (1, 2), "npgettext": ((1, "c"), 2, 3)}
_CHECKLIST_TEXT = re.compile(r"^\s*(title|what)\s*=")
# A fixed date, so that running this twice writes the same bytes.
_DATE = datetime(2026, 12, 1, tzinfo=UTC)


def po_path(domain: str, language: str) -> Path:
    package = HAND_KEPT.get(domain, domain)
    return REPO_ROOT / package / "locale" / language / "LC_MESSAGES" / f"{domain}.po"


def mo_path(domain: str, language: str) -> Path:
    return po_path(domain, language).with_suffix(".mo")


def extract_checklist(
    fileobj: io.BufferedIOBase,
    keywords: Mapping[str, object],
    comment_tags: Collection[str],
    options: Mapping[str, object],
) -> Iterator[tuple[int, str, str, list[str]]]:
    """Babel extraction method for `checklist.toml`: each criterion's `title` and `what`, which the faces
    show through `catalogs.i18n._` (one TOML line each)."""
    for lineno, line in enumerate(fileobj.read().decode("utf-8").splitlines(), start=1):
        if _CHECKLIST_TEXT.match(line):
            (value,) = tomllib.loads(line).values()
            yield lineno, "_", str(value), []


def extract(domain: str) -> Catalog:
    """Every message the package's code marks, with where it is used."""
    template = Catalog(project="linkvet", domain=domain, creation_date=_DATE, fuzzy=False)
    for filename, lineno, message, comments, context in extract_from_dir(
        REPO_ROOT / domain,
        method_map=[("**.py", "python"), ("checklist.toml", extract_checklist)],
        keywords=KEYWORDS,
        comment_tags=("TRANSLATORS:",),
        strip_comment_tags=True,
    ):
        template.add(
            message,
            None,
            [(f"{domain}/{filename}", lineno)],
            auto_comments=comments,
            context=context,
            flags=("python-brace-format",) if "{" in str(message) else (),
        )
    return template


def read(path: Path, language: str, domain: str) -> Catalog:
    if not path.exists():
        return Catalog(locale=language, domain=domain, project="linkvet", creation_date=_DATE, fuzzy=False)
    with path.open("rb") as handle:
        return read_po(handle, locale=language, domain=domain)


def po_bytes(catalog: Catalog) -> bytes:
    catalog.revision_date = _DATE
    catalog.creation_date = _DATE
    out = io.BytesIO()
    write_po(out, catalog, width=110, sort_output=False, include_previous=False, ignore_obsolete=True)
    return out.getvalue()


def mo_bytes(catalog: Catalog) -> bytes:
    out = io.BytesIO()
    write_mo(out, catalog, use_fuzzy=False)
    return out.getvalue()


def updated(domain: str, language: str) -> Catalog:
    """The language's catalog merged with what the code marks now."""
    catalog = read(po_path(domain, language), language, domain)
    catalog.update(extract(domain), update_header_comment=False, no_fuzzy_matching=False)
    return catalog


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if out of step")
    args = parser.parse_args(argv)
    stale: list[str] = []
    for domain in DOMAINS:
        for language in LANGUAGES:
            catalog = updated(domain, language)
            for path, data in ((po_path(domain, language), po_bytes(catalog)),):
                if not path.exists() or path.read_bytes() != data:
                    stale.append(str(path.relative_to(REPO_ROOT)))
                    if not args.check:
                        path.parent.mkdir(parents=True, exist_ok=True)
                        path.write_bytes(data)
            # Compile what the .po now holds (reread, so the .mo is exactly the file's compilation).
            compiled = mo_bytes(read(po_path(domain, language), language, domain)) if not args.check else None
            mo = mo_path(domain, language)
            if compiled is not None and (not mo.exists() or mo.read_bytes() != compiled):
                mo.write_bytes(compiled)
                stale.append(str(mo.relative_to(REPO_ROOT)))
            untranslated = sum(1 for m in catalog if m.id and (not m.string or m.fuzzy))
            if untranslated:
                print(f"{po_path(domain, language).relative_to(REPO_ROOT)}: {untranslated} to translate")
    for domain in HAND_KEPT:
        for language in LANGUAGES:
            catalog = read(po_path(domain, language), language, domain)
            compiled = mo_bytes(catalog)
            mo = mo_path(domain, language)
            if not mo.exists() or mo.read_bytes() != compiled:
                stale.append(str(mo.relative_to(REPO_ROOT)))
                if not args.check:
                    mo.write_bytes(compiled)
    if stale:
        print(("out of step: " if args.check else "written: ") + ", ".join(stale))
    return 1 if (stale and args.check) else 0


if __name__ == "__main__":
    sys.exit(main())
