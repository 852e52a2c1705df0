"""The user guide (`desktop/manual/`) and the READMEs that lead to it: every page in both languages, every
link between pages, to pictures and from the READMEs resolving, the pictures shipped, the README a front
door whose test command is the one CI runs. (The window showing the pages: tests/gui/test_help.py.)"""

from __future__ import annotations

import itertools
import re
import tomllib
from fnmatch import fnmatch
from pathlib import Path

import pytest

import desktop.manual as manual
from desktop.manual import LANGUAGES, MANUAL_DIR, page_path, page_title, pages
from tests.conftest import REPO_ROOT

READMES = [REPO_ROOT / "README.md", REPO_ROOT / "README.zh_CN.md"]
# [text](target) and ![alt](target), outside code; a target has no spaces (Markdown's own rule without <>)
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(([^()\s]+)\)")
CJK = re.compile(r"[\u4e00-\u9fff]")


def prose(path: Path) -> str:
    """A Markdown file without its fenced code blocks and inline code (links there are not links)."""
    text = re.sub(r"^```.*?^```", "", path.read_text(encoding="utf-8"), flags=re.S | re.M)
    return re.sub(r"`[^`\n]*`", "", text)


def links(path: Path) -> list[str]:
    return LINK.findall(prose(path))


def all_pages() -> list[Path]:
    return sorted(p for code in LANGUAGES for p in (MANUAL_DIR / code).glob("*.md"))


def test_every_page_exists_in_both_languages() -> None:
    english = pages("en")
    assert {"index", "getting-started"} <= set(english)
    assert len(english) >= 20, english
    for code in LANGUAGES:
        assert pages(code) == english, f"{code}: {set(english) ^ set(pages(code))}"


@pytest.mark.parametrize("code", LANGUAGES)
def test_each_page_has_its_own_title_in_its_language(code: str) -> None:
    titles = {}
    for name in pages(code):
        path = MANUAL_DIR / code / f"{name}.md"
        assert path.read_text(encoding="utf-8").startswith("# "), f"{path}: starts without its '# title'"
        titles[name] = page_title(path)
    assert len(set(titles.values())) == len(titles), titles  # two pages never share a title
    if code == "zh_CN":
        untranslated = [name for name, title in titles.items() if not CJK.search(title)]
        assert not untranslated, untranslated


@pytest.mark.parametrize("path", all_pages(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_link_of_a_page_resolves(path: Path) -> None:
    code = path.parent.name
    problems = []
    for target in links(path):
        if re.match(r"[a-z]+:", target):  # http(s), mailto: the system's browser opens them
            assert target.startswith(("https://", "http://", "mailto:")), target
            continue
        if "#" in target:  # Qt's Markdown gives headings no anchors: link to a page, not into one
            problems.append(f"{target}: an anchor (link to the page instead)")
            continue
        resolved = (path.parent / target).resolve()
        if not resolved.is_file():
            problems.append(f"{target}: no such file")
        elif resolved.suffix == ".md" and resolved.parent.parent == MANUAL_DIR:
            # a page links to pages of its own language; only the indexes point at each other
            if resolved.parent.name != code and not (path.stem == resolved.stem == "index"):
                problems.append(f"{target}: a page of the other language")
        elif resolved.suffix == ".png" and resolved.parent != MANUAL_DIR / "images":
            problems.append(f"{target}: pictures ship from desktop/manual/images/")
    assert not problems, f"{path}:\n" + "\n".join(problems)


@pytest.mark.parametrize("code", LANGUAGES)
def test_the_index_leads_to_every_page(code: str) -> None:
    index = MANUAL_DIR / code / "index.md"
    linked = {(index.parent / t).resolve() for t in links(index)}
    orphans = [n for n in pages(code) if n != "index" and (MANUAL_DIR / code / f"{n}.md") not in linked]
    assert not orphans, orphans


def test_every_picture_shown_is_in_the_manual_and_every_picture_is_shown() -> None:
    """The pictures live once, in the package (`packaging/screenshots.py` renders them there; pyproject's
    package-data takes *.png and *.md from every package folder)."""
    pictures = sorted((MANUAL_DIR / "images").glob("*.png"))
    shown = {(p.parent / t).resolve() for p in all_pages() for t in links(p) if t.endswith(".png")}
    assert shown and shown <= set(pictures)
    assert not sorted(set(pictures) - shown), "a picture no page shows"


def test_package_data_takes_every_file_of_the_manual() -> None:
    setuptools = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"][
        "setuptools"
    ]
    everywhere = setuptools["package-data"]["*"]
    assert setuptools["packages"]["find"].get("namespaces", True)  # folders without __init__.py are packages
    assert any(fnmatch("desktop.manual.zh_CN", p) for p in setuptools["packages"]["find"]["include"])
    files = [p for p in MANUAL_DIR.rglob("*") if p.is_file() and "__pycache__" not in p.parts]
    unshipped = [
        p for p in files if p.suffix != ".py" and not any(fnmatch(p.name, pat) for pat in everywhere)
    ]
    assert not unshipped, unshipped


def test_a_page_missing_in_a_language_is_shown_in_english(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    assert page_path("getting-started", "zh_CN") == MANUAL_DIR / "zh_CN" / "getting-started.md"
    assert page_path("getting-started", "fr") == MANUAL_DIR / "en" / "getting-started.md"
    (tmp_path / "en").mkdir()
    (tmp_path / "zh_CN").mkdir()
    (tmp_path / "en" / "only-english.md").write_text("# Only English\n", encoding="utf-8")
    monkeypatch.setattr(manual, "MANUAL_DIR", tmp_path)
    assert manual.page_path("only-english", "zh_CN") == tmp_path / "en" / "only-english.md"
    with pytest.raises(FileNotFoundError, match="no-such-page"):
        manual.page_path("no-such-page", "zh_CN")


# -- the READMEs ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("readme", READMES, ids=lambda p: p.name)
def test_the_readme_is_a_front_door_whose_links_resolve(readme: Path) -> None:
    lines = readme.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 250, f"{readme.name}: {len(lines)} lines"
    missing = [t for t in links(readme) if not re.match(r"[a-z]+:", t) and not (REPO_ROOT / t).is_file()]
    assert not missing, missing
    assert not [t for t in links(readme) if "#" in t]  # sections live in the manual now
    targets = {(REPO_ROOT / t).resolve() for t in links(readme)}
    code = "zh_CN" if readme.name == "README.zh_CN.md" else "en"
    for name in ("index", "getting-started"):
        assert MANUAL_DIR / code / f"{name}.md" in targets, f"{readme.name} leads to {code}/{name}.md"


@pytest.mark.parametrize("readme", READMES, ids=lambda p: p.name)
def test_the_quickstart_commands_are_the_ones_ci_runs(readme: Path) -> None:
    """`.ci/run` runs "the README's test command": the two stay in step (`-q` aside)."""
    text = readme.read_text(encoding="utf-8")
    ci = (REPO_ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "pip install '.[gui]' && linkvet\n" in text
    assert "pip install '.[test]' && python -m pytest\n" in text
    assert "pip install -q '.[test]' && python -m pytest\n" in ci


def test_catalog_is_never_mulu_in_the_chinese_guide() -> None:
    """目录 reads as "directory": the glossary's word for a vendor catalog is 服务商名录 (名录 in compounds)."""
    for path in [*(MANUAL_DIR / "zh_CN").glob("*.md"), REPO_ROOT / "README.zh_CN.md"]:
        text = path.read_text(encoding="utf-8")
        assert "目录" not in text, f"{path}: 目录 at {text.index('目录')}"


def test_no_line_breaks_inside_a_chinese_sentence() -> None:
    """A line break between two Chinese characters shows as a space (on GitHub and in Qt): Chinese paragraphs
    break lines only next to Latin text, code or spaces."""
    wide = re.compile(r"[\u2014\u2018\u2019\u201c\u201d\u2026\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")
    starts_a_block = re.compile(r"\s*(#|\||```|[-*+] |\d+\. |>|!\[)")
    problems = []
    for path in [*(MANUAL_DIR / "zh_CN").glob("*.md"), REPO_ROOT / "README.zh_CN.md"]:
        lines = path.read_text(encoding="utf-8").split("\n")
        fenced = False
        for number, (line, following) in enumerate(itertools.pairwise(lines), start=1):
            fenced ^= line.lstrip().startswith("```")
            joined_in_prose = (
                not fenced
                and line.strip()
                and following.strip()
                and not line.lstrip().startswith(("|", "#", "```"))
                and not starts_a_block.match(following)
            )
            if joined_in_prose and wide.match(line[-1]) and wide.match(following.lstrip()[0]):
                problems.append(f"{path.name}:{number}: …{line[-8:]}⏎{following.lstrip()[:8]}…")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("path", [*all_pages(), *READMES], ids=lambda p: f"{p.parent.name}/{p.name}")
def test_bold_text_renders_as_bold(path: Path) -> None:
    """CommonMark closes `**` after punctuation only before a space or punctuation (`**添加…**加入` shows its
    asterisks): parsed as GitHub and Qt parse it, no `**` is left in the text."""
    from markdown_it import MarkdownIt  # rich's Markdown parser, a CommonMark implementation

    parser = MarkdownIt("commonmark").enable("table")
    left = [
        child.content
        for token in parser.parse(path.read_text(encoding="utf-8"))
        if token.type == "inline"
        for child in token.children or []
        if child.type == "text" and "**" in child.content
    ]
    assert not left, left
