"""Qt's own words that its shipped Chinese translation (qtbase_zh_CN.qm) lacks for this Qt version: Qt 6
put an accelerator into the file dialog's labels ("&Look in:", "Files of &type:"), and the translation still
has them without it, so the dialog was half English. Listed here so that `pyside6-lupdate` puts them into
linkvet's own translation file, under Qt's own context (QFileDialog); linkvet's translator is installed after
Qt's and is asked first. `tests/gui/test_language.py` opens Qt's dialogs in Chinese and finds no English
label."""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP

QT_WORDS = (
    QT_TRANSLATE_NOOP("QFileDialog", "&Look in:"),
    QT_TRANSLATE_NOOP("QFileDialog", "Files of &type:"),
)
