"""The PySide6 desktop application: screens that render, workers that call the same core functions the
headless `linkvet` command calls.

    desktop/app/main.py          QApplication, translator, the main window (`linkvet gui`)
    desktop/app/main_window.py   the window: a screen list on the left, the screens, the status bar
    desktop/app/*_screen.py      one module per screen (Targets, Probe, Charts, Catalog, Score, Export)
    desktop/app/widgets/         reusable widgets (plots, the sparkline and line-type delegates)
    desktop/app/models/          Qt item models the views read (unit-tested without a window)
    desktop/app/workers.py       QRunnable tasks: probes, store queries and exports off the GUI thread
    desktop/app/chart_data.py    Qt-free arrays for the charts, computed in workers
    desktop/app/timeline_data.py the timeline's bins and the time each box covers (Qt-free)
    desktop/app/settings.py      QSettings-backed preferences
    desktop/app/i18n.py          run-time language switching (translations/*.ts → *.qm)

Importing this package pins pyqtgraph to PySide6 (it would otherwise try PyQt6 first).
"""

import os

os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")
