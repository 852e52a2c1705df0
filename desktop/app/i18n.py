"""Run-time language switching.

The sources are Qt Linguist files in `translations/` (`linkvet_zh_CN.ts`, refreshed with
`pyside6-lupdate` over `desktop/app`), compiled to `.qm` with `pyside6-lrelease`; both are committed so a
checkout runs without the Qt tools. Switching installs the new translators and switches the core's gettext
domains too (`desktop.i18n.set_language`: scorecard reasons, verdicts and doubts, error messages, and the
probing child processes started from then on); Qt then sends every widget a `LanguageChange` event and
each screen re-reads its texts in `retranslate()`.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, QObject, QTranslator, Signal

from desktop.i18n import set_language

TRANSLATIONS_DIR = Path(__file__).resolve().parent / "translations"
LANGUAGE_NAMES = {"en": "English", "zh_CN": "简体中文"}


def qm_path(code: str) -> Path:
    return TRANSLATIONS_DIR / f"linkvet_{code}.qm"


def qt_translation_folders() -> list[str]:
    """Where Qt's own translations (`qtbase_zh_CN.qm`) may be: the folder Qt reports, PySide6's own
    `Qt/translations` (a pip install), and beside a frozen program (PyInstaller's bundle)."""
    import sys

    import PySide6

    folders = [
        QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath),
        str(Path(PySide6.__file__).resolve().parent / "Qt" / "translations"),
    ]
    bundle = getattr(sys, "_MEIPASS", None)
    if bundle:
        folders += [str(Path(bundle) / "PySide6" / "Qt" / "translations"), str(Path(bundle) / "translations")]
    return list(dict.fromkeys(f for f in folders if f))


class LanguageSwitcher(QObject):
    """Owns the installed translators; `switched(code)` fires after a language took effect."""

    switched = Signal(str)

    def __init__(self, app: QCoreApplication, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._app = app
        self._installed: list[QTranslator] = []
        self.code = "en"

    def apply(self, code: str) -> None:
        """Install the translations for `code` ("en" removes them); raises if ours cannot be loaded."""
        for translator in self._installed:
            self._app.removeTranslator(translator)
        self._installed = []
        if code != "en":
            ours = QTranslator(self)
            if not ours.load(str(qm_path(code))):
                raise FileNotFoundError(f"{qm_path(code)}: translation file missing or unreadable")
            qt_own = QTranslator(self)
            if any(qt_own.load(f"qtbase_{code}", folder) for folder in qt_translation_folders()):
                self._installed.append(qt_own)  # Qt's own words: file dialogs ("Look in:"), standard buttons
            self._installed.append(ours)
            for translator in self._installed:
                self._app.installTranslator(translator)
        QLocale.setDefault(QLocale(code if code != "en" else "en_US"))
        set_language(code)  # the core's messages (probes, catalogs, desktop) in the same language
        self.code = code
        self.switched.emit(code)
