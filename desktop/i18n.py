"""Messages for people from the faces' Qt-free code (the CLI, the use-cases, the workbook): the gettext
domain `desktop` (`desktop/locale/<lang>/LC_MESSAGES/desktop.mo`, kept by
`python packaging/update_messages.py`); and `set_language`, which switches every domain at once — `probes`,
`catalogs` and this one — for the CLI's `--lang` and the window's language switch. The window's own labels
are Qt translations (`desktop/app/translations/`, `self.tr`).

Same rules as `probes.i18n`: one message per sentence, named placeholders, JSON keys and enumerated values
never translated; the language follows LANGUAGE, LC_ALL, LC_MESSAGES, LANG until chosen; no catalog for a
language means English.
"""

from __future__ import annotations

import contextlib
import gettext
from collections.abc import Iterator
from pathlib import Path

import catalogs.i18n
import probes.i18n

DOMAIN = "desktop"
LOCALE_DIR = Path(__file__).resolve().parent / "locale"
LANGUAGES = ("en", "zh_CN")

_translation: gettext.NullTranslations = gettext.translation(DOMAIN, LOCALE_DIR, fallback=True)
_language: str | None = None


def set_language(language: str | None) -> None:
    """Use `language` ("en", "zh_CN"; anything without a catalog reads as English) in every domain;
    None: follow the environment again."""
    global _translation, _language
    _language = language
    languages = [language] if language else None
    _translation = gettext.translation(DOMAIN, LOCALE_DIR, languages=languages, fallback=True)
    probes.i18n.set_language(language)
    catalogs.i18n.set_language(language)


@contextlib.contextmanager
def language(chosen: str | None) -> Iterator[None]:
    """Every domain in `chosen` for the block (e.g. a questionnaire written in Chinese from an English
    session), then the language before it again."""
    before = _language
    set_language(chosen)
    try:
        yield
    finally:
        set_language(before)


def _(message: str) -> str:
    """`message` in the current language."""
    return _translation.gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The singular or plural message for `n`, in the current language."""
    return _translation.ngettext(singular, plural, n)
