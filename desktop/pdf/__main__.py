"""`python -m desktop.pdf IN.html OUT.pdf [--title TITLE]`: print an HTML file on A4 pages with Qt's PDF
writer (see `desktop.pdf`). Exit 0 printed; 2 bad arguments or input; 3 no Qt here or the file cannot be
written."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

# The families the document asks for, in order: a Latin TrueType font first, then the CJK fonts of Linux,
# Windows and macOS. Latin first matters: with an OpenType CJK font (Noto Sans CJK) first, Qt draws Latin
# letters and digits from it with a text mapping that loses them (pdftotext reads "q" for "q1").
FAMILIES = [
    "DejaVu Sans",
    "Segoe UI",
    "Arial",
    "Noto Sans CJK SC",
    "Source Han Sans SC",
    "Microsoft YaHei",
    "PingFang SC",
    "WenQuanYi Zen Hei",
]
MARGIN_MM = 15.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m desktop.pdf")
    parser.add_argument("source", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--title", default="")
    args = parser.parse_args(argv)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    try:
        from PySide6.QtCore import QMarginsF, QSizeF
        from PySide6.QtGui import QFont, QGuiApplication, QPageLayout, QPageSize, QPdfWriter, QTextDocument
    except ImportError as exc:
        print(f"PySide6 is not installed ({exc}): pip install 'linkvet[gui]', or write HTML", file=sys.stderr)
        return 3
    try:
        html = args.source.read_text(encoding="utf-8")
    except OSError as exc:
        print(f"{args.source}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    app = QGuiApplication.instance() or QGuiApplication(["linkvet-pdf"])
    document = QTextDocument()
    font = QFont()
    font.setFamilies(FAMILIES)
    font.setPointSizeF(9.5)
    document.setDefaultFont(font)
    # Lay the document out on the A4 text area at 96 px an inch (the unit of the HTML's image sizes, as a
    # browser takes it); printing scales it onto the writer's page.
    width_px = (210.0 - 2 * MARGIN_MM) / 25.4 * 96
    height_px = (297.0 - 2 * MARGIN_MM) / 25.4 * 96
    document.setPageSize(QSizeF(width_px, height_px))
    document.setDocumentMargin(0)
    document.setHtml(html)
    writer = QPdfWriter(str(args.out))
    writer.setPageSize(QPageSize(QPageSize.PageSizeId.A4))
    writer.setPageMargins(QMarginsF(MARGIN_MM, MARGIN_MM, MARGIN_MM, MARGIN_MM), QPageLayout.Unit.Millimeter)
    writer.setResolution(300)
    writer.setTitle(args.title)
    writer.setCreator("linkvet")
    document.print_(writer)
    del writer  # the file is finished when the writer goes
    del app
    if not args.out.is_file() or args.out.stat().st_size == 0:
        print(f"{args.out}: nothing was written", file=sys.stderr)
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main())
