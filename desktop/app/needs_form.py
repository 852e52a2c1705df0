"""The training-needs form: the fields of a needs profile (`catalogs.needs`), validated by the same
`validate_needs` that reads needs files, so a value the form accepts is one `linkvet size`/`score` accept.
`changed` fires on every edit; `profile()` is the validated profile or raises with the field at fault."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QEvent, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QLabel,
    QLineEdit,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from catalogs.needs import NeedsProfile, load_needs, validate_needs

MODES = ("pretrain", "full", "lora", "qlora")
PRECISIONS = ("bf16", "fp16", "fp32")
OPTIMIZERS = ("adamw", "adam", "adamw-8bit", "sgd")
STRATEGIES = ("dp", "zero1", "zero2", "zero3", "fsdp")
DEFAULTS: dict[str, Any] = {
    "name": "70B dense, full fine-tune, ZeRO-3",
    "model": {"params": 70e9, "architecture": "dense"},
    "training": {"mode": "full", "strategy": "zero3", "tokens_per_step": 4_194_304},
    "cluster": {"gpus_wanted": 32},
    # No vantage: measurements from any vantage point count (the app's own probes record none).
    "location": {"team": "Shanghai"},
    "budget": {"gpu_hour_max": 12.0, "currency": "USD"},
}


def _combo(items: tuple[str, ...]) -> QComboBox:
    box = QComboBox()
    box.addItems(items)
    return box


def _spin(low: int, high: int, special: bool = False) -> QSpinBox:
    box = QSpinBox()
    box.setRange(low, high)
    box.setGroupSeparatorShown(True)
    if special:
        box.setMinimum(0)
    return box


class NeedsForm(QWidget):
    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.name = QLineEdit()
        self.params_b = QDoubleSpinBox()
        self.params_b.setRange(0.001, 100_000)
        self.params_b.setDecimals(3)
        self.params_b.setSuffix(" B")
        self.architecture = _combo(("dense", "moe"))
        self.active_b = QDoubleSpinBox()
        self.active_b.setRange(0, 100_000)
        self.active_b.setDecimals(3)
        self.active_b.setSuffix(" B")
        self.mode = _combo(MODES)
        self.precision = _combo(PRECISIONS)
        self.optimizer = _combo(OPTIMIZERS)
        self.strategy = _combo(STRATEGIES)
        self.tp = _spin(1, 1024)
        self.pp = _spin(1, 1024)
        self.seq_len = _spin(1, 10_000_000)
        self.micro_batch = _spin(1, 100_000)
        self.gpus_wanted = _spin(0, 1_000_000, special=True)
        self.nodes_wanted = _spin(0, 100_000, special=True)
        self.tokens_per_step = _spin(0, 2_000_000_000, special=True)
        self.team = QLineEdit()
        self.vantage = QLineEdit()
        self.gpu_hour_max = QDoubleSpinBox()
        self.gpu_hour_max.setRange(0, 10_000)
        self.gpu_hour_max.setDecimals(2)
        self.currency = QLineEdit()
        self.currency.setMaxLength(3)
        self.error = QLabel()
        self.error.setWordWrap(True)
        self.error.setStyleSheet("color: #c62828")

        self.groups: list[tuple[QGroupBox, QFormLayout, list[QLabel]]] = []
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        sections = [
            [self.name, self.params_b, self.architecture, self.active_b],
            [
                self.mode,
                self.precision,
                self.optimizer,
                self.strategy,
                self.tp,
                self.pp,
                self.seq_len,
                self.micro_batch,
                self.tokens_per_step,
            ],
            [self.gpus_wanted, self.nodes_wanted, self.team, self.vantage, self.gpu_hour_max, self.currency],
        ]
        for fields in sections:
            box = QGroupBox()
            form = QFormLayout(box)
            labels = [QLabel() for _ in fields]
            for label, field in zip(labels, fields, strict=True):
                form.addRow(label, field)
            self.groups.append((box, form, labels))
            layout.addWidget(box)
        layout.addWidget(self.error)
        layout.addStretch(1)
        self.set_values(DEFAULTS)
        for widget in (self.name, self.team, self.vantage, self.currency):
            widget.textChanged.connect(self._edited)
        for widget in (self.params_b, self.active_b, self.gpu_hour_max):
            widget.valueChanged.connect(self._edited)
        for spin in (
            self.tp,
            self.pp,
            self.seq_len,
            self.micro_batch,
            self.gpus_wanted,
            self.nodes_wanted,
            self.tokens_per_step,
        ):
            spin.valueChanged.connect(self._edited)
        for combo in (self.architecture, self.mode, self.precision, self.optimizer, self.strategy):
            combo.currentIndexChanged.connect(self._edited)
        self.retranslate()

    def _edited(self, *_: object) -> None:
        self.active_b.setEnabled(self.architecture.currentText() == "moe")
        self.changed.emit()

    # -- values ------------------------------------------------------------------------------------------

    def values(self) -> dict[str, Any]:
        """The form as the plain data of a needs profile (what `validate_needs` reads)."""
        moe = self.architecture.currentText() == "moe"
        return {
            "name": self.name.text().strip() or "training needs",
            "model": {
                "params": self.params_b.value() * 1e9,
                "architecture": self.architecture.currentText(),
                **({"active_params": self.active_b.value() * 1e9} if moe and self.active_b.value() else {}),
            },
            "training": {
                "mode": self.mode.currentText(),
                "precision": self.precision.currentText(),
                "optimizer": self.optimizer.currentText(),
                "strategy": self.strategy.currentText(),
                "tensor_parallel": self.tp.value(),
                "pipeline_parallel": self.pp.value(),
                "sequence_length": self.seq_len.value(),
                "micro_batch": self.micro_batch.value(),
                **({"tokens_per_step": self.tokens_per_step.value()} if self.tokens_per_step.value() else {}),
            },
            "cluster": {
                **({"gpus_wanted": self.gpus_wanted.value()} if self.gpus_wanted.value() else {}),
                **({"nodes_wanted": self.nodes_wanted.value()} if self.nodes_wanted.value() else {}),
            },
            "location": {
                "team": self.team.text().strip() or None,
                "vantage": self.vantage.text().strip() or None,
            },
            "budget": {
                **({"gpu_hour_max": self.gpu_hour_max.value()} if self.gpu_hour_max.value() else {}),
                "currency": self.currency.text().strip().upper() or "USD",
            },
        }

    def set_values(self, data: dict[str, Any]) -> None:
        """Fill the form from a needs profile's plain data (missing parts take the profile's defaults)."""
        profile = validate_needs({**{"model": DEFAULTS["model"]}, **data})
        blockers = [w.blockSignals(True) for w in self._fields()]
        m, t, c, loc, b = profile.model, profile.training, profile.cluster, profile.location, profile.budget
        self.name.setText(profile.name)
        self.params_b.setValue(m.params / 1e9)
        self.architecture.setCurrentText(m.architecture)
        self.active_b.setValue((m.active_params or 0) / 1e9)
        self.mode.setCurrentText(t.mode)
        self.precision.setCurrentText(t.precision)
        self.optimizer.setCurrentText(t.optimizer)
        self.strategy.setCurrentText(t.strategy)
        self.tp.setValue(t.tensor_parallel)
        self.pp.setValue(t.pipeline_parallel)
        self.seq_len.setValue(t.sequence_length)
        self.micro_batch.setValue(t.micro_batch)
        self.tokens_per_step.setValue(min(t.tokens_per_step or 0, self.tokens_per_step.maximum()))
        self.gpus_wanted.setValue(c.gpus_wanted or 0)
        self.nodes_wanted.setValue(c.nodes_wanted or 0)
        self.team.setText(loc.team or "")
        self.vantage.setText(loc.vantage or "")
        self.gpu_hour_max.setValue(b.gpu_hour_max or 0)
        self.currency.setText(b.currency)
        for widget, blocked in zip(self._fields(), blockers, strict=True):
            widget.blockSignals(blocked)
        self._edited()

    def _fields(self) -> list[QWidget]:
        return [
            self.name,
            self.params_b,
            self.architecture,
            self.active_b,
            self.mode,
            self.precision,
            self.optimizer,
            self.strategy,
            self.tp,
            self.pp,
            self.seq_len,
            self.micro_batch,
            self.tokens_per_step,
            self.gpus_wanted,
            self.nodes_wanted,
            self.team,
            self.vantage,
            self.gpu_hour_max,
            self.currency,
        ]

    def profile(self) -> NeedsProfile:
        """The validated profile; raises `catalogs.errors.NeedsProfileError` naming the field at fault."""
        return validate_needs(self.values())

    def load_file(self, path: Path) -> NeedsProfile:
        """Fill the form from a needs file (raises `NeedsProfileError` with file, line and field)."""
        profile = load_needs(path)
        self.set_values(profile.model_dump(mode="json"))
        return profile

    # -- language ----------------------------------------------------------------------------------------

    def retranslate(self) -> None:
        titles = [self.tr("Model"), self.tr("Training"), self.tr("Cluster, place and budget")]
        texts = [
            [
                self.tr("Name"),
                self.tr("Parameters"),
                self.tr("Architecture"),
                self.tr("Active parameters (MoE)"),
            ],
            [
                self.tr("Mode"),
                self.tr("Precision"),
                self.tr("Optimizer"),
                self.tr("Parallel strategy"),
                self.tr("Tensor parallel"),
                self.tr("Pipeline parallel"),
                self.tr("Sequence length"),
                self.tr("Micro-batch per GPU"),
                self.tr("Tokens per step"),
            ],
            [
                self.tr("GPUs wanted"),
                self.tr("Nodes wanted"),
                self.tr("Team works in"),
                self.tr("Vantage (office probe name)"),
                self.tr("Budget per GPU-hour"),
                self.tr("Currency"),
            ],
        ]
        for (box, _, labels), title, words in zip(self.groups, titles, texts, strict=True):
            box.setTitle(title)
            for label, word in zip(labels, words, strict=True):
                label.setText(word)
        none = self.tr("not set")
        for spin in (self.gpus_wanted, self.nodes_wanted, self.tokens_per_step):
            spin.setSpecialValueText(none)
        self.gpu_hour_max.setSpecialValueText(self.tr("no limit"))
        self.vantage.setPlaceholderText(self.tr("any (as the probes recorded it)"))

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)
