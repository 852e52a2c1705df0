"""Render linkvet's icon (`linkvet.svg`, beside this file) to the PNG sizes the installers use.

    python packaging/icons/render.py            # rewrites linkvet-<size>.png here
    python packaging/icons/render.py --check    # exit 1 if a committed PNG differs from a fresh rendering

Rendered with Qt's SVG renderer (PySide6, already a GUI dependency), offscreen: no display needed. The
Windows `.ico` and macOS `.icns` are made from these PNGs at build time (`packaging/build.py`, Pillow).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PySide6.QtGui import QGuiApplication, QImage

HERE = Path(__file__).resolve().parent
SVG = HERE / "linkvet.svg"
# hicolor sizes for the Linux desktop entry; 256 for Windows' .ico, 512 (and 1024) for macOS' .icns.
SIZES: tuple[int, ...] = (16, 24, 32, 48, 64, 128, 256, 512, 1024)


def png_path(size: int) -> Path:
    return HERE / f"linkvet-{size}.png"


def render(size: int) -> QImage:  # Qt is imported in the functions only
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    renderer = QSvgRenderer(str(SVG))
    if not renderer.isValid():
        raise SystemExit(f"{SVG}: not an SVG image Qt can render")
    image = QImage(size, size, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
    renderer.render(painter)
    painter.end()
    return image


def _application() -> QGuiApplication:  # QSvgRenderer and QPainter need one; offscreen needs no display
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtGui import QGuiApplication

    existing = QGuiApplication.instance()
    return existing if isinstance(existing, QGuiApplication) else QGuiApplication([sys.argv[0]])


def stale_sizes() -> list[int]:
    """Sizes whose committed PNG is missing or differs (pixel by pixel) from a fresh rendering."""
    from PySide6.QtGui import QImage

    _app = _application()
    stale = []
    for size in SIZES:
        committed = QImage(str(png_path(size)))
        fresh = render(size)
        if committed.isNull() or committed.convertToFormat(fresh.format()) != fresh:
            stale.append(size)
    return stale


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--check", action="store_true", help="only compare; rewrite nothing")
    args = parser.parse_args(argv)
    if args.check:
        stale = stale_sizes()
        if stale:
            print(
                f"stale icon PNGs (run {Path(__file__).name}): {', '.join(map(str, stale))}", file=sys.stderr
            )
            return 1
        return 0
    _app = _application()
    for size in SIZES:
        if not render(size).save(str(png_path(size))):
            raise SystemExit(f"could not write {png_path(size)}")
        print(png_path(size))
    return 0


if __name__ == "__main__":
    sys.exit(main())
