"""The Export screen: the comparison workbook procurement opens (xlsx, or a folder of csv files), exactly what
`linkvet export` writes (`desktop.usecases.export.run_export`), from the store and the needs, weights and
method set on the Needs & score screen; written in a worker, then "open folder". Below it, an evaluation's
decision report (`desktop.app.report_panel`, what `linkvet report` writes)."""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any

from PySide6.QtCore import QCoreApplication, QEvent, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from catalogs.i18n import items, sentences
from desktop.app.context import AppContext
from desktop.app.needs_form import DEFAULTS
from desktop.app.report_panel import ReportPanel
from desktop.usecases.export import ExportJob, ExportResult, run_export
from probes import timestamps

PERIODS: tuple[int | None, ...] = (None, 7 * 86400, 30 * 86400)


def export_in_worker(job: ExportJob, needs: Mapping[str, Any] | None) -> tuple[ExportResult, list[str]]:
    """The worker's part: the bundled catalogs and, with `needs` (the form's plain data), the profile to
    rank for, then `run_export`; the result and the notes to show beside it."""
    from catalogs.needs import validate_needs
    from desktop.usecases.offerings import load_catalog_set

    catalogs = load_catalog_set(db=job.db_path)  # with the team's facts when the store is PostgreSQL
    profile = validate_needs(dict(needs)) if needs is not None else None
    result = run_export(replace(job, catalogs=catalogs, needs=profile))
    notes = [
        QCoreApplication.translate("ExportScreen", "catalog skipped: {problem}").format(problem=error)
        for error in catalogs.errors
    ]
    if result.store_missing:
        notes.append(
            QCoreApplication.translate(
                "ExportScreen",
                "no measurements yet ({store} does not exist): the link-quality sheets are empty",
            ).format(store=job.db_path)
        )
    return result, notes


class ExportScreen(QWidget):
    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self.result: ExportResult | None = None
        self.running = False
        self._started = 0.0

        self.title = QLabel()
        self.title.setObjectName("screenTitle")
        self.hint = QLabel()
        self.hint.setWordWrap(True)
        self.hint.setObjectName("screenHint")
        self.file_format = QComboBox()
        self.file_format.addItem("", "xlsx")
        self.file_format.addItem("", "csv")
        self.out = QLineEdit()
        self.browse = QPushButton()
        out_row = QHBoxLayout()
        out_row.addWidget(self.out, 1)
        out_row.addWidget(self.browse)
        self.period = QComboBox()
        for _ in PERIODS:
            self.period.addItem("")
        self.vantage = QLineEdit()
        self.with_ranking = QCheckBox()
        self.with_ranking.setChecked(True)
        self.labels = [QLabel() for _ in range(4)]
        form = QFormLayout()
        form.addRow(self.labels[0], self.file_format)
        form.addRow(self.labels[1], out_row)
        form.addRow(self.labels[2], self.period)
        form.addRow(self.labels[3], self.vantage)
        form.addRow(self.with_ranking)
        self.export_button = QPushButton()
        self.export_button.setObjectName("primary")
        self.open_folder = QPushButton()
        self.open_folder.setEnabled(False)
        self.open_file = QPushButton()
        self.open_file.setEnabled(False)
        self.busy = QProgressBar()
        self.busy.setRange(0, 0)
        self.busy.hide()
        self.status = QLabel()
        self.status.setWordWrap(True)
        actions = QHBoxLayout()
        actions.addWidget(self.export_button)
        actions.addWidget(self.open_folder)
        actions.addWidget(self.open_file)
        actions.addStretch(1)

        layout = QVBoxLayout(self)
        layout.addWidget(self.title)
        layout.addWidget(self.hint)
        layout.addLayout(form)
        layout.addLayout(actions)
        layout.addWidget(self.busy)
        layout.addWidget(self.status)
        self.report = ReportPanel(context)  # an evaluation's decision report (PDF or HTML)
        layout.addWidget(self.report)
        layout.addStretch(1)

        self.file_format.currentIndexChanged.connect(lambda *_: self.out.setText(str(self.default_path())))
        self.browse.clicked.connect(self._browse)
        self.export_button.clicked.connect(self.start_export)
        self.open_folder.clicked.connect(self.open_result_folder)
        self.open_file.clicked.connect(self.open_result_file)
        self.out.setText(str(self.default_path()))
        self.retranslate()

    # -- the job -----------------------------------------------------------------------------------------

    def default_path(self) -> Path:
        """A fresh name in the last export folder (never an existing file)."""
        folder = self.context.settings.export_dir
        stem = f"linkvet-comparison-{datetime.now():%Y%m%d}"
        suffix = ".xlsx" if self.file_format.currentData() == "xlsx" else ""
        candidate = folder / f"{stem}{suffix}"
        number = 2
        while candidate.exists():
            candidate = folder / f"{stem}-{number}{suffix}"
            number += 1
        return candidate

    def _browse(self) -> None:
        if self.file_format.currentData() == "xlsx":
            chosen, _ = QFileDialog.getSaveFileName(
                self, self.tr("Save the workbook as"), self.out.text(), self.tr("Excel workbook (*.xlsx)")
            )
        else:
            chosen = QFileDialog.getExistingDirectory(
                self, self.tr("Folder for the csv files"), self.out.text()
            )
        if chosen:
            self.out.setText(chosen)

    def job(self) -> tuple[ExportJob, Mapping[str, Any] | None]:
        """The export the form asks for, and the needs profile (plain data) to rank for, if any."""
        settings = self.context.settings
        out = Path(self.out.text().strip()).expanduser()
        file_format = self.file_format.currentData()
        if file_format == "xlsx" and out.suffix.lower() != ".xlsx":
            out = out.with_name(out.name + ".xlsx")
        seconds = PERIODS[self.period.currentIndex()]
        now_us = timestamps.now_us()
        job = ExportJob(
            out=out,
            file_format=file_format,
            db_path=settings.store_location,
            tz=settings.time_zone,
            windows=settings.peak_windows,
            since_us=None if seconds is None else now_us - seconds * 1_000_000,
            vantage=self.vantage.text().strip() or None,
            weights=settings.score_weights,
            method=settings.score_method,
            language=settings.language,  # the workbook in the window's language
        )
        return job, (settings.needs or DEFAULTS) if self.with_ranking.isChecked() else None

    def start_export(self) -> None:
        if self.running:
            return
        if not self.out.text().strip():
            self.status.setText(self.tr("Choose where to write the export."))
            return
        job, needs = self.job()
        self.running = True
        self._started = time.monotonic()
        self.export_button.setEnabled(False)
        self.busy.show()
        self.status.setText(self.tr("Writing {path}…").format(path=job.out))
        self.context.workers.submit(export_in_worker, job, needs, on_done=self._done, on_error=self._failed)

    def _done(self, outcome: tuple[ExportResult, list[str]]) -> None:
        result, notes = outcome
        self.running = False
        self.result = result
        self.busy.hide()
        self.export_button.setEnabled(True)
        self.open_folder.setEnabled(True)
        self.open_file.setEnabled(len(result.written) == 1)
        self.context.settings.export_dir = result.folder if len(result.written) == 1 else result.folder.parent
        what = (
            str(result.written[0])
            if len(result.written) == 1
            else self.tr("{count} csv files in {folder}").format(
                count=len(result.written), folder=result.folder
            )
        )
        if result.ranked is None:
            wrote = self.tr("Wrote {what} in {seconds:.1f} s: {regions} measured region(s).")
        else:
            wrote = self.tr(
                "Wrote {what} in {seconds:.1f} s: {regions} measured region(s), {ranked} offerings ranked."
            )
        wrote = wrote.format(
            what=what, seconds=time.monotonic() - self._started, regions=result.regions, ranked=result.ranked
        )
        sheets = self.tr("Sheets: {sheets}.").format(sheets=items(result.titles))
        text = sentences([wrote, sheets])
        if notes:
            text += "\n" + "\n".join(notes)
        self.status.setText(text)
        self.context.reporter.info(self.tr("Export written: {what}").format(what=what))
        self.out.setText(str(self.default_path()))

    def _failed(self, message: str) -> None:
        self.running = False
        self.busy.hide()
        self.export_button.setEnabled(True)
        self.status.setText(message)
        self.context.reporter.error(self.tr("Export failed"), message)

    def open_result_folder(self) -> bool:
        if self.result is None:
            return False
        return bool(QDesktopServices.openUrl(QUrl.fromLocalFile(str(self.result.folder))))

    def open_result_file(self) -> bool:
        if self.result is None or len(self.result.written) != 1:
            return False
        return bool(QDesktopServices.openUrl(QUrl.fromLocalFile(str(self.result.written[0]))))

    # -- language ----------------------------------------------------------------------------------------

    def retranslate(self) -> None:
        self.title.setText(self.tr("Export"))
        self.hint.setText(
            self.tr(
                "The comparison workbook for procurement, as `linkvet export` writes it: ranking and score "
                "breakdown (for the needs, weights and method on the Needs & score screen), link quality at "
                "peak and off-peak hours per region, hour-of-day profiles, the GPU offerings, the sizing and "
                "the method. Peak windows and time zone come from the settings."
            )
        )
        self.file_format.setItemText(0, self.tr("Excel workbook (.xlsx)"))
        self.file_format.setItemText(1, self.tr("CSV files (one per sheet, in a folder)"))
        self.browse.setText(self.tr("Browse…"))
        for i, text in enumerate(
            [self.tr("Everything stored"), self.tr("Last 7 days"), self.tr("Last 30 days")]
        ):
            self.period.setItemText(i, text)
        self.vantage.setPlaceholderText(self.tr("all vantage points"))
        for label, text in zip(
            self.labels,
            [self.tr("Format"), self.tr("Write to"), self.tr("Measurements"), self.tr("Vantage point")],
            strict=True,
        ):
            label.setText(text)
        self.with_ranking.setText(
            self.tr("Rank the catalog offerings for the needs on the Needs && score screen")
        )
        self.export_button.setText(self.tr("Export"))
        self.open_folder.setText(self.tr("Open folder"))
        self.open_file.setText(self.tr("Open the workbook"))

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)
