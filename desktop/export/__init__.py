"""Comparison spreadsheets (`linkvet export`): the workbook composed from the store's analysis and the
catalogs, written as xlsx or as a folder of csv files. No Qt."""

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
