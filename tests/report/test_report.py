"""`linkvet report` end to end on a made evaluation in a real SQLite store: the PDF read back with poppler
(text in both languages, every font embedded, every page rendered), the HTML opened in headless Chromium (not
blank, no console error, no request), an evaluation with nothing measured, an unwritable path, the report's
language whatever the environment's, untrusted text escaped."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.report.browser import ink_share, open_page

POPPLER = shutil.which("pdftotext") and shutil.which("pdffonts") and shutil.which("pdftoppm")
needs_poppler = pytest.mark.skipif(
    not POPPLER, reason="poppler-utils is not installed (apt-get install poppler-utils)"
)
CANDIDATES = ("lambda", "gcp", "aws", "asia-northeast-1", "asia-northeast1", "ap-northeast-1")
RECOMMENDED = {"en": "Recommended: lambda/gpu_8x_h100_sxm5", "zh_CN": "推荐:lambda/gpu_8x_h100_sxm5"}  # NFKC


def _ok(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    return done.stdout


def _pdf_text(pdf: Path) -> str:
    """The PDF's text as poppler reads it, NFKC-normalised: Qt maps a CJK glyph that the font shares between an
    ideograph and its Kangxi radical (高 U+9AD8 and ⾼ U+2FBC) to the radical, which normalisation undoes."""
    import unicodedata

    done = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True, check=True)
    return unicodedata.normalize("NFKC", done.stdout)


@needs_poppler
@pytest.mark.parametrize("lang", ["en", "zh_CN"])
def test_the_pdf_names_the_candidates_and_the_recommendation_with_embedded_fonts(
    run_linkvet, measured_db: Path, tmp_path: Path, lang: str
) -> None:  # type: ignore[no-untyped-def]
    pdf = tmp_path / f"q1-{lang}.pdf"
    out = _ok(
        run_linkvet("report", "--eval", "q1", "--out", str(pdf), "--db", str(measured_db), "--lang", lang)
    )
    assert str(pdf) in out
    text = _pdf_text(pdf)
    flat = re.sub(r"\s+", "", text)
    assert re.sub(r"\s+", "", RECOMMENDED[lang]) in flat
    for word in CANDIDATES:
        assert word in text
    if lang == "zh_CN":
        assert "决策报告" in text and "晚高峰" in text and "复现每个数字的命令" in text
    fonts = subprocess.run(["pdffonts", str(pdf)], capture_output=True, text=True, check=True).stdout
    rows = [line.split() for line in fonts.splitlines()[2:] if line.strip()]
    assert rows, fonts
    assert all(row[-5] == "yes" for row in rows), fonts  # the emb column of every font
    if lang == "zh_CN":
        assert any("CJK" in row[0] or "Han" in row[0] or "YaHei" in row[0] for row in rows), fonts
    pages = int(
        re.search(
            r"Pages:\s+(\d+)",
            subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True).stdout,
        ).group(1)
    )  # type: ignore[union-attr]
    subprocess.run(["pdftoppm", "-r", "40", "-png", str(pdf), str(tmp_path / "page")], check=True)
    rendered = sorted(tmp_path.glob("page-*.png"))
    assert len(rendered) == pages >= 4
    assert all(
        ink_share(png) > 0.002 for png in rendered
    )  # none blank (a short last page of a section has little)


def test_the_html_opens_offline_in_chromium_without_errors_or_requests(
    run_linkvet, measured_db: Path, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    page = tmp_path / "q1.html"
    _ok(run_linkvet("report", "--eval", "q1", "--out", str(page), "--db", str(measured_db)))
    html = page.read_text(encoding="utf-8")
    assert "http://" not in html.replace("http://127.0.2.1/100mb.bin", "") and "https://" not in html
    assert html.count('<img src="data:image/png;base64,') >= 7  # scores, and per candidate its charts
    # Lines as people name them, not the catalogs' ids (lambda's offering sells `cn2-gia`).
    assert "claimed CN2 GIA" in html and "line sold: CN2 GIA" in html and "cn2-gia" not in html
    opened = open_page(page, tmp_path / "shot.png")
    assert opened.requests == []
    assert opened.console == []
    assert ink_share(opened.screenshot) > 0.03


def test_the_browser_check_sees_a_request_and_a_console_error(tmp_path: Path) -> None:
    """The check above can fail: a page that fetches and logs an error is caught (the proxy answers itself)."""
    page = tmp_path / "bad.html"
    page.write_text(
        '<html><body><img src="http://198.18.0.9/logo.png"><script>console.error("broken")</script></body></html>',
        encoding="utf-8",
    )
    opened = open_page(page, tmp_path / "bad.png")
    assert any("198.18.0.9" in r for r in opened.requests)
    assert any("broken" in line for line in opened.console)


def test_an_evaluation_with_nothing_measured_still_renders_and_says_what_is_missing(
    run_linkvet, empty_db: Path, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    page = tmp_path / "empty.html"
    out = _ok(run_linkvet("report", "--eval", "q1", "--out", str(page), "--db", str(empty_db)))
    assert "nothing measured yet" in out
    html = page.read_text(encoding="utf-8")
    assert "Nothing has been measured for this evaluation yet" in html
    assert "linkvet schedule --eval q1 --vantage shanghai" in html
    assert "No trace yet." in html and "No acceptance report imported." in html
    assert "No throughput measured yet" in html


def test_an_unwritable_path_is_a_clear_error_exit_3(run_linkvet, empty_db: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder", encoding="utf-8")
    for name in ("r.html", "r.pdf"):
        done = run_linkvet("report", "--eval", "q1", "--out", str(blocker / name), "--db", str(empty_db))
        assert done.returncode == 3, done.stderr
        assert "Traceback" not in done.stderr
        assert f"{blocker / name}: cannot write" in done.stderr
    wrong = run_linkvet("report", "--eval", "q1", "--out", str(tmp_path / "r.docx"), "--db", str(empty_db))
    assert wrong.returncode == 2 and "must end in .html or .pdf" in wrong.stderr


def test_the_report_keeps_its_language_whatever_the_environment(
    run_linkvet, measured_db: Path, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    import os

    from tests.conftest import cli_env

    page = tmp_path / "en.html"
    env = cli_env(tmp_path) | {"LANGUAGE": "zh_CN", "LANG": "zh_CN.UTF-8"}
    done = subprocess.run(
        [
            __import__("sys").executable,
            "-m",
            "desktop.cli",
            "report",
            "--eval",
            "q1",
            "--out",
            str(page),
            "--db",
            str(measured_db),
            "--lang",
            "en",
        ],
        cwd=tmp_path,
        env={**env, "LINKVET_CATALOG_DIR": os.environ["LINKVET_CATALOG_DIR"]},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    _ok(done)
    html = page.read_text(encoding="utf-8")
    assert "Recommended: " in html and "推荐" not in html and "决策报告" not in html
    chinese = tmp_path / "zh.html"
    _ok(
        run_linkvet(
            "report", "--eval", "q1", "--out", str(chinese), "--db", str(measured_db), "--lang", "zh_CN"
        )
    )
    text = chinese.read_text(encoding="utf-8")
    assert "决策报告" in text and "Recommended" not in text and 'lang="zh-CN"' in text


def test_text_from_vendors_is_escaped(run_linkvet, empty_db: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    _ok(
        run_linkvet(
            "eval",
            "add",
            "q1",
            "--provider",
            "vendorx",
            "--region",
            "sha-1",
            "--provider-name",
            '<script>alert("x")</script>',
            "--test-ip",
            "127.0.2.9",
            "--db",
            str(empty_db),
        )
    )
    page = tmp_path / "x.html"
    _ok(run_linkvet("report", "--eval", "q1", "--out", str(page), "--db", str(empty_db)))
    html = page.read_text(encoding="utf-8")
    assert "<script" not in html and "vendorx" in html
