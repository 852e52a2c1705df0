"""linkvet's two faces over the Qt-free core (`probes`, `catalogs`), and what they share.

    desktop/cli/       the `linkvet` command (no Qt): parses arguments, calls the use-cases, prints
    desktop/app/       the PySide6 desktop application: screens render, workers call the use-cases
    desktop/usecases/  the use-cases both faces run (measured links, ranking, sizing, export, catalogs, the
                       probe list and its plans), Qt-free and importing neither face
    desktop/export/    the comparison workbook's sheets and its xlsx/csv writers (Qt-free)
    desktop/report/    the decision report: its data, its charts (matplotlib) and its HTML (Qt-free)
    desktop/pdf/       the report's PDF printer: Qt's PDF writer, run as a child process (never imported)
    desktop/manual/    the user guide: Markdown pages in en/ and zh_CN/ (shipped, shown by the app's Help
                       menu, rendered by GitHub) and the Qt-free module that finds a page in a language
    desktop/launch.py  the one seam between the faces: opens the app's window for `linkvet gui`

The CLI and the app never import each other (`tests/test_layering.py`). This module imports nothing, so
`desktop.cli` stays free of Qt.
"""
