"""Printing the report's HTML to PDF with Qt's own PDF writer (`QTextDocument` + `QPdfWriter`), run as a child
process by `desktop.usecases.report.print_pdf`:

    QT_QPA_PLATFORM=offscreen python -m desktop.pdf REPORT.html OUT.pdf --title TITLE

A child, so that the CLI, the agent and every use-case stay free of Qt (tests/test_layering.py) and a renderer
that fails or hangs cannot take its caller with it. It needs PySide6 (the `gui` extra, which every installer
bundles); without it the child says so and exits 3. Qt embeds the fonts it draws with as subsets (for
Chinese the system's CJK font: Noto Sans CJK, Source Han Sans, Microsoft YaHei or PingFang), and writes the
text with its Unicode mapping, so the PDF's text can be searched and copied.
"""
