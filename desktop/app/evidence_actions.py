"""What the evaluation home's cell buttons do, each through the use-case its command runs:
    Measure now            one round of the evaluation's plan, by the agent's command (`measure_once`)
    Start measuring        the background agent (the measuring panel)
    Add a test URL…        a vendor's test file for the download and under-load tests (`add_endpoints`)
    Trace                  the Routes screen tracing the candidate's addresses, labelled with it and the office
    Send the questionnaire…  the questionnaire export (Catalog → Questionnaire → Export…), for its provider
    Import answers…        the questionnaire import, with its preview
    Import a report…       an acceptance report from the trial server (`linkvet accept import`)
    Copy the command       another office's cell: the command that measures it there
and Write the report… (the Export screen, where the comparison workbook is written).
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QFileDialog, QInputDialog, QLineEdit

from desktop.app.context import AppContext
from desktop.app.models.evidence import (
    ADD_URL,
    COPY_COMMAND,
    IMPORT_ACCEPTANCE,
    IMPORT_ANSWERS,
    MEASURE_NOW,
    SEND_QUESTIONNAIRE,
    START,
    TRACE,
    Column,
)
from desktop.i18n import vantage_name

if TYPE_CHECKING:
    from catalogs.evaluation.model import Candidate
    from catalogs.loader import CatalogSet
    from desktop.app.home_screen import HomeScreen
    from desktop.usecases.accept_import import AcceptImported
    from desktop.usecases.agent_process import MeasuredOnce
    from desktop.usecases.evidence import Cell
    from probes.store_location import StoreLocation
    from probes.target import Target


def measure_in_worker(
    db: StoreLocation, evaluation: str, office: str | None, cancelled: threading.Event
) -> MeasuredOnce:
    from desktop.usecases.agent_process import measure_once

    return measure_once(db, evaluation, office, cancelled=cancelled)


def add_url_in_worker(db: StoreLocation, evaluation: str, label: str, url: str) -> str:
    from desktop.usecases.evaluation import add_endpoints

    add_endpoints(db, evaluation, label, [url])
    return url


def import_report_in_worker(path: Path, catalogs: CatalogSet) -> AcceptImported:
    from desktop.usecases.accept_import import import_report

    return import_report(path, catalogs)


def trace_targets(candidate: Candidate, catalogs: CatalogSet) -> list[Target]:
    """The candidate's hosts as trace targets, labelled with it (its claimed line type too)."""
    from catalogs.evaluation.candidates import candidate_endpoints, claimed_line_type
    from catalogs.evaluation.model import endpoint_target
    from probes.target import Method, Target

    line_type = claimed_line_type(candidate, catalogs)
    hosts = dict.fromkeys(
        str(endpoint_target(e.address).host) for e in candidate_endpoints(candidate, catalogs)
    )
    return [
        Target(
            Method.TRACE,
            host=host,
            name=host,
            provider=candidate.provider,
            region=candidate.region,
            line_type=line_type,
        )
        for host in hosts
    ]


class EvidenceActions(QObject):
    def __init__(self, context: AppContext, home: HomeScreen) -> None:
        super().__init__(home)
        self.context = context
        self.home = home
        self.busy = False  # a round measured now
        self.cancelled = threading.Event()
        self.dialog: QObject | None = None

    # -- words -------------------------------------------------------------------------------------------

    def title(self, action: str) -> str:
        return {
            MEASURE_NOW: self.tr("Measure now"),
            START: self.tr("Start measuring"),
            ADD_URL: self.tr("Test URL…"),
            TRACE: self.tr("Trace"),
            SEND_QUESTIONNAIRE: self.tr("Send the questionnaire…"),
            IMPORT_ANSWERS: self.tr("Import answers…"),
            IMPORT_ACCEPTANCE: self.tr("Import report…"),
            COPY_COMMAND: self.tr("Copy the command"),
        }[action]

    def group_title(self, kind: str) -> str:
        """The one button of a cell with several actions (its menu holds them)."""
        return self.tr("Questionnaire") if kind == "questionnaire" else self.tr("Next…")

    def hint(self, action: str, column: Column, cell: Cell) -> str:
        if action == COPY_COMMAND:
            return self.tr("Measured from {office}: run this there: {command}").format(
                office=vantage_name(column.office), command=cell.next or ""
            )
        return {
            MEASURE_NOW: self.tr("One round now from this computer (every candidate)."),
            START: self.tr("Measure in the background, denser at peak hours, until stopped."),
            ADD_URL: self.tr("The download and under-load tests need a file on the vendor's server."),
            TRACE: self.tr("Trace the route to the candidate's addresses and check it against the claim."),
            SEND_QUESTIONNAIRE: self.tr("A workbook of what the catalogs do not know, for the vendor."),
            IMPORT_ANSWERS: self.tr("The vendor's answered questionnaire, previewed before it is written."),
            IMPORT_ACCEPTANCE: self.tr(
                "The report `linkvet accept` wrote on the trial server (its checks and return route)."
            ),
        }[action]

    # -- running -----------------------------------------------------------------------------------------

    def run(self, action: str, row: int, column: int) -> None:
        home = self.home
        found = home.model.cell(row, column)
        evaluation = home.evaluation
        if found is None or evaluation is None or home.data is None:
            return
        spec, cell = found
        candidate = evaluation.candidates[row]
        if action == MEASURE_NOW:
            self.measure_now()
        elif action == START:
            home.panel.start()
        elif action == ADD_URL:
            self.ask_url(candidate)
        elif action == TRACE:
            self.trace(candidate, home.data.catalogs)
        elif action == SEND_QUESTIONNAIRE:
            self.send_questionnaire(candidate.provider)
        elif action == IMPORT_ANSWERS:
            self.import_answers(candidate.provider)
        elif action == IMPORT_ACCEPTANCE:
            self.import_acceptance()
        elif action == COPY_COMMAND:
            QGuiApplication.clipboard().setText(cell.next or "")
            self.context.reporter.info(
                self.tr("Copied: {command} (run it on a computer in {office})").format(
                    command=cell.next or "", office=vantage_name(spec.office)
                )
            )

    def measure_now(self) -> None:
        evaluation = self.home.evaluation
        if evaluation is None or self.busy:
            return
        self.busy = True
        self.cancelled.clear()
        self.home.place_buttons()
        self.context.reporter.info(self.tr("Measuring one round of {name} now…").format(name=evaluation.name))
        self.context.workers.submit(
            measure_in_worker,
            self.context.settings.store_location,
            evaluation.name,
            self.home.panel.office_name(),
            self.cancelled,
            on_done=self._measured,
            on_error=self._measure_failed,
        )

    def _measured(self, done: MeasuredOnce) -> None:
        self.busy = False
        if done.code < 0:  # the window closed meanwhile
            return
        self.context.reporter.info(
            self.tr("One round measured and stored.")
            if done.code == 0
            else self.tr("One round stored; some targets could not be measured (hover the cells).")
        )
        self.context.store_events.changed.emit()

    def _measure_failed(self, message: str) -> None:
        self.busy = False
        self.home.place_buttons()
        self.context.reporter.error(self.tr("Nothing measured"), message)

    def ask_url(self, candidate: Candidate) -> None:
        dialog = QInputDialog(self.home)
        dialog.setWindowTitle(self.tr("Add a test URL"))
        dialog.setLabelText(
            self.tr("A file on {candidate}'s server to download (http:// or https://):").format(
                candidate=candidate.label
            )
        )
        dialog.setTextEchoMode(QLineEdit.EchoMode.Normal)
        dialog.setWindowModality(Qt.WindowModality.WindowModal)
        dialog.textValueSelected.connect(lambda url: self._add_url(candidate, url.strip()))
        self.dialog = dialog
        dialog.open()

    def _add_url(self, candidate: Candidate, url: str) -> None:
        evaluation = self.home.evaluation
        if not url or evaluation is None:
            return
        self.context.workers.submit(
            add_url_in_worker,
            self.context.settings.store_location,
            evaluation.name,
            candidate.label,
            url,
            on_done=lambda _url: self.home.reload(),
            on_error=lambda message: self.context.reporter.error(self.tr("No test URL added"), message),
        )

    def trace(self, candidate: Candidate, catalogs: CatalogSet) -> None:
        targets = trace_targets(candidate, catalogs)
        if not targets or self.context.go_to is None:
            return
        from desktop.app.routes_screen import RoutesScreen

        routes = self.context.go_to("routes")
        assert isinstance(routes, RoutesScreen)
        office = self.home.panel.office_name()
        routes.trace_for(f"{candidate.label} ({len(targets)})", targets, vantage=office)

    def send_questionnaire(self, provider: str) -> None:
        from desktop.app.questionnaire_dialogs import QuestionnaireExportDialog

        assert self.home.data is not None
        dialog = QuestionnaireExportDialog(self.context, self.home.data.catalogs, provider, self.home)
        self.dialog = dialog
        dialog.open()

    def import_answers(self, provider: str) -> None:
        from desktop.app.questionnaire_import import QuestionnaireImportDialog

        assert self.home.data is not None
        dialog = QuestionnaireImportDialog(self.context, self.home.data.catalogs, provider, self.home)
        self.dialog = dialog
        dialog.open()

    def import_acceptance(self) -> None:
        assert self.home.data is not None
        chosen, _filter = QFileDialog.getOpenFileName(
            self.home,
            self.tr("An acceptance report"),
            str(self.context.settings.export_dir),
            self.tr("Acceptance reports (*.json)"),
        )
        if not chosen:
            return
        self.context.workers.submit(
            import_report_in_worker,
            Path(chosen),
            self.home.data.catalogs,
            on_done=self._report_imported,
            on_error=lambda message: self.context.reporter.error(self.tr("Report not imported"), message),
        )

    def _report_imported(self, done: AcceptImported) -> None:
        self.context.reporter.info(
            self.tr("Imported the report from {host}: {checks} check(s), {changes} fact(s) changed.").format(
                host=done.host, checks=done.checks_added, changes=len(done.changes)
            )
        )
        self.context.catalog_events.changed.emit()

    def write_report(self) -> None:
        """The comparison workbook (the Export screen)."""
        if self.context.go_to is not None:
            self.context.go_to("export")

    def shutdown(self) -> None:
        self.cancelled.set()  # a round measured now goes on by itself and is stored
