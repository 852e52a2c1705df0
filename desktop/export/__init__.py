"""Comparison spreadsheets: the workbook composed from the store's analysis and the catalogs, written as xlsx
or as a folder of csv files. No Qt. `desktop.usecases.export.run_export` (what `linkvet export` and the
Export screen run) builds one and writes it.

    desktop/export/workbook.py      build_workbook: which sheets, in which order, and the Method sheet's notes
    desktop/export/measurements.py  Link quality and Hour-of-day, from `probes.analysis`' public functions
    desktop/export/procurement.py   Ranking, Score breakdown, GPU offerings (with a needs profile)
    desktop/export/sizing.py        Sizing (with a needs profile)
    desktop/export/acceptance.py    the Ranking's columns on unknowns, per-fact sources, Acceptance checks
    desktop/export/method.py        the Method sheet (format version, period, peak windows, thresholds)
    desktop/export/model.py         Workbook, Sheet, Column: the workbook in memory, independent of format
    desktop/export/xlsx.py, csvfiles.py   the writers; safety.py neutralises text a spreadsheet would run
"""

from desktop.export.csvfiles import write_csv
from desktop.export.measurements import MeasureOptions
from desktop.export.model import WORKBOOK_FORMAT_VERSION, Column, Sheet, Workbook
from desktop.export.safety import neutralise
from desktop.export.workbook import ExportRequest, build_workbook
from desktop.export.xlsx import write_xlsx

__all__ = [
    "WORKBOOK_FORMAT_VERSION",
    "Column",
    "ExportRequest",
    "MeasureOptions",
    "Sheet",
    "Workbook",
    "build_workbook",
    "neutralise",
    "write_csv",
    "write_xlsx",
]
