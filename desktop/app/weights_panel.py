"""The Needs & score screen's weights: the ranking method and one slider per weighted checklist item (0-40,
starting at the checklist's weight or the one saved in the settings), with a way back to the checklist's.
`changed` fires when a weight or the method changes; every change is saved in the settings."""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtWidgets import QComboBox, QGridLayout, QLabel, QPushButton, QSlider, QWidget

from catalogs.checklist import Checklist
from desktop.app.checklist_words import criterion_title
from desktop.app.settings import AppSettings

WEIGHT_MAX = 40


class WeightsPanel(QWidget):
    changed = Signal()

    def __init__(self, settings: AppSettings, checklist: Checklist, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.settings = settings
        self.defaults = {c.id: c.weight for c in checklist.weighted}
        self.sliders: dict[str, QSlider] = {}
        self.slider_labels: dict[str, QLabel] = {}
        self.slider_values: dict[str, QLabel] = {}
        grid = QGridLayout(self)
        self.method = QComboBox()
        self.method.addItem("", "weighted-sum")
        self.method.addItem("", "topsis")
        self.method_label = QLabel()
        grid.addWidget(self.method_label, 0, 0)
        grid.addWidget(self.method, 0, 1, 1, 2)
        saved = settings.score_weights
        for row, item in enumerate(checklist.weighted, start=1):
            label = QLabel()
            label.setWordWrap(True)
            slider = QSlider(Qt.Orientation.Horizontal)
            slider.setRange(0, WEIGHT_MAX)
            slider.setValue(round(saved.get(item.id, item.weight)))
            value = QLabel(str(slider.value()))
            value.setMinimumWidth(24)
            slider.valueChanged.connect(lambda v, key=item.id: self._weight_moved(key, v))
            grid.addWidget(label, row, 0)
            grid.addWidget(slider, row, 1)
            grid.addWidget(value, row, 2)
            self.sliders[item.id] = slider
            self.slider_labels[item.id] = label
            self.slider_values[item.id] = value
        self.reset_weights = QPushButton()
        grid.addWidget(self.reset_weights, len(checklist.weighted) + 1, 0, 1, 3)
        grid.setColumnStretch(0, 3)
        grid.setColumnStretch(1, 2)
        self.method.setCurrentIndex(max(0, self.method.findData(settings.score_method)))
        self.method.currentIndexChanged.connect(self._method_changed)
        self.reset_weights.clicked.connect(self.reset_all_weights)
        self.retranslate()

    def weights(self) -> dict[str, float]:
        return {key: float(slider.value()) for key, slider in self.sliders.items()}

    def set_weight(self, criterion: str, value: float) -> None:
        self.sliders[criterion].setValue(round(value))

    def reset_all_weights(self) -> None:
        for key, slider in self.sliders.items():
            slider.blockSignals(True)
            slider.setValue(round(self.defaults[key]))
            self.slider_values[key].setText(str(slider.value()))
            slider.blockSignals(False)
        self.settings.score_weights = self.weights()
        self.changed.emit()

    def _weight_moved(self, key: str, value: int) -> None:
        self.slider_values[key].setText(str(value))
        self.settings.score_weights = self.weights()
        self.changed.emit()

    def _method_changed(self, *_: object) -> None:
        self.settings.score_method = str(self.method.currentData())
        self.changed.emit()

    def retranslate(self) -> None:
        self.method_label.setText(self.tr("Ranking method"))
        self.method.setItemText(0, self.tr("weighted sum"))
        self.method.setItemText(1, self.tr("TOPSIS"))
        self.reset_weights.setText(self.tr("Back to the checklist's weights"))
        for key, label in self.slider_labels.items():
            label.setText(criterion_title(key))

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)
