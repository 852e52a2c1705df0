"""The decision report: an evaluation's recommendation, candidates, pictures and method, drawn from data the
use-case gathered (`desktop.usecases.report`). No Qt (the PDF is printed by `desktop.pdf` in a child
process).

    desktop/report/model.py     ReportData: what the report shows, gathered once
    desktop/report/html.py      the self-contained HTML document (the PDF prints the same document)
    desktop/report/charts.py    the pictures (matplotlib, PNG): scores with bounds, hour of day, peak evenings
    desktop/report/bundle.py    the evidence bundle: raw samples, traces, answers, checks and a SHA-256 manifest
"""
