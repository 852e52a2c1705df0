"""The Needs & score screen's live sizing: the GPU of the reference and GPUs per node to size on, and what
`linkvet size` says for the form's needs (memory per GPU, GPUs and nodes, gradient sync, bandwidth between
nodes), recomputed as the user types (sizing is pure and fast: it runs here, not in a worker)."""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtWidgets import QComboBox, QGroupBox, QHBoxLayout, QLabel, QSpinBox, QVBoxLayout, QWidget

from catalogs.errors import CatalogError
from catalogs.needs import NeedsProfile
from catalogs.sizing import SizingResult
from desktop.app.errors import error_text
from desktop.usecases.errors import UsecaseError
from desktop.usecases.sizing import DEFAULT_GPU, gpu_names, size_on


class SizingPanel(QGroupBox):
    changed = Signal()  # the GPU or the GPUs per node changed

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.gpu = QComboBox()
        self.gpu.addItems(gpu_names())
        self.gpu.setCurrentText(DEFAULT_GPU)
        self.per_node = QSpinBox()
        self.per_node.setRange(1, 64)
        self.per_node.setValue(8)
        self.sizing_text = QLabel()
        self.sizing_text.setWordWrap(True)
        self.sizing_text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout = QVBoxLayout(self)
        row = QHBoxLayout()
        self.gpu_label = QLabel()
        self.per_node_label = QLabel()
        row.addWidget(self.gpu_label)
        row.addWidget(self.gpu)
        row.addWidget(self.per_node_label)
        row.addWidget(self.per_node)
        row.addStretch(1)
        layout.addLayout(row)
        layout.addWidget(self.sizing_text)
        self.gpu.currentIndexChanged.connect(lambda *_: self.changed.emit())
        self.per_node.valueChanged.connect(lambda *_: self.changed.emit())
        self._needs: NeedsProfile | None = None
        self.retranslate()

    def show_sizing(self, needs: NeedsProfile | None) -> None:
        """Size `needs` on the chosen GPU and show it (None: the form has a field at fault)."""
        self._needs = needs
        if needs is None:
            self.sizing_text.setText(self.tr("Fix the highlighted field to see the sizing."))
            return
        try:
            result, gpu = size_on(needs, self.gpu.currentText(), self.per_node.value())
        except (CatalogError, UsecaseError) as exc:
            self.sizing_text.setText(error_text(exc))
            return
        self.sizing_text.setText(self.describe_sizing(result, gpu))

    def describe_sizing(self, r: SizingResult, gpu: str) -> str:
        lines = [
            self.tr(
                "Weights alone: {weights:,.1f} GB · model states before sharding: {states:,.1f} GB"
            ).format(weights=r.weights_gb, states=r.model_states_gb)
        ]
        if r.min_gpus is None or r.per_gpu is None:
            lines.append(
                self.tr("On {gpu}: does not fit at any GPU count with this strategy.").format(gpu=gpu)
            )
        else:
            lines.append(
                self.tr(
                    "On {gpu}: fits from {min} GPU(s); planned {planned} = {nodes} node(s) of {per_node} ({span})"
                ).format(
                    gpu=gpu,
                    min=r.min_gpus,
                    planned=r.planned_gpus,
                    nodes=r.nodes,
                    per_node=r.gpus_per_node,
                    span=self.tr("spans nodes") if r.spans_nodes else self.tr("one node"),
                )
            )
            p = r.per_gpu
            lines.append(
                self.tr(
                    "Memory per GPU: {total:.1f} GB of {usable:.1f} usable (weights {w:.1f}, gradients {g:.1f}, "
                    "optimizer {o:.1f}, activations {a:.1f})"
                ).format(
                    total=p.total_gb,
                    usable=r.usable_gb,
                    w=p.weights_gb,
                    g=p.gradients_gb,
                    o=p.optimizer_gb,
                    a=p.activations_gb,
                )
            )
        if r.sync_gb_per_step is not None:
            lines.append(
                self.tr("Gradient sync per step: {gb:,.1f} GB over each node's inter-node links").format(
                    gb=r.sync_gb_per_step
                )
            )
        if r.internode_gbit_s is not None:
            lines.append(
                self.tr(
                    "Bandwidth needed between nodes: {rate:,.0f} Gbit/s per node (step {step:.1f} s)"
                ).format(rate=r.internode_gbit_s, step=r.step_seconds or 0)
            )
        elif r.spans_nodes is False:
            lines.append(self.tr("No inter-node traffic: the job fits in one node."))
        return "\n".join(lines)

    def retranslate(self) -> None:
        self.setTitle(self.tr("Sizing (live)"))
        self.gpu_label.setText(self.tr("On"))
        self.per_node_label.setText(self.tr("GPUs per node"))
        if self._needs is not None or self.sizing_text.text():
            self.show_sizing(self._needs)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)
