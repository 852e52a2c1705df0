"""Text from catalogs, plan files and host names is untrusted: a spreadsheet must show it, never run it.

A cell whose text begins with `=`, `+`, `-`, `@`, a tab or a carriage return is read as a formula by Excel,
LibreOffice or Google Sheets when the file is a CSV (and when such a cell is edited in an xlsx): the OWASP
"CSV injection" advice is to prefix such text with a single quote, which every spreadsheet shows as text.
Numbers are never touched: a real negative number stays a number.
"""

from __future__ import annotations

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def neutralise(text: str) -> str:
    """`text`, prefixed with a single quote when a spreadsheet would take it for a formula."""
    return "'" + text if text.startswith(FORMULA_STARTS) else text
