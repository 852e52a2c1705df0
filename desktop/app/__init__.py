"""The PySide6 desktop application: screens that render, workers that run the shared use-cases
(`desktop.usecases`) the headless `linkvet` command runs. Never imports `desktop.cli`.

    desktop/app/main.py          QApplication, translator, the main window (opened by `desktop.launch`)
    desktop/app/main_window.py   the window: a screen list on the left, the screens, the status bar
    desktop/app/*_screen.py      one module per screen (Targets, Probe, Charts, Routes, Catalog, Score, Export)
    desktop/app/offices_panel.py the Charts screen's Offices compared tab (`desktop.usecases.vantages`)
    desktop/app/route_history_panel.py  the Routes screen's history: stored traces on a timeline, changes
    desktop/app/route_verdict.py the Routes screen's verdict panel (the core's sentences, the window's words)
    desktop/app/trace_task.py    the Routes screen's trace in the child process (`trace_job.py`, no Qt)
    desktop/app/scheduler_panel.py, sizing_panel.py, weights_panel.py, scorecard.py, needs_form.py
                                 the screens' parts, one widget per module; the dialogs (*_dialog.py)
    desktop/app/catalog_actions.py  the Catalog screen's editing row: New offering…, Edit…, Delete / Copy to
                                 my catalogs, Questionnaire → Export…/Import…
    desktop/app/offering_form.py the offering form, checked as typed; its fields (from the questionnaire's
                                 questions) in offering_fields_panel.py, their editors in widgets/offering_fields.py
    desktop/app/questionnaire_dialogs.py, questionnaire_import.py  Questionnaire → Export…, and Import…
                                 (a preview first, conflicts chosen, then written)
    desktop/app/widgets/         reusable widgets (plots, the sparkline and line-type delegates, a scroll area)
    desktop/app/models/          Qt item models the views read (unit-tested without a window)
    desktop/app/workers.py       QRunnable tasks: probes, store queries and exports off the GUI thread
    desktop/app/job_process.py   the child process probing and scheduling run in (no Qt: the use-cases
                                 `desktop.usecases.measuring` and `desktop.usecases.agent`)
    desktop/app/frames.py        the frames between the app and that child, the plain forms they carry
    desktop/app/chart_data.py    Qt-free arrays for the charts (all offices or one), computed in workers
    desktop/app/errors.py        `error_text`: how every error is worded for a dialog or the status bar
    desktop/app/context.py       what screens are given: settings, workers, the probe list, the reporter
    desktop/app/timeline_data.py the timeline's bins and the time each box covers (Qt-free)
    desktop/app/settings.py      QSettings-backed preferences
    desktop/app/help_viewer.py   Help → Getting started / User guide: the manual's pages (`desktop.manual`)
    desktop/app/i18n.py          run-time language switching (translations/*.ts → *.qm)

Importing this package pins pyqtgraph to PySide6 (it would otherwise try PyQt6 first).
"""

import os

os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")
