"""Help → Getting started and Help → User guide: the manual's pages in the window's language, links between
pages followed inside the viewer (Back, Forward), web links handed to the system's browser, and the first
start greeting a new user with Getting started once."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, QSettings, Qt, QUrl, Slot
from PySide6.QtGui import QDesktopServices, QTextCursor, QTextDocument

from desktop.app.settings import AppSettings
from desktop.manual import LANGUAGES, MANUAL_DIR, page_title, pages


def first_line(viewer) -> str:  # type: ignore[no-untyped-def]
    return viewer.browser.document().firstBlock().text()


def click_link(qtbot, viewer, href: str) -> None:  # type: ignore[no-untyped-def]
    """Click, with the mouse, the first link of the page shown whose target is `href`."""
    browser = viewer.browser
    block = browser.document().begin()
    while block.isValid():
        fragments = block.begin()
        while not fragments.atEnd():
            fragment = fragments.fragment()
            if fragment.charFormat().anchorHref() == href:
                cursor = QTextCursor(browser.document())
                cursor.setPosition(fragment.position() + min(2, fragment.length() // 2))
                browser.setTextCursor(cursor)
                browser.ensureCursorVisible()
                qtbot.mouseClick(
                    browser.viewport(), Qt.MouseButton.LeftButton, pos=browser.cursorRect().center()
                )
                return
            fragments += 1
        block = block.next()
    raise AssertionError(f"no link to {href} on {viewer.page}")


def test_getting_started_and_the_user_guide_open_in_english(window, qtbot) -> None:
    assert window.help_viewer is None and [a.text() for a in window.help_menu.actions()][:2] == [
        "&Getting started",
        "&User guide",
    ]
    window.getting_started_action.trigger()
    viewer = window.help_viewer
    qtbot.waitUntil(viewer.isVisible, timeout=5_000)
    assert viewer.page == "getting-started"
    assert first_line(viewer) == "Getting started"
    assert viewer.windowTitle() == "Getting started — linkvet user guide"
    window.user_guide_action.trigger()
    assert window.help_viewer is viewer and viewer.page == "index"
    assert first_line(viewer) == "linkvet user guide"


def test_the_guide_opens_in_chinese_and_follows_a_language_switch(window, qtbot) -> None:
    window.set_language("zh_CN")
    qtbot.waitUntil(lambda: window.help_menu.title() == "帮助(&H)", timeout=5_000)  # LanguageChange is posted
    assert [a.text() for a in window.help_menu.actions()][:2] == ["快速入门(&G)", "用户指南(&U)"]
    window.getting_started_action.trigger()
    viewer = window.help_viewer
    title = page_title(MANUAL_DIR / "zh_CN" / "getting-started.md")
    assert title != "Getting started" and first_line(viewer) == title
    assert viewer.windowTitle() == f"{title} — linkvet 用户指南"
    assert viewer.back.text() == "后退"
    # Switching the window's language shows the same page in the new language.
    window.set_language("en")
    assert viewer.page == "getting-started" and first_line(viewer) == "Getting started"
    qtbot.waitUntil(lambda: viewer.back.text() == "Back", timeout=5_000)
    assert viewer.windowTitle() == "Getting started — linkvet user guide"


def test_a_link_between_pages_opens_in_the_viewer_with_back_and_forward(window, qtbot) -> None:
    viewer = window.show_help("index")
    viewer.resize(1000, 700)
    click_link(qtbot, viewer, "scheduling.md")
    assert viewer.page == "scheduling"
    assert first_line(viewer) == "Scheduling: measuring for days, denser at peak hours"
    assert viewer.back.isEnabled() and not viewer.forward.isEnabled()
    click_link(qtbot, viewer, "service.md")
    assert viewer.page == "service"
    qtbot.mouseClick(viewer.back, Qt.MouseButton.LeftButton)
    qtbot.mouseClick(viewer.back, Qt.MouseButton.LeftButton)
    assert viewer.page == "index" and viewer.forward.isEnabled()
    qtbot.mouseClick(viewer.forward, Qt.MouseButton.LeftButton)
    assert viewer.page == "scheduling"
    qtbot.mouseClick(viewer.contents, Qt.MouseButton.LeftButton)
    assert viewer.page == "index"


def test_a_link_in_chinese_stays_in_chinese(window, qtbot) -> None:
    window.set_language("zh_CN")
    viewer = window.show_help("getting-started")
    viewer.resize(1000, 700)
    click_link(qtbot, viewer, "measuring.md")
    assert viewer.current_path == MANUAL_DIR / "zh_CN" / "measuring.md"
    assert first_line(viewer) == page_title(MANUAL_DIR / "zh_CN" / "measuring.md")
    window.set_language("en")


class Browser(QObject):
    """Stands in for the system's browser: QDesktopServices hands it the web links."""

    def __init__(self) -> None:
        super().__init__()
        self.opened: list[str] = []

    @Slot(QUrl)
    def open(self, url: QUrl) -> None:
        self.opened.append(url.toString())


def test_a_web_link_opens_in_the_systems_browser(window, qtbot) -> None:
    viewer = window.show_help("latency-under-load")
    browser = Browser()
    QDesktopServices.setUrlHandler("https", browser, "open")
    try:
        click_link(qtbot, viewer, "https://www.dslreports.com/faq/17930")
    finally:
        QDesktopServices.unsetUrlHandler("https")
    assert browser.opened == ["https://www.dslreports.com/faq/17930"]
    assert viewer.page == "latency-under-load"  # the guide stays where it was


def test_every_page_renders_with_its_title_and_pictures(window, qtbot) -> None:
    viewer = window.show_help("index")
    viewer.resize(1280, 800)
    for code in LANGUAGES:
        viewer.set_language(code)
        for name in pages(code):
            viewer.show_page(name)
            path = MANUAL_DIR / code / f"{name}.md"
            assert viewer.current_path == path
            assert first_line(viewer) == page_title(path), path
        viewer.show_page("desktop-app")
        document = viewer.browser.document()
        pictures = [
            fragment.charFormat().toImageFormat().name()
            for block in _blocks(document)
            for fragment in _fragments(block)
            if fragment.charFormat().isImageFormat()
        ]
        assert len(pictures) >= 12, pictures
        for name in pictures:
            image = document.resource(QTextDocument.ResourceType.ImageResource, QUrl(name))
            assert image is not None and not image.isNull(), name
            assert image.width() <= viewer.browser.viewport().width(), name  # scaled to fit the viewer


def _blocks(document):  # type: ignore[no-untyped-def]
    block = document.begin()
    while block.isValid():
        yield block
        block = block.next()


def _fragments(block):  # type: ignore[no-untyped-def]
    it = block.begin()
    while not it.atEnd():
        yield it.fragment()
        it += 1


def test_the_first_start_shows_getting_started_once(qapp, qtbot, tmp_path: Path) -> None:
    from desktop.app.main import build_window

    fresh = QSettings(str(tmp_path / "fresh.ini"), QSettings.Format.IniFormat)
    assert fresh.allKeys() == []
    first = build_window(qapp, fresh, warm=False)
    qtbot.addWidget(first)
    first.show()
    qtbot.waitUntil(lambda: first.help_viewer is not None and first.help_viewer.isVisible(), timeout=5_000)
    assert first.help_viewer.page == "getting-started"
    first.close()
    first.context.workers.wait(10_000)
    first.language.apply("en")

    again = QSettings(str(tmp_path / "fresh.ini"), QSettings.Format.IniFormat)
    assert AppSettings(again).getting_started_shown and not AppSettings(again).first_start
    second = build_window(qapp, again, warm=False)
    qtbot.addWidget(second)
    second.show()
    qapp.processEvents()  # the greeting would have been queued for the first turn of the event loop
    qapp.processEvents()
    assert second.help_viewer is None
    second.close()
    second.context.workers.wait(10_000)


def test_a_start_that_only_measures_itself_greets_nobody(qapp, qtbot, tmp_path: Path) -> None:
    from desktop.app.main import build_window

    fresh = QSettings(str(tmp_path / "bench.ini"), QSettings.Format.IniFormat)
    win = build_window(qapp, fresh, warm=False, welcome=False)
    qtbot.addWidget(win)
    win.show()
    qapp.processEvents()
    qapp.processEvents()
    assert win.help_viewer is None
    win.close()
    win.context.workers.wait(10_000)
