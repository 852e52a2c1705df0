"""Messages for people from the faces' Qt-free code (the CLI, the use-cases, the workbook): the gettext
domain `desktop` (`desktop/locale/<lang>/LC_MESSAGES/desktop.mo`, kept by
`python packaging/update_messages.py`); and `set_language`, which switches every domain at once — `probes`,
`catalogs` and this one — for the CLI's `--lang` and the window's language switch. The window's own labels
are Qt translations (`desktop/app/translations/`, `self.tr`).

Same rules as `probes.i18n`: one message per sentence, named placeholders, JSON keys and enumerated values
never translated; the language follows LANGUAGE, LC_ALL, LC_MESSAGES, LANG until chosen; no catalog for a
language means English.

How the environment reads (gettext's own rules, the same in every domain): the first of LANGUAGE, LC_ALL,
LC_MESSAGES and LANG that is set decides; LANGUAGE may list several (`zh_TW:zh_CN`). `zh_CN.UTF-8`,
`zh_CN.GB18030`, `zh_CN` and `zh` read as zh_CN; `zh_TW`, `zh_HK`, `C`, `POSIX` and anything else without a
catalog read as English. `current_language()` says which of `LANGUAGES` is in effect, e.g. for a file
written in the language of the run (the workbook, the questionnaire). `vantage_name`: a vantage point as
people read it, in every face ("this machine" for the rounds that named none).
"""

from __future__ import annotations

import contextlib
import gettext
from collections.abc import Iterator
from pathlib import Path

import catalogs.i18n
import probes.i18n
from probes.vantage import THIS_MACHINE

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


def chosen() -> str | None:
    """The language `set_language` chose; None while the environment decides."""
    return _language


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


def current_language() -> str:
    """The language messages are in now: "zh_CN" when the desktop catalog for it is in use (chosen, or found
    from the environment), else "en"."""
    found = _translation.info().get("language") if isinstance(_translation, gettext.GNUTranslations) else None
    return found if found in LANGUAGES else "en"


def _(message: str) -> str:
    """`message` in the current language."""
    return _translation.gettext(message)


def N_(message: str) -> str:
    """`message` itself, marked for extraction: translate it with `_` where it is shown (a module-level
    table such as `desktop.cli.errors.EXIT_RULES`)."""
    return message


def ngettext(singular: str, plural: str, n: int) -> str:
    """The singular or plural message for `n`, in the current language."""
    return _translation.ngettext(singular, plural, n)


def npgettext(context: str, singular: str, plural: str, n: int) -> str:
    """`ngettext` for a message whose text is also another message's (`context` tells them apart)."""
    return _translation.npgettext(context, singular, plural, n)


def vantage_name(vantage: str | None) -> str:
    """A vantage point as people read it: its name; "this machine" for the rounds that named none
    (`probes.vantage.THIS_MACHINE`, or None where nothing said where)."""
    if vantage is None or vantage == THIS_MACHINE:
        # TRANSLATORS: the vantage point (office) of the rounds measured without one: the machine linkvet runs on
        return _("this machine")
    return vantage
