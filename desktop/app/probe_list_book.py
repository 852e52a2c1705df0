"""The probe list's file kept in step with the shared list (`AppContext.targets`): read when the window starts
(the first start: this computer's loopback address, so Probe → Run now measures something at once), written
after every change, wherever the change is made (Targets screen, Probe screen, Routes, the evaluation home).
A file that cannot be read is set aside and said; the list then starts empty."""

from __future__ import annotations

from PySide6.QtCore import QObject

from desktop.app.context import AppContext
from desktop.usecases.errors import ProbeListError
from desktop.usecases.probe_list import ProbeListFile, TargetEntry
from probes.target import Method, Target

# The first start's target; its name is shown translated (`TargetListModel.shown_names`).
LOOPBACK_NAME = "loopback (this computer)"
FIRST_RUN_TARGETS = (
    TargetEntry(Target(Method.ICMP, host="127.0.0.1", name=LOOPBACK_NAME, line_type="local")),
)


class ProbeListBook(QObject):
    def __init__(self, context: AppContext, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self.model = context.targets
        self.file = ProbeListFile(context.settings.targets_path)
        self._loading = False
        for signal in (
            self.model.rowsInserted,
            self.model.rowsRemoved,
            self.model.dataChanged,
            self.model.modelReset,
        ):
            signal.connect(self._changed)

    def load(self) -> None:
        try:
            first_run = not self.file.path.exists()
            entries = self.file.load()
            if first_run:
                entries = list(FIRST_RUN_TARGETS)
        except ProbeListError as exc:
            aside = self.file.set_aside()
            self.context.reporter.error(
                self.tr("Probe list not loaded"),
                self.tr("{error}\n\nThe file was kept as {aside}; starting with an empty list.").format(
                    error=exc, aside=aside
                ),
            )
            entries = []
        self._loading = True
        self.model.set_entries(entries)
        self._loading = False

    def retranslate(self) -> None:
        """The list's own words in the window's language (the file keeps them in English)."""
        self.model.shown_names.clear()
        self.model.shown_names[LOOPBACK_NAME] = self.tr("loopback (this computer)")
        self.model.origin_words.clear()
        self.model.origin_words.update(
            {
                "custom": self.tr("custom"),
                "catalog": self.tr("catalog"),
                "synthetic": self.tr("synthetic"),
                "plan:": self.tr("plan {name}"),
            }
        )
        if self.model.rowCount():  # shown again (nothing to save)
            self._loading = True
            last = self.model.index(self.model.rowCount() - 1, self.model.columnCount() - 1)
            self.model.dataChanged.emit(self.model.index(0, 0), last)
            self._loading = False

    def _changed(self, *_: object) -> None:
        if self._loading:
            return
        try:
            self.file.save(self.model.entries())
        except OSError as exc:
            self.context.reporter.info(
                self.tr("Could not save the probe list to {path}: {error}").format(
                    path=self.file.path, error=exc.strerror or exc
                )
            )
