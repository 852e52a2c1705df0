"""The decision report: an evaluation's recommendation, candidates, pictures and method, drawn from data the
use-case gathered (`desktop.usecases.report`). No Qt (the PDF is printed by `desktop.pdf` in a child
process).

    desktop/report/model.py      ReportData: what the report shows, gathered once
    desktop/report/decision.py   the recommendation: the winner, whether its place is decided, what decides it
    desktop/report/html.py       the self-contained HTML document (the PDF prints the same document): the
                                 decision page, the time to move the data, the method
    desktop/report/candidate.py  a candidate's section: line, load, throughput, routes, acceptance, answers
    desktop/report/markup.py     the pieces every part is written with (escaping, tables, pictures, units)
    desktop/report/charts.py     the pictures (matplotlib, PNG): scores with bounds, hour of day, peak evenings

The evidence bundle (raw samples, traces, answers, checks, a SHA-256 manifest) is
`desktop.usecases.report_evidence`.
"""
