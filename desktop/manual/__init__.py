"""The user guide: Markdown pages shipped with the program, the same files GitHub renders, in English and
Chinese. Qt-free; the window's Help menu shows them (`desktop/app/help_viewer.py`).

    desktop/manual/en/*.md      one page per chapter; `index.md` lists them, `getting-started.md` is the
                                guided path for a new user
    desktop/manual/zh_CN/*.md   the same pages in Chinese, under the same file names
    desktop/manual/images/      the pictures the pages show (`packaging/screenshots.py` renders them here, so they ship)

Pages link to each other by relative file name (`[Scheduling](scheduling.md)`), and to pictures as
`../images/NAME.png`; `tests/test_manual.py` checks that every page exists in both languages and every link
resolves. A page missing in a language is shown in English (`page_path`).
"""

from __future__ import annotations

from pathlib import Path

MANUAL_DIR = Path(__file__).resolve().parent
LANGUAGES = ("en", "zh_CN")
FALLBACK = "en"
INDEX = "index"
GETTING_STARTED = "getting-started"


def page_path(page: str, language: str) -> Path:
    """The file of `page` (a name such as "getting-started", without ".md") in `language`, or in English
    where that language has no such page (or is not one the manual is written in). Raises `FileNotFoundError`
    when no language has the page."""
    for code in dict.fromkeys((language, FALLBACK)):
        if code not in LANGUAGES:
            continue
        path = MANUAL_DIR / code / f"{page}.md"
        if path.is_file():
            return path
    raise FileNotFoundError(f"{MANUAL_DIR / FALLBACK / page}.md: no such page of the user guide")


def pages(language: str = FALLBACK) -> list[str]:
    """Every page name written in `language`, sorted."""
    folder = MANUAL_DIR / language
    return sorted(path.stem for path in folder.glob("*.md")) if language in LANGUAGES else []


def page_title(path: Path) -> str:
    """A page's title: its first level-one heading (`# Title`), without Markdown's backticks."""
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            if line.startswith("# "):
                return line[2:].strip().replace("`", "")
    return path.stem


def language_of(path: Path) -> str | None:
    """The language a page of the manual is written in (its folder), or None for a file outside it."""
    try:
        relative = path.resolve().relative_to(MANUAL_DIR)
    except ValueError:
        return None
    return relative.parts[0] if len(relative.parts) == 2 and relative.parts[0] in LANGUAGES else None
