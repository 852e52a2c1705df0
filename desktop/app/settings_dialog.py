"""The Settings dialog: data folder, peak windows and the charts' time zone, language. Where the run's `--db`
or `LINKVET_DB` chose the store, or an open evaluation brings its own peak windows, the dialog says so beside
the fields it overrides.

Peak windows are read by `probes.peak.PeakWindow.parse`, the same parser plan files and the CLI use, and a
bad line is reported under the box rather than saved.
"""

from __future__ import annotations

from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from PySide6.QtCore import QEvent
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop.app.errors import error_text
from desktop.app.i18n import LANGUAGE_NAMES
from desktop.app.settings import AppSettings, parse_peak_windows
from probes.peak import PeakWindowError
from probes.store_location import StoreUrl, parse_location


class SettingsDialog(QDialog):
    def __init__(self, settings: AppSettings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.settings = settings
        self.data_dir = QLineEdit(str(settings.data_dir))
        self.browse = QPushButton()
        self.browse.clicked.connect(self._browse)
        folder = QHBoxLayout()
        folder.addWidget(self.data_dir, 1)
        folder.addWidget(self.browse)
        self.store_url = QLineEdit(settings.store_url)
        self.store_url.setPlaceholderText("postgresql://agent@db.example/linkvet")
        self.store_help = QLabel()
        self.store_help.setWordWrap(True)
        self.store_help.setObjectName("screenHint")
        self.peak = QPlainTextEdit("\n".join(settings.peak_window_texts))
        self.peak.setFixedHeight(80)
        self.time_zone = QComboBox()
        self.time_zone.setEditable(True)
        self.time_zone.addItems(sorted(available_timezones()))
        self.time_zone.setCurrentText(settings.time_zone)
        self.language = QComboBox()
        for code, name in LANGUAGE_NAMES.items():
            self.language.addItem(name, code)
        self.language.setCurrentIndex(max(0, self.language.findData(settings.language)))
        self.error = QLabel()
        self.error.setStyleSheet("color: #c62828")
        self.error.setWordWrap(True)
        self.peak_help = QLabel()
        self.peak_help.setWordWrap(True)
        self.peak_help.setObjectName("screenHint")
        self.override_note = QLabel()  # what this run takes from elsewhere (--db, LINKVET_DB, the evaluation)
        self.override_note.setWordWrap(True)
        self.override_note.setStyleSheet("color: #8d6e00")
        self.store_url.setEnabled(settings.store_fixed_by is None)
        self.form = QFormLayout()
        self.form_labels = [QLabel() for _ in range(5)]
        self.form.addRow(self.form_labels[0], folder)
        self.form.addRow(self.form_labels[4], self.store_url)
        self.form.addRow("", self.store_help)
        self.form.addRow(self.form_labels[1], self.peak)
        self.form.addRow("", self.peak_help)
        self.form.addRow(self.form_labels[2], self.time_zone)
        self.form.addRow(self.form_labels[3], self.language)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.override_note)
        layout.addLayout(self.form)
        layout.addWidget(self.error)
        layout.addWidget(self.buttons)
        self.setMinimumWidth(560)
        self.retranslate()

    def _browse(self) -> None:
        chosen = QFileDialog.getExistingDirectory(self, self.tr("Data folder"), self.data_dir.text())
        if chosen:
            self.data_dir.setText(chosen)

    def retranslate(self) -> None:
        self.setWindowTitle(self.tr("Settings"))
        self.browse.setText(self.tr("Browse…"))
        self.peak_help.setText(
            self.tr("One window per line: HH:MM-HH:MM Zone/Name [days], e.g. 20:00-23:00 Asia/Shanghai")
        )
        self.store_help.setText(
            self.tr(
                "Team mode: a PostgreSQL store the offices share, instead of the data folder's SQLite file. "
                "Leave empty for the file. The password comes from ~/.pgpass (PGPASSFILE), never the URL."
            )
        )
        texts = [
            self.tr("Data folder"),
            self.tr("Peak windows"),
            self.tr("Charts' time zone"),
            self.tr("Language"),
            self.tr("Shared store (URL)"),
        ]
        for label, text in zip(self.form_labels, texts, strict=True):
            label.setText(text)
        notes = []
        if self.settings.store_fixed_by is not None:
            notes.append(
                self.tr(
                    "This run's store is {store} (from {source}); the store set here counts when linkvet starts "
                    "without it."
                ).format(store=self.settings.store_location, source=self.settings.store_fixed_by)
            )
        windows = self.settings.evaluation_windows
        if windows is not None:
            notes.append(
                self.tr(
                    "The open evaluation {name} has its own peak windows ({windows}): they count while it is "
                    "open. The ones here count when no evaluation is open."
                ).format(name=self.settings.evaluation, windows=", ".join(str(w) for w in windows))
            )
        self.override_note.setText("\n".join(notes))
        self.override_note.setVisible(bool(notes))

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def accept(self) -> None:
        try:
            windows = parse_peak_windows(self.peak.toPlainText().splitlines())
        except PeakWindowError as exc:
            self.error.setText(error_text(exc))
            return
        zone = self.time_zone.currentText().strip()
        try:
            ZoneInfo(zone)
        except (ZoneInfoNotFoundError, ValueError):
            self.error.setText(
                self.tr("Unknown time zone {zone!r}: pick an IANA name such as Asia/Shanghai.").format(
                    zone=zone
                )
            )
            return
        folder = self.data_dir.text().strip()
        if not folder:
            self.error.setText(self.tr("Choose a data folder."))
            return
        url = self.store_url.text().strip()
        if url:
            try:
                location = parse_location(url)
            except ValueError as exc:  # names the URL (without a password) and what is wrong with it
                self.error.setText(str(exc))
                return
            if not isinstance(location, StoreUrl):
                self.error.setText(
                    self.tr("The shared store is a postgresql:// URL; leave it empty for the file.")
                )
                return
            if location.password:  # the settings file would keep it: libpq's password file is the place
                self.error.setText(
                    self.tr("Put the password in ~/.pgpass (or the file PGPASSFILE names), not in the URL.")
                )
                return
        self.settings.data_dir = Path(folder).expanduser()
        self.settings.store_url = url
        self.settings.peak_windows = windows
        self.settings.time_zone = zone
        self.settings.language = str(self.language.currentData())
        super().accept()
