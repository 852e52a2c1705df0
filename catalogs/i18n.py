"""Messages for people, in their language: the gettext domain `catalogs` (compiled catalogs in
`catalogs/locale/<lang>/LC_MESSAGES/catalogs.mo`, kept by `python packaging/update_messages.py`).

Write every sentence a person reads as one message with named placeholders, never glued from fragments:

    from catalogs.i18n import _, ngettext
    raise SchemaError(_("{file}, line {line}: `{field}` must be a number of GB, not {value!r}").format(...))
    ngettext("{n} trace", "{n} traces", n).format(n=n)

Machine-readable output (JSON keys, enumerated values such as `cn2-gia`) is never translated.

The language follows gettext's environment (LANGUAGE, LC_ALL, LC_MESSAGES, LANG) until `set_language` picks
one (the CLI's `--lang`, the window's language switch, through `desktop.i18n.set_language`); a language with
no catalog falls back to English. `probes.i18n` and `desktop.i18n` are the same for their own domains
(three small copies because `probes` and `catalogs` may not import each other).

`N_("…")` marks text that is translated later, where it is shown (`_(text)` then); `per_language` is an
`lru_cache` emptied whenever the language changes, for cached results that hold words (a sizing's
assumptions). The checklist's titles and descriptions (`checklist.toml`) are messages of this domain too:
`packaging/update_messages.py` extracts them from the bundled file.
"""

from __future__ import annotations

import functools
import gettext
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

DOMAIN = "catalogs"
LOCALE_DIR = Path(__file__).resolve().parent / "locale"

_translation: gettext.NullTranslations = gettext.translation(DOMAIN, LOCALE_DIR, fallback=True)
_caches: list[Callable[[], None]] = []  # `cache_clear` of every `per_language` cache
_switches = 0  # how many times `set_language` has run (`language_key`)

F = TypeVar("F", bound=Callable[..., Any])


def set_language(language: str | None) -> None:
    """Use `language` (e.g. "zh_CN", "en"); None: follow the environment again."""
    global _translation, _switches
    languages = [language] if language else None
    _switches += 1
    _translation = gettext.translation(DOMAIN, LOCALE_DIR, languages=languages, fallback=True)
    for clear in _caches:
        clear()


def language_key() -> int:
    """Which setting of the language the words are in now: a count that grows with every `set_language`
    (for a cache of words kept on an object, where `per_language` cannot reach)."""
    return _switches


def per_language(maxsize: int) -> Callable[[F], F]:
    """`functools.lru_cache(maxsize)`, emptied when `set_language` changes the language: for functions
    whose results hold translated words."""

    def decorate(function: F) -> F:
        cached = functools.lru_cache(maxsize=maxsize)(function)
        _caches.append(cached.cache_clear)
        return cached  # type: ignore[return-value]

    return decorate


def N_(message: str) -> str:
    """`message` unchanged, marked for translation where it is shown (`_(message)` there)."""
    return message


def _(message: str) -> str:
    """`message` in the current language."""
    return _translation.gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The singular or plural message for `n`, in the current language."""
    return _translation.ngettext(singular, plural, n)


def clauses(parts: Iterable[str]) -> str:
    """Clauses of one sentence, one after another ("a; b" in English, "a；b" in Chinese)."""
    return _("; ").join(parts)


def items(parts: Iterable[str]) -> str:
    """The items of a list ("a, b" in English, "a、b" in Chinese)."""
    return _(", ").join(parts)


_CLOSES = ("。", "！", "？", "；", "：", "）", "」")  # full-width marks: no space follows them


def sentences(parts: Iterable[str]) -> str:
    """Sentences one after another: a space between them, none after a full-width stop (Chinese)."""
    text = ""
    for part in parts:
        if text and not text.endswith(_CLOSES):
            text += " "
        text += part
    return text
