"""The Export screen's report section: an evaluation's decision report (PDF or HTML), exactly what `linkvet
report` writes (`desktop.usecases.report.write_report`), in the window's language; written in a worker (the
PDF is printed by a child process), then "open"."""

from __future__ import annotations

import time
from datetime import datetime
from pathlib import Path

from PySide6.QtCore import QEvent, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QComboBox,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop.app.context import AppContext
from desktop.usecases.report import ReportJob, ReportWritten


def report_in_worker(job: ReportJob) -> ReportWritten:
    """The worker's part: the catalogs (bundled and the user's), then the report."""
    from dataclasses import replace

    from desktop.usecases.offerings import load_catalog_set
    from desktop.usecases.report import write_report

    return write_report(replace(job, catalogs=load_catalog_set()))


class ReportPanel(QGroupBox):
    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self.running = False
        self.written: ReportWritten | None = None
        self._started = 0.0
        self.evaluation = QComboBox()
        self.file_format = QComboBox()
        self.file_format.addItem("", "pdf")
        self.file_format.addItem("", "html")
        self.out = QLineEdit()
        self.write_button = QPushButton()
        self.open_button = QPushButton()
        self.open_button.setEnabled(False)
        self.status = QLabel()
        self.status.setWordWrap(True)
        row = QHBoxLayout()
        row.addWidget(self.evaluation, 1)
        row.addWidget(self.file_format)
        row.addWidget(self.out, 2)
        row.addWidget(self.write_button)
        row.addWidget(self.open_button)
        layout = QVBoxLayout(self)
        layout.addLayout(row)
        layout.addWidget(self.status)
        self.evaluation.currentIndexChanged.connect(lambda *_: self.out.setText(str(self.default_path())))
        self.file_format.currentIndexChanged.connect(lambda *_: self.out.setText(str(self.default_path())))
        self.write_button.clicked.connect(self.start_report)
        self.open_button.clicked.connect(self.open_report)
        context.store_events.changed.connect(self.refresh)
        self.retranslate()
        self.refresh()

    def refresh(self) -> None:
        """The store's evaluations in the list (the chosen one kept)."""
        from desktop.usecases.evaluation import list_evaluations

        chosen = self.evaluation.currentText()
        try:
            names = [e.name for e in list_evaluations(self.context.settings.store_location)]
        except Exception as exc:  # an unreadable store: the list stays empty, the status says why
            names = []
            self.status.setText(str(exc))
        self.evaluation.blockSignals(True)
        self.evaluation.clear()
        self.evaluation.addItems(names)
        if names:  # a placeholder keeps a combo box on no item: choose one (the one chosen before)
            self.evaluation.setCurrentIndex(names.index(chosen) if chosen in names else 0)
        self.evaluation.blockSignals(False)
        self.write_button.setEnabled(bool(names) and not self.running)
        self.out.setText(str(self.default_path()))

    def default_path(self) -> Path:
        folder = self.context.settings.export_dir
        name = self.evaluation.currentText() or "evaluation"
        return folder / f"linkvet-report-{name}-{datetime.now():%Y%m%d}.{self.file_format.currentData()}"

    def start_report(self) -> None:
        if self.running or not self.evaluation.currentText():
            return
        out = Path(self.out.text().strip()).expanduser()
        suffix = f".{self.file_format.currentData()}"
        if out.suffix.lower() != suffix:
            out = out.with_name(out.name + suffix)
        from catalogs.loader import CatalogSet

        job = ReportJob(
            self.evaluation.currentText(),
            out,
            CatalogSet(),  # the worker loads the catalogs
            db=self.context.settings.store_location,
            language=self.context.settings.language,
        )
        self.running = True
        self._started = time.monotonic()
        self.write_button.setEnabled(False)
        self.status.setText(self.tr("Writing {path}…").format(path=out))
        self.context.workers.submit(report_in_worker, job, on_done=self._done, on_error=self._failed)

    def _done(self, written: ReportWritten) -> None:
        self.running = False
        self.written = written
        self.write_button.setEnabled(True)
        self.open_button.setEnabled(True)
        if written.recommended is None:
            verdict = self.tr("no candidate passes every gate")
        elif written.decided:
            verdict = self.tr("recommends {candidate} (decided)").format(candidate=written.recommended)
        else:
            verdict = self.tr("recommends {candidate} (not decided yet)").format(
                candidate=written.recommended
            )
        self.status.setText(
            self.tr("Wrote {path} in {seconds:.1f} s: {verdict}.").format(
                path=written.path, seconds=time.monotonic() - self._started, verdict=verdict
            )
        )
        self.context.reporter.info(self.tr("Report written: {path}").format(path=written.path))

    def _failed(self, message: str) -> None:
        self.running = False
        self.write_button.setEnabled(True)
        self.status.setText(message)
        self.context.reporter.error(self.tr("Report failed"), message)

    def open_report(self) -> bool:
        if self.written is None:
            return False
        return bool(QDesktopServices.openUrl(QUrl.fromLocalFile(str(self.written.path))))

    def retranslate(self) -> None:
        self.setTitle(self.tr("Decision report"))
        self.file_format.setItemText(0, self.tr("PDF (A4)"))
        self.file_format.setItemText(1, self.tr("HTML (one file)"))
        self.evaluation.setPlaceholderText(self.tr("no evaluation in the store"))
        self.write_button.setText(self.tr("Write the report"))
        self.open_button.setText(self.tr("Open the report"))
        self.setToolTip(
            self.tr(
                "An evaluation's decision for management, as `linkvet report` writes it: the recommendation, "
                "the candidates side by side, each one's line at the peak evenings, route, acceptance and "
                "answers, the time to move the data and the method."
            )
        )

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)
