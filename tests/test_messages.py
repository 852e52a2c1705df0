"""The gettext catalogs (`probes`, `catalogs`, `desktop` domains; zh_CN) are in step with the code: every
message the code marks has a translation that is not fuzzy and keeps every placeholder, and each compiled
.mo is exactly its .po's compilation; at run time `set_language` switches every domain, and a language
without a catalog reads as English."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import re
import string
import sys

import pytest

from tests.conftest import REPO_ROOT

pytest.importorskip(
    "babel", reason="Babel extracts and compiles the message catalogs (pip install '.[test]')"
)


def _load_script():  # packaging/ is a folder of scripts, not the PyPI `packaging` package
    spec = importlib.util.spec_from_file_location(
        "linkvet_update_messages", REPO_ROOT / "packaging" / "update_messages.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


messages = _load_script()


def placeholders(text: str) -> set[str]:
    return {field for _, field, _, _ in string.Formatter().parse(text) if field is not None}


@pytest.mark.parametrize("domain", messages.DOMAINS)
@pytest.mark.parametrize("language", messages.LANGUAGES)
def test_every_marked_message_is_translated_with_its_placeholders(domain: str, language: str) -> None:
    catalog = messages.read(messages.po_path(domain, language), language, domain)
    problems = []
    for message in messages.extract(domain):
        if not message.id:
            continue
        entry = catalog.get(message.id)
        where = ", ".join(f"{f}:{n}" for f, n in message.locations)
        if entry is None or not entry.string or (isinstance(entry.string, tuple) and not all(entry.string)):
            problems.append(f"{where}: no {language} translation of {message.id!r}")
            continue
        if entry.fuzzy:
            problems.append(f"{where}: the translation of {message.id!r} is fuzzy")
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = entry.string if isinstance(entry.string, tuple) else (entry.string,)
        wanted = set().union(*(placeholders(i) for i in ids))
        for text in strings:
            if placeholders(text) != wanted:
                problems.append(f"{where}: {text!r} has placeholders {placeholders(text)}, expected {wanted}")
    assert not problems, "run `python packaging/update_messages.py` and translate:\n" + "\n".join(problems)


@pytest.mark.parametrize("domain", messages.DOMAINS)
@pytest.mark.parametrize("language", messages.LANGUAGES)
def test_compiled_catalogs_are_fresh(domain: str, language: str) -> None:
    po = messages.po_path(domain, language)
    mo = messages.mo_path(domain, language)
    assert mo.exists(), f"{mo} missing: run `python packaging/update_messages.py`"
    fresh = messages.mo_bytes(messages.read(po, language, domain))
    assert mo.read_bytes() == fresh, f"{mo} is stale: run `python packaging/update_messages.py`"


_CJK = "\u4e00-\u9fff"
# Chinese sentences take full-width punctuation; a placeholder or `code` counts as a word (X) beside them.
_ASCII_PUNCTUATION = re.compile(
    rf"[{_CJK}][,;]|[{_CJK}]:(?!端口)|[,;][{_CJK}]|:(?!端口)[{_CJK}]|\([^()]*[{_CJK}][^()]*\)"
)
# The glossary's words (desktop/locale/glossary.md) for terms whose English is unambiguous.
_GLOSSARY = (
    ("spool", r"\bspool\b", "暂存库"),
    ("the store", r"\bthe store\b|^Store:", "结果库"),
    ("peak hours", r"(?<!-)\bpeak hours?\b", "晚高峰"),
    # a vendor's catalog: 服务商名录 (名录 in compounds), never 目录, which reads as "directory"
    ("catalog", r"(?i)\bcatalogs?\b", "名录"),
)


def _words(text: str) -> str:
    return re.sub(r"\{[^{}]*\}|`[^`]*`", "X", text)


def _wording_problems(messages_: list[tuple[tuple[str, ...], tuple[str, ...]]]) -> list[str]:
    """For (English texts, their Chinese) pairs: ASCII punctuation in Chinese, a glossary term not in its word."""
    problems = []
    for ids, strings in messages_:
        for text in strings:
            if (found := _ASCII_PUNCTUATION.search(_words(text))) is not None:
                problems.append(f"{text!r}: ASCII punctuation in Chinese ({found.group()!r})")
            for term, pattern, word in _GLOSSARY:
                if any(re.search(pattern, _words(i)) for i in ids) and word not in text:
                    problems.append(f"{text!r}: {ids[0]!r} says {term!r}, the glossary's word is {word}")
    return problems


@pytest.mark.parametrize("domain", messages.DOMAINS)
def test_chinese_uses_full_width_punctuation_and_the_glossary(domain: str) -> None:
    catalog = messages.read(messages.po_path(domain, "zh_CN"), "zh_CN", domain)
    pairs = [
        (
            message.id if isinstance(message.id, tuple) else (message.id,),
            message.string if isinstance(message.string, tuple) else (message.string,),
        )
        for message in catalog
        if message.id
    ]
    problems = _wording_problems(pairs)
    assert not problems, "\n".join(problems)


def test_the_window_uses_full_width_punctuation_and_the_glossary() -> None:
    """The same for the window's translations (Qt's .ts file), so that it and the terminal say the same."""
    import xml.etree.ElementTree as ET

    ts = REPO_ROOT / "desktop" / "app" / "translations" / "linkvet_zh_CN.ts"
    pairs = [
        ((message.findtext("source") or "",), ("".join(message.find("translation").itertext()).strip(),))  # type: ignore[union-attr]
        for message in ET.parse(ts).iter("message")
    ]
    problems = _wording_problems(pairs)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("domain", messages.DOMAINS)
def test_set_language_switches_every_domain_and_falls_back_to_english(domain: str) -> None:
    from desktop.i18n import set_language

    module = importlib.import_module(f"{domain}.i18n")
    catalog = messages.read(messages.po_path(domain, "zh_CN"), "zh_CN", domain)
    translated = [(m.id, m.string) for m in catalog if m.id and isinstance(m.id, str) and m.string]
    try:
        set_language("zh_CN")
        assert [module._(msgid) for msgid, _ in translated] == [text for _, text in translated]
        set_language("xx_YY")  # no catalog: English
        assert [module._(msgid) for msgid, _ in translated] == [msgid for msgid, _ in translated]
    finally:
        set_language("en")


@pytest.mark.parametrize("domain", sorted(messages.HAND_KEPT))
@pytest.mark.parametrize("language", messages.LANGUAGES)
def test_hand_kept_catalogs_keep_their_placeholders_and_are_compiled(domain: str, language: str) -> None:
    """argparse's own words (kept by hand, msgids from the standard library): each translation keeps the
    %-placeholders of its msgid, and the .mo is the .po's compilation."""
    import re

    percent = re.compile(r"%(?:\([a-z_]+\))?[a-z]")
    catalog = messages.read(messages.po_path(domain, language), language, domain)
    entries = [m for m in catalog if m.id]
    assert entries
    for entry in entries:
        ids = entry.id if isinstance(entry.id, tuple) else (entry.id,)
        strings = entry.string if isinstance(entry.string, tuple) else (entry.string,)
        assert all(strings) and not entry.fuzzy, entry.id
        wanted = sorted(percent.findall(ids[0]))
        for text in strings:
            assert sorted(percent.findall(text)) == wanted, (entry.id, text)
    mo = messages.mo_path(domain, language)
    assert mo.read_bytes() == messages.mo_bytes(catalog), (
        f"{mo} is stale: run `python packaging/update_messages.py`"
    )


def test_argparse_speaks_the_language_linkvet_speaks() -> None:
    import argparse

    from desktop.cli._argparse_words import install
    from desktop.i18n import language

    install()
    parser = argparse.ArgumentParser(prog="linkvet")
    parser.add_argument("--count", type=int, required=True)
    with language("zh_CN"):
        assert parser.format_usage().startswith("用法：")
    with language("en"):
        assert parser.format_usage().startswith("usage: ")


# -- text that never went through gettext -----------------------------------------------------------------

_ERROR_ROOTS = {"ProbesError", "CatalogError", "UsecaseError", "CliError"}
_LOG_LEVELS = {"info", "warning", "error", "exception", "critical"}
_LOGGERS = {"log", "logger", "logging"}


def _sources() -> list[tuple[str, ast.Module]]:
    return [
        (str(path.relative_to(REPO_ROOT)), ast.parse(path.read_text(encoding="utf-8")))
        for package in ("probes", "catalogs", "desktop")
        for path in sorted((REPO_ROOT / package).rglob("*.py"))
    ]


def _error_classes(sources: list[tuple[str, ast.Module]]) -> set[str]:
    """The names of linkvet's exception classes (every class descending from one of the trees' roots)."""
    bases = {
        node.name: {b.id if isinstance(b, ast.Name) else getattr(b, "attr", "") for b in node.bases}
        for _path, tree in sources
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef)
    }
    found = set(_ERROR_ROOTS)
    while True:
        more = {name for name, parents in bases.items() if parents & found} - found
        if not more:
            return found
        found |= more


def _english(node: ast.expr) -> str | None:
    """The literal text of a str constant or f-string when it holds English words (placeholders, %-formats
    and upper-case names such as NVML do not count), else None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        text = node.value
    elif isinstance(node, ast.JoinedStr):
        text = "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)
    else:
        return None
    words = re.sub(r"%[-#0-9.]*[sdgfr]|\{[^{}]*\}", " ", text)
    return text if re.search(r"[a-z]{2,}", words) else None


def test_every_log_line_and_error_text_goes_through_gettext() -> None:
    """A line the scheduler logs (journalctl is where an office reads it) and the text of every linkvet
    exception are marked for translation: a literal English text there would reach a Chinese user as
    English. Found by reading the source: log calls and `raise` of the project's exception classes whose
    message is a plain string or f-string with words in it."""
    sources = _sources()
    errors = _error_classes(sources)
    found = []
    for path, tree in sources:
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in _LOG_LEVELS
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id in _LOGGERS
                and node.args
                and _english(node.args[0])
            ):
                found.append(f"{path}:{node.lineno}: log.{node.func.attr}({_english(node.args[0])!r})")
            if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and node.exc.args:
                func = node.exc.func
                name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
                if name in errors and _english(node.exc.args[0]):
                    found.append(f"{path}:{node.lineno}: raise {name}({_english(node.exc.args[0])!r})")
    assert not found, "\n".join(found)
