"""Help → Getting started and Help → User guide: the manual's Markdown pages (`desktop.manual`) in a text
browser, in the window's language.

Qt renders the Markdown itself (`QTextBrowser.setSource` on a `.md` file), so relative links between pages
resolve against the page shown and Back / Forward follow them. A link to another page (or any local file
of the manual) opens in the viewer; a web link (http, https, mailto) opens in the system's browser. When the
window's language changes, the page shown is shown again in the new language. Pictures wider than the
viewer are scaled down to fit it.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QEvent, QSize, Qt, QUrl, Signal
from PySide6.QtGui import QColor, QDesktopServices, QImage, QKeySequence, QTextDocument, QTextFormat
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QPushButton,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from desktop.manual import INDEX, language_of, page_path, page_title

EXTERNAL_SCHEMES = ("http", "https", "mailto")
IMAGE_MARGIN_PX = 48  # room the document's margins and a vertical scroll bar take beside a picture
CODE_BACKGROUND = QColor("#eef1f4")


class ManualBrowser(QTextBrowser):
    """A text browser that scales the manual's pictures to the width it has and sets code blocks apart."""

    def doSetSource(
        self, name: QUrl | str, type: QTextDocument.ResourceType = QTextDocument.ResourceType.UnknownResource
    ) -> None:
        """Every page shown (a link, Back, Forward) passes here: Qt's own loading, then the code blocks."""
        super().doSetSource(name, type)
        self.document().setDocumentMargin(14)
        cursor = self.textCursor()
        block = self.document().begin()
        while block.isValid():
            form = block.blockFormat()
            if form.hasProperty(QTextFormat.Property.BlockCodeFence):  # fenced code: a shaded block
                form.setBackground(CODE_BACKGROUND)
                form.setLeftMargin(6)
            elif form.headingLevel() > 1:  # a section starts with some room above it
                form.setTopMargin(14)
            else:
                block = block.next()
                continue
            cursor.setPosition(block.position())
            cursor.setBlockFormat(form)
            block = block.next()

    def loadResource(self, kind: int, name: QUrl | str) -> object:
        data = super().loadResource(kind, name)
        if kind != QTextDocument.ResourceType.ImageResource.value or not data:
            return data
        image = QImage.fromData(data) if not isinstance(data, QImage) else data
        if image.isNull():
            return data
        widest = max(320, self.viewport().width() - IMAGE_MARGIN_PX)
        if image.width() > widest:
            image = image.scaledToWidth(widest, Qt.TransformationMode.SmoothTransformation)
        return image


class HelpViewer(QDialog):
    """The user guide's window: Back, Forward, Contents, and the page. One per main window; `show_page`
    brings it to the front on the page asked for. `missing(path)` fires for a link to a file that is not
    there (the window says so in its status bar)."""

    missing = Signal(str)

    def __init__(self, language: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("helpViewer")
        self.language = language
        self.browser = ManualBrowser()
        self.browser.setObjectName("helpBrowser")
        self.browser.setOpenLinks(False)  # links are followed here: pages inside, the web outside
        self.back = QPushButton()
        self.back.setShortcut(QKeySequence.StandardKey.Back)
        self.back.setEnabled(False)
        self.back.clicked.connect(self.browser.backward)
        self.forward = QPushButton()
        self.forward.setShortcut(QKeySequence.StandardKey.Forward)
        self.forward.setEnabled(False)
        self.forward.clicked.connect(self.browser.forward)
        self.browser.backwardAvailable.connect(self.back.setEnabled)
        self.browser.forwardAvailable.connect(self.forward.setEnabled)
        self.browser.anchorClicked.connect(self.follow)
        self.browser.sourceChanged.connect(self._source_changed)
        self.contents = QPushButton()
        self.contents.clicked.connect(lambda: self.show_page(INDEX))
        self.close_button = QPushButton()
        self.close_button.clicked.connect(self.close)
        buttons = QHBoxLayout()
        for button in (self.back, self.forward, self.contents):
            buttons.addWidget(button)
        buttons.addStretch(1)
        buttons.addWidget(self.close_button)
        layout = QVBoxLayout(self)
        layout.addLayout(buttons)
        layout.addWidget(self.browser, 1)
        self.retranslate()

    def sizeHint(self) -> QSize:
        return QSize(980, 720)

    # -- pages ---------------------------------------------------------------------------------------------

    @property
    def page(self) -> str | None:
        """The name of the manual's page shown ("getting-started"); None before one is shown or while a file
        outside the manual's pages is (the glossary)."""
        path = self.current_path
        return path.stem if path is not None and language_of(path) is not None else None

    @property
    def current_path(self) -> Path | None:
        url = self.browser.source()
        return Path(url.toLocalFile()) if url.isLocalFile() else None

    def show_page(self, page: str) -> None:
        """Show `page` of the manual in the viewer's language (English where it has no translation)."""
        self.browser.setSource(QUrl.fromLocalFile(str(page_path(page, self.language))))
        self.show()
        self.raise_()
        self.activateWindow()

    def set_language(self, language: str) -> None:
        """The window's language changed: show the same page in it."""
        if language == self.language:
            return
        self.language = language
        page = self.page
        if page is not None:
            self.browser.clearHistory()
            self.browser.setSource(QUrl.fromLocalFile(str(page_path(page, language))))

    def follow(self, link: QUrl) -> None:
        """A link was clicked: web links go to the system's browser, the manual's own files open here."""
        if link.scheme() in EXTERNAL_SCHEMES:
            QDesktopServices.openUrl(link)
            return
        target = self.browser.source().resolved(link)
        if not target.isLocalFile():
            QDesktopServices.openUrl(target)
        elif not Path(target.toLocalFile()).is_file():  # tests/test_manual.py keeps every link whole
            self.missing.emit(target.toLocalFile())
        else:
            self.browser.setSource(target)

    def _source_changed(self, url: QUrl) -> None:
        path = Path(url.toLocalFile()) if url.isLocalFile() else None
        title = page_title(path) if path is not None and path.is_file() else url.toString()
        guide = self.tr("linkvet user guide")
        shown = self.tr("{page} — linkvet user guide").format(page=title)
        self.setWindowTitle(guide if title in ("", guide) else shown)

    # -- language ------------------------------------------------------------------------------------------

    def retranslate(self) -> None:
        self.back.setText(self.tr("Back"))
        self.forward.setText(self.tr("Forward"))
        self.contents.setText(self.tr("Contents"))
        self.close_button.setText(self.tr("Close"))
        self._source_changed(self.browser.source())

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)
