"""The Targets screen as laid out in the window: "From the catalogs…" is there, and picking regions in its
dialog puts their probe endpoints on the probe list."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox, QPushButton


def shown_button(window, text: str) -> QPushButton:  # type: ignore[no-untyped-def]
    """The one button with this text that the user can see in the window."""
    found = [b for b in window.findChildren(QPushButton) if b.text() == text and b.isVisible()]
    assert len(found) == 1, f"{text!r}: {len(found)} visible button(s)"
    assert found[0].window() is window
    return found[0]


def test_from_the_catalogs_button_adds_a_regions_endpoints(window, qtbot) -> None:
    screen = window.go_to("targets")
    button = shown_button(window, "From the catalogs…")
    before = window.context.targets.rowCount()
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(
        lambda: screen.catalog_dialog is not None and screen.catalog_dialog.isVisible(), timeout=20_000
    )
    dialog = screen.catalog_dialog
    dialog.check_region("aws", "us-east-1")
    dialog.buttons.button(QDialogButtonBox.StandardButton.Ok).click()
    qtbot.waitUntil(lambda: window.context.targets.rowCount() > before)
    new = window.context.targets.entries()[before:]
    assert {(e.target.provider, e.target.region, e.origin) for e in new} == {("aws", "us-east-1", "catalog")}
    # A second time the catalogs are not read again; Cancel adds nothing.
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: screen.catalog_dialog is not dialog and screen.catalog_dialog.isVisible())
    screen.catalog_dialog.check_region("aws", "eu-west-1")
    assert screen.catalog_dialog.chosen_regions() == [("aws", "eu-west-1")]
    screen.catalog_dialog.buttons.button(QDialogButtonBox.StandardButton.Cancel).click()
    assert window.context.targets.rowCount() == before + len(new)
