"""The training-needs form: the commonly edited fields of a needs profile (`catalogs.needs`), validated by
the same `validate_needs` that reads needs files, so a value the form accepts is one `linkvet size`/`score`
accept. `changed` fires on every edit; `profile()` is the validated profile or raises with the field at fault.

The form does not show every field of a profile (the model's shape, MFU, memory reserve, …). A profile set
with `set_values` or `load_file` is kept whole as the base, and the form overlays only the fields the user
changed, so a loaded needs file ranks exactly as `linkvet score --needs FILE` ranks it; the fields kept from
the base without a widget are listed under the form."""

from __future__ import annotations

import copy
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

from catalogs.needs import EXAMPLE_NEEDS, NeedsProfile, load_needs, validate_needs

MODES = ("pretrain", "full", "lora", "qlora")
PRECISIONS = ("bf16", "fp16", "fp32")
OPTIMIZERS = ("adamw", "adam", "adamw-8bit", "sgd")
STRATEGIES = ("dp", "zero1", "zero2", "zero3", "fsdp")
FieldPath = tuple[str, ...]
# The profile fields the form has a widget for; every other field is kept from the base profile.
FORM_FIELDS: tuple[FieldPath, ...] = (
    ("name",),
    ("model", "params"),
    ("model", "architecture"),
    ("model", "active_params"),
    ("training", "mode"),
    ("training", "precision"),
    ("training", "optimizer"),
    ("training", "strategy"),
    ("training", "tensor_parallel"),
    ("training", "pipeline_parallel"),
    ("training", "sequence_length"),
    ("training", "micro_batch"),
    ("training", "tokens_per_step"),
    ("training", "target_step_seconds"),
    ("cluster", "gpus_wanted"),
    ("cluster", "nodes_wanted"),
    ("location", "team"),
    ("location", "data"),
    ("location", "vantage"),
    ("budget", "gpu_hour_max"),
    ("budget", "month_max"),
    ("budget", "currency"),
)
# The model's shape describes the model whose parameter count came with it: a new count drops it (sizing
# then estimates the shape from the count, and says so in its assumptions).
MODEL_SHAPE: tuple[FieldPath, ...] = (
    ("model", "layers"),
    ("model", "hidden_size"),
    ("model", "attention_heads"),
)


def example_profile() -> dict[str, Any]:
    """The bundled example (`catalogs/needs/example-70b-full.toml`, what `linkvet score --needs` is shown
    with in the README) as plain data, without its vantage: the app's own probes record no vantage, and
    with one set only measurements from that vantage would count."""
    data = load_needs(EXAMPLE_NEEDS).model_dump(mode="json")
    data["location"]["vantage"] = None
    return data


DEFAULTS: dict[str, Any] = example_profile()


def _get(data: dict[str, Any], path: FieldPath) -> Any:
    node: Any = data
    for key in path:
        if not isinstance(node, dict):
            return None
        node = node.get(key)
    return node


def _put(data: dict[str, Any], path: FieldPath, value: Any) -> None:
    for key in path[:-1]:
        data = data.setdefault(key, {})
    data[path[-1]] = value


def _leaves(data: dict[str, Any], prefix: FieldPath = ()) -> list[tuple[FieldPath, Any]]:
    out: list[tuple[FieldPath, Any]] = []
    for key, value in data.items():
        if isinstance(value, dict):
            out += _leaves(value, (*prefix, key))
        else:
            out.append(((*prefix, key), value))
    return out


def _combo(items: tuple[str, ...]) -> QComboBox:
    box = QComboBox()
    box.addItems(items)
    return box


def _spin(low: int, high: int) -> QSpinBox:
    box = QSpinBox()
    box.setRange(low, high)
    box.setGroupSeparatorShown(True)
    return box


def _decimal(high: float, decimals: int = 2, suffix: str = "") -> QDoubleSpinBox:
    box = QDoubleSpinBox()
    box.setRange(0, high)
    box.setDecimals(decimals)
    box.setGroupSeparatorShown(True)
    if suffix:
        box.setSuffix(suffix)
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
        self.active_b = _decimal(100_000, 3, " B")
        self.mode = _combo(MODES)
        self.precision = _combo(PRECISIONS)
        self.optimizer = _combo(OPTIMIZERS)
        self.strategy = _combo(STRATEGIES)
        self.tp = _spin(1, 1024)
        self.pp = _spin(1, 1024)
        self.seq_len = _spin(1, 10_000_000)
        self.micro_batch = _spin(1, 100_000)
        self.tokens_per_step = _spin(0, 2_000_000_000)  # 0: not set
        self.target_step_s = _decimal(86_400, 2, " s")  # 0: estimated from the GPU's speed
        self.gpus_wanted = _spin(0, 1_000_000)
        self.nodes_wanted = _spin(0, 100_000)
        self.team = QLineEdit()
        self.data_location = QLineEdit()
        self.vantage = QLineEdit()
        self.gpu_hour_max = _decimal(10_000)
        self.month_max = _decimal(100_000_000)  # a spin box is as wide as its largest value
        self.currency = QLineEdit()
        self.currency.setMaxLength(3)
        self.kept = QLabel()  # the base profile's fields the form has no widget for
        self.kept.setWordWrap(True)
        self.kept.setObjectName("screenHint")
        self.error = QLabel()
        self.error.setWordWrap(True)
        self.error.setStyleSheet("color: #c62828")
        self._base: dict[str, Any] = {}
        self._as_set: dict[FieldPath, Any] = {}

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
                self.target_step_s,
            ],
            [
                self.gpus_wanted,
                self.nodes_wanted,
                self.team,
                self.data_location,
                self.vantage,
                self.gpu_hour_max,
                self.month_max,
                self.currency,
            ],
        ]
        for fields in sections:
            box = QGroupBox()
            form = QFormLayout(box)
            labels = [QLabel() for _ in fields]
            for label, field in zip(labels, fields, strict=True):
                form.addRow(label, field)
            self.groups.append((box, form, labels))
            layout.addWidget(box)
        layout.addWidget(self.kept)
        layout.addWidget(self.error)
        layout.addStretch(1)
        self.set_values(DEFAULTS)
        for widget in self._fields():
            if isinstance(widget, QLineEdit):
                widget.textChanged.connect(self._edited)
            elif isinstance(widget, QComboBox):
                widget.currentIndexChanged.connect(self._edited)
            elif isinstance(widget, QSpinBox | QDoubleSpinBox):
                widget.valueChanged.connect(self._edited)
            else:  # a new kind of field: say so, rather than leave its edits unnoticed
                raise TypeError(f"needs form: no change signal known for {type(widget).__name__}")
        self.retranslate()

    def _edited(self, *_: object) -> None:
        self.active_b.setEnabled(self.architecture.currentText() == "moe")
        self._show_kept()
        self.changed.emit()

    # -- values ------------------------------------------------------------------------------------------

    def form_values(self) -> dict[FieldPath, Any]:
        """What the widgets say, field by field (None where a field is left unset)."""
        moe = self.architecture.currentText() == "moe"
        active = self.active_b.value() * 1e9 if moe and self.active_b.value() else None

        def optional(value: float) -> float | None:
            return value or None

        return {
            ("name",): self.name.text().strip() or "training needs",
            ("model", "params"): self.params_b.value() * 1e9,
            ("model", "architecture"): self.architecture.currentText(),
            ("model", "active_params"): active,
            ("training", "mode"): self.mode.currentText(),
            ("training", "precision"): self.precision.currentText(),
            ("training", "optimizer"): self.optimizer.currentText(),
            ("training", "strategy"): self.strategy.currentText(),
            ("training", "tensor_parallel"): self.tp.value(),
            ("training", "pipeline_parallel"): self.pp.value(),
            ("training", "sequence_length"): self.seq_len.value(),
            ("training", "micro_batch"): self.micro_batch.value(),
            ("training", "tokens_per_step"): optional(self.tokens_per_step.value()),
            ("training", "target_step_seconds"): optional(self.target_step_s.value()),
            ("cluster", "gpus_wanted"): optional(self.gpus_wanted.value()),
            ("cluster", "nodes_wanted"): optional(self.nodes_wanted.value()),
            ("location", "team"): self.team.text().strip() or None,
            ("location", "data"): self.data_location.text().strip() or None,
            ("location", "vantage"): self.vantage.text().strip() or None,
            ("budget", "gpu_hour_max"): optional(self.gpu_hour_max.value()),
            ("budget", "month_max"): optional(self.month_max.value()),
            ("budget", "currency"): self.currency.text().strip().upper() or "USD",
        }

    def edited_fields(self) -> list[FieldPath]:
        """The fields whose widget no longer shows what the base profile holds."""
        now = self.form_values()
        return [path for path in FORM_FIELDS if now[path] != self._as_set.get(path)]

    def values(self) -> dict[str, Any]:
        """The needs profile as plain data (what `validate_needs` reads): the base profile with the fields
        edited in the form laid over it. A field not edited keeps the base's exact value (a spin box's
        rounding never changes a loaded number)."""
        data = copy.deepcopy(self._base)
        now = self.form_values()
        edited = self.edited_fields()
        for path in edited:
            _put(data, path, now[path])
        if ("model", "params") in edited:
            for path in MODEL_SHAPE:
                _put(data, path, None)
        return data

    def set_values(self, data: dict[str, Any]) -> None:
        """Make `data` (a needs profile's plain data; missing parts take the profile's defaults) the base
        profile and show its fields in the form."""
        profile = validate_needs({**{"model": DEFAULTS["model"]}, **data})
        base = profile.model_dump(mode="json")
        blockers = [w.blockSignals(True) for w in self._fields()]
        m, t, c, loc, b = profile.model, profile.training, profile.cluster, profile.location, profile.budget
        self.name.setText(profile.name)
        self.name.setCursorPosition(0)  # a long name shows its beginning
        self.name.setToolTip(profile.name)
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
        self.target_step_s.setValue(t.target_step_seconds or 0)
        self.gpus_wanted.setValue(c.gpus_wanted or 0)
        self.nodes_wanted.setValue(c.nodes_wanted or 0)
        self.team.setText(loc.team or "")
        self.data_location.setText(loc.data or "")
        self.vantage.setText(loc.vantage or "")
        self.gpu_hour_max.setValue(b.gpu_hour_max or 0)
        self.month_max.setValue(b.month_max or 0)
        self.currency.setText(b.currency)
        for widget, blocked in zip(self._fields(), blockers, strict=True):
            widget.blockSignals(blocked)
        self._base = base
        self._as_set = self.form_values()
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
            self.target_step_s,
            self.gpus_wanted,
            self.nodes_wanted,
            self.team,
            self.data_location,
            self.vantage,
            self.gpu_hour_max,
            self.month_max,
            self.currency,
        ]

    def kept_fields(self) -> list[tuple[str, Any]]:
        """The fields of the profile that have no widget here and differ from a profile's defaults, as
        ("section.field", value): they count in sizing and scoring just the same."""
        try:
            data = self.values()
        except (TypeError, ValueError):
            return []
        defaults = validate_needs({"model": {"params": data["model"]["params"]}}).model_dump(mode="json")
        shown = set(FORM_FIELDS) | {("format_version",)}
        return [
            (".".join(path), value)
            for path, value in _leaves(data)
            if path not in shown and value != _get(defaults, path)
        ]

    def _show_kept(self) -> None:
        kept = self.kept_fields()
        self.kept.setVisible(bool(kept))
        self.kept.setText(
            self.tr(
                "Also in this profile (not editable here, counted in sizing and scoring): {fields}"
            ).format(fields=", ".join(f"{name} = {value}" for name, value in kept))
            if kept
            else ""
        )

    def profile(self) -> NeedsProfile:
        """The validated profile; raises `catalogs.errors.NeedsProfileError` naming the field at fault."""
        return validate_needs(self.values())

    def load_file(self, path: Path) -> NeedsProfile:
        """Make a needs file the base profile (raises `NeedsProfileError` with file, line and field)."""
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
                self.tr("Target step time"),
            ],
            [
                self.tr("GPUs wanted"),
                self.tr("Nodes wanted"),
                self.tr("Team works in"),
                self.tr("Training data is in"),
                self.tr("Vantage (office probe name)"),
                self.tr("Budget per GPU-hour"),
                self.tr("Budget per month"),
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
        self.target_step_s.setSpecialValueText(self.tr("estimated"))
        self.gpu_hour_max.setSpecialValueText(self.tr("no limit"))
        self.month_max.setSpecialValueText(self.tr("no limit"))
        self.data_location.setPlaceholderText(self.tr("not stated"))
        self.vantage.setPlaceholderText(self.tr("any (as the probes recorded it)"))
        self._show_kept()

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)
