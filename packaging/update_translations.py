"""Refresh the translation sources and compile them (run after changing user-visible text):

    python packaging/update_translations.py

`pyside6-lupdate` collects every `tr()` string of `desktop/app` into `desktop/app/translations/*.ts`
(keeping existing translations); translate the new entries (Qt Linguist, or by hand: fill `<translation>` and
drop `type="unfinished"`); run this again so `pyside6-lrelease` writes the `.qm` files the app loads.
Both are committed; `tests/gui/test_language.py` fails while an entry is unfinished or a `.qm` is stale.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
APP = REPO / "desktop" / "app"
TRANSLATIONS = APP / "translations"
LANGUAGES = ("zh_CN",)


def sources() -> list[str]:
    return sorted(str(p.relative_to(REPO)) for p in APP.rglob("*.py"))


def main() -> int:
    for code in LANGUAGES:
        ts = TRANSLATIONS / f"linkvet_{code}.ts"
        subprocess.run(
            [
                "pyside6-lupdate",
                *sources(),
                "-ts",
                str(ts.relative_to(REPO)),
                "-no-obsolete",
                "-locations",
                "none",
            ],
            cwd=REPO,
            check=True,
        )
        subprocess.run(["pyside6-lrelease", str(ts), "-qm", str(ts.with_suffix(".qm"))], cwd=REPO, check=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
