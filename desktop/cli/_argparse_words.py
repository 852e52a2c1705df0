"""argparse's own words — "usage:", "options", the errors it words itself ("the following arguments are
required", "invalid choice") — in the language linkvet speaks.

argparse marks them for gettext but looks them up with the standard library's `gettext.gettext`, in the
process-wide default domain and always in the environment's language, so neither `--lang` nor a catalog of
ours would reach them. `install()` points argparse's two look-up functions (its module globals `_` and
`ngettext`, which it calls every time it words something) at the `argparse` domain shipped in
`desktop/locale/<lang>/LC_MESSAGES/argparse.mo` (the msgids are argparse's own; the .po is kept by hand and
compiled by `python packaging/update_messages.py`), in the language `desktop.i18n` has in effect. A word
without a translation, or a language without a catalog, stays argparse's English.
"""

from __future__ import annotations

import argparse
import gettext
from functools import cache

from desktop import i18n

DOMAIN = "argparse"


@cache
def _catalog(language: str) -> gettext.NullTranslations:
    return gettext.translation(DOMAIN, i18n.LOCALE_DIR, languages=[language], fallback=True)


def _gettext(message: str) -> str:
    return _catalog(i18n.current_language()).gettext(message)


def _ngettext(singular: str, plural: str, n: int) -> str:
    return _catalog(i18n.current_language()).ngettext(singular, plural, n)


def install() -> None:
    """From now on argparse words its texts in the current language (idempotent)."""
    setattr(argparse, "_", _gettext)  # noqa: B010 (argparse's module globals, looked up at each call)
    setattr(argparse, "ngettext", _ngettext)  # noqa: B010
