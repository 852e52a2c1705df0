"""Add or edit a custom target. The address is read by `probes.target.parse_target`, the same function the
CLI uses for `linkvet probe HOST_OR_URL`, so what is accepted here is accepted there and vice versa."""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from desktop.app.errors import error_text
from desktop.usecases.probe_list import ORIGIN_CUSTOM, TargetEntry
from probes.errors import TargetError
from probes.routes.claims import CLAIMED_LINE_TYPES
from probes.target import Method, parse_target


class TargetDialog(QDialog):
    def __init__(self, parent: QWidget | None = None, entry: TargetEntry | None = None) -> None:
        super().__init__(parent)
        self._origin = entry.origin if entry is not None else ORIGIN_CUSTOM
        self._enabled = entry.enabled if entry is not None else True
        self.address = QLineEdit()
        self.method = QComboBox()
        self.method.addItem("", None)
        for method in Method:
            self.method.addItem(str(method), method)
        self.port = QSpinBox()
        self.port.setRange(0, 65535)
        self.name = QLineEdit()
        self.provider = QLineEdit()
        self.region = QLineEdit()
        self.line_type = QComboBox()
        self.line_type.setEditable(True)
        self.line_type.addItem("")
        self.line_type.addItems(CLAIMED_LINE_TYPES)
        self.error = QLabel()
        self.error.setStyleSheet("color: #c62828")
        self.error.setWordWrap(True)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.form = QFormLayout()
        fields = (self.address, self.method, self.port, self.name, self.provider, self.region, self.line_type)
        self.form_labels = [QLabel() for _ in fields]
        for label, field in zip(self.form_labels, fields, strict=True):
            self.form.addRow(label, field)
        layout = QVBoxLayout(self)
        layout.addLayout(self.form)
        layout.addWidget(self.error)
        layout.addWidget(self.buttons)
        self.setMinimumWidth(460)
        if entry is not None:
            self._fill(entry)
        self.retranslate()
        self._entry: TargetEntry | None = None

    def _fill(self, entry: TargetEntry) -> None:
        t = entry.target
        self.address.setText(t.url or (str(t.host) if t.host else ""))
        self.method.setCurrentIndex(self.method.findData(t.method))
        self.port.setValue(t.port or 0)
        self.name.setText(t.name)
        self.provider.setText(t.provider or "")
        self.region.setText(t.region or "")
        self.line_type.setCurrentText(t.line_type or "")

    def retranslate(self) -> None:
        self.setWindowTitle(self.tr("Target"))
        self.method.setItemText(0, self.tr("automatic (host: icmp, host:port: tcp, URL: http)"))
        self.port.setSpecialValueText(self.tr("none"))
        self.address.setPlaceholderText(self.tr("host, address, host:port or http(s):// URL"))
        self.name.setPlaceholderText(self.tr("shown in tables and charts (default: the address)"))
        self.provider.setPlaceholderText(self.tr("catalog provider id, e.g. raksmart"))
        self.region.setPlaceholderText(self.tr("catalog region id, e.g. los-angeles"))
        labels = [
            self.tr("Address"),
            self.tr("Method"),
            self.tr("Port"),
            self.tr("Name"),
            self.tr("Provider"),
            self.tr("Region"),
            self.tr("Claimed line type"),
        ]
        for label, text in zip(self.form_labels, labels, strict=True):
            label.setText(text)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def build_entry(self) -> TargetEntry:
        """The target the form describes; raises `TargetError` saying what is wrong."""
        labels = {
            "provider": self.provider.text().strip() or None,
            "region": self.region.text().strip() or None,
            "line_type": self.line_type.currentText().strip() or None,
        }
        target = parse_target(
            self.address.text(), self.method.currentData(), self.port.value() or None, **labels
        )
        name = self.name.text().strip()
        if name:
            from dataclasses import replace

            target = replace(target, name=name)
        return TargetEntry(target, self._origin, self._enabled)

    def accept(self) -> None:
        try:
            self._entry = self.build_entry()
        except TargetError as exc:
            self.error.setText(error_text(exc))
            self.address.setFocus(Qt.FocusReason.OtherFocusReason)
            return
        super().accept()

    @property
    def entry(self) -> TargetEntry | None:
        return self._entry
