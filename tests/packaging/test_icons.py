"""linkvet's icon: the committed PNGs are the SVG as Qt renders it now, square, with transparent corners."""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType

import pytest

from tests.conftest import REPO_ROOT

pytestmark = pytest.mark.gui


def render_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "linkvet_icon_render", REPO_ROOT / "packaging/icons/render.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_every_committed_png_is_the_svg_rendered_now(qapp) -> None:
    render = render_module()
    assert render.stale_sizes() == [], "run python packaging/icons/render.py"


def test_each_png_is_square_at_its_size_with_transparent_corners(qapp) -> None:
    from PySide6.QtGui import QImage

    render = render_module()
    for size in render.SIZES:
        image = QImage(str(render.png_path(size)))
        assert (image.width(), image.height()) == (size, size)
        assert image.hasAlphaChannel()
        assert image.pixelColor(0, 0).alpha() == 0  # the rounded corner
        assert image.pixelColor(size // 2, size // 2 + size // 8).alpha() == 255


def test_a_changed_svg_makes_the_pngs_stale(qapp, tmp_path, monkeypatch) -> None:
    render = render_module()
    changed = tmp_path / "linkvet.svg"
    changed.write_text(render.SVG.read_text(encoding="utf-8").replace("#34c759", "#ff0000"), encoding="utf-8")
    monkeypatch.setattr(render, "SVG", changed)
    assert render.stale_sizes() == list(render.SIZES)
