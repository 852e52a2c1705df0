"""argparse's own words — "usage:", "options", the errors it words itself ("the following arguments are
required", "invalid choice") — in the language linkvet speaks.

argparse marks them for gettext but looks them up with the standard library's `gettext.gettext`, in the
process-wide default domain and always in the environment's language, so neither `--lang` nor a catalog of
ours would reach them. `install()` points argparse's two look-up functions (its module globals `_` and
`ngettext`, which it calls every time it words something) at the `argparse` domain shipped in
`desktop/locale/<lang>/LC_MESSAGES/argparse.mo` (the msgids are argparse's own; the .po is kept by hand and
compiled by `python packaging/update_messages.py`), in the language `desktop.i18n` has in effect. A word
without a translation, or a language without a catalog, stays argparse's English.

argparse also puts an ASCII colon after each section's heading ("options:") itself; `HelpFormatter` ends a
heading in Chinese with the full-width one ("选项："), as the translated "用法：" ends.
"""

from __future__ import annotations

import argparse
import gettext
import re
from functools import cache
from typing import NoReturn

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


_CJK = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")


class HelpFormatter(argparse.HelpFormatter):
    """argparse's help layout, with the colon after a Chinese section heading full-width."""

    def __init__(self, prog: str, **kwargs: int) -> None:
        super().__init__(prog, **kwargs)
        self._headings: list[str] = []

    def start_section(self, heading: str | None) -> None:
        if heading and _CJK.search(heading):
            self._headings.append(heading)
        super().start_section(heading)

    def format_help(self) -> str:
        text = super().format_help()
        for heading in self._headings:
            text = re.sub(rf"^( *){re.escape(heading)}:$", rf"\g<1>{heading}：", text, flags=re.MULTILINE)
        return text


class Parser(argparse.ArgumentParser):
    """argparse's parser, its error line safe to print: a value it repeats back ("invalid choice: '…'") cut
    to 200 characters and escaped (`desktop.cli._safe_text`), as every error line of linkvet is."""

    def error(self, message: str) -> NoReturn:
        from desktop.cli._safe_text import printable, shortened

        super().error(printable(shortened(message)))
