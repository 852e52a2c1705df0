"""Messages for people, in their language: the gettext domain `probes` (compiled catalogs in
`probes/locale/<lang>/LC_MESSAGES/probes.mo`, kept by `python packaging/update_messages.py`).

Write every sentence a person reads as one message with named placeholders, never glued from fragments:

    from probes.i18n import _, ngettext
    raise PlanError(_("{file}, line {line}: `every` must be a duration such as 5m, not {value!r}").format(...))
    ngettext("{n} trace", "{n} traces", n).format(n=n)

Machine-readable output (JSON keys, enumerated values such as `cn2-gia`) is never translated.

A message defined where no language is chosen yet (a module-level table such as `probes.routes.RULES`) is
marked with `N_` (gettext_noop: extracted, not translated) and translated with `_` where it is shown:

    Rule("cn2-only", ..., N_("CN2 (AS4809) hops and no 163 (AS4134) hop"), ...)   →   _(rule.text)

The language follows gettext's environment (LANGUAGE, LC_ALL, LC_MESSAGES, LANG) until `set_language` picks
one (the CLI's `--lang`, the window's language switch, through `desktop.i18n.set_language`); a language with
no catalog falls back to English. `catalogs.i18n` and `desktop.i18n` are the same for their own domains
(three small copies because `probes` and `catalogs` may not import each other).
"""

from __future__ import annotations

import gettext
from collections.abc import Iterable
from pathlib import Path

DOMAIN = "probes"
LOCALE_DIR = Path(__file__).resolve().parent / "locale"

_translation: gettext.NullTranslations = gettext.translation(DOMAIN, LOCALE_DIR, fallback=True)


def set_language(language: str | None) -> None:
    """Use `language` (e.g. "zh_CN", "en"); None: follow the environment again."""
    global _translation
    languages = [language] if language else None
    _translation = gettext.translation(DOMAIN, LOCALE_DIR, languages=languages, fallback=True)


def _(message: str) -> str:
    """`message` in the current language."""
    return _translation.gettext(message)


def N_(message: str) -> str:
    """`message` itself, marked for extraction: translate it with `_` where it is shown."""
    return message


def ngettext(singular: str, plural: str, n: int) -> str:
    """The singular or plural message for `n`, in the current language."""
    return _translation.ngettext(singular, plural, n)


def clauses(parts: Iterable[str]) -> str:
    """Clauses of one sentence, one after another ("a; b" in English, "a；b" in Chinese)."""
    return _("; ").join(parts)


def items(parts: Iterable[str]) -> str:
    """The items of a list ("a, b" in English, "a、b" in Chinese)."""
    return _(", ").join(parts)
