"""Render each screen of the desktop application to a PNG (the README's screenshots).

    xvfb-run -a -s "-screen 0 1400x900x24" python packaging/screenshots.py [--out packaging/screenshots]
        [--language en|zh_CN]

Runs from a checkout, in a private temporary data folder and settings file: the Charts screen reads a
synthetic week of history written through the real store (`tests/gui/synthetic.py`, labelled as such in the
targets' names); the Probe screen shows a real probe of loopback addresses run for the picture.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO / "packaging" / "screenshots")
    parser.add_argument("--language", default="en", choices=["en", "zh_CN"])
    parser.add_argument("--days", type=float, default=7)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)

    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QAbstractItemView, QApplication

    from desktop.app.main import build_window
    from desktop.app.models.offerings import OfferingsModel
    from desktop.usecases.probe_list import ProbeListFile, TargetEntry
    from probes.target import Method, Target
    from tests.gui.synthetic import DEMO_LINES, write_history

    work = Path(tempfile.mkdtemp(prefix="linkvet-shots-"))
    data = work / "data"
    data.mkdir()
    print(f"writing {args.days} days of synthetic history…", flush=True)
    write_history(data / "linkvet.sqlite3", days=args.days)
    loopback = [
        TargetEntry(Target(Method.ICMP, host=f"127.0.0.{i}", name=f"loopback 127.0.0.{i}", line_type="local"))
        for i in range(1, 6)
    ]
    loopback.append(
        TargetEntry(
            Target(Method.HTTP, url="http://127.0.0.1:9/", name="closed HTTP port", line_type="local")
        )
    )
    demo = [TargetEntry(line.target, origin="synthetic", enabled=False) for line in DEMO_LINES]
    ProbeListFile(data / "gui-targets.json").save(loopback + demo)

    qsettings = QSettings(str(work / "settings.ini"), QSettings.Format.IniFormat)
    qsettings.setValue("data/dir", str(data))
    qsettings.setValue("display/language", args.language)
    qsettings.setValue("probe/options", '{"count": 30, "interval_s": 0.05, "timeout_s": 1.0, "store": false}')
    app = QApplication.instance() or QApplication([sys.argv[0]])
    window = build_window(app, qsettings)  # type: ignore[arg-type]
    window.resize(1360, 860)
    window.show()
    suffix = "" if args.language == "en" else f"-{args.language}"

    def settle(ms: int = 300) -> None:
        from PySide6.QtCore import QEventLoop, QTimer

        loop = QEventLoop()
        QTimer.singleShot(ms, loop.quit)
        loop.exec()

    def wait_for(condition, timeout_s: float = 60) -> None:  # type: ignore[no-untyped-def]
        import time

        deadline = time.monotonic() + timeout_s
        while not condition():
            if time.monotonic() > deadline:
                raise TimeoutError("screen did not finish in time")
            settle(50)

    def shoot(name: str) -> None:
        settle(400)
        path = args.out / f"{name}{suffix}.png"
        window.grab().save(str(path), "PNG")
        print(path)

    window.go_to("targets")
    shoot("targets")

    probe = window.go_to("probe")
    probe.start_run()
    wait_for(lambda: not probe.running)
    probe.table.selectRow(0)
    shoot("probe")

    charts = window.go_to("charts")
    wait_for(lambda: charts.model.rowCount() > 0)
    rows = {charts.model.target(r).name: r for r in range(charts.model.rowCount())}
    first = rows[DEMO_LINES[1].target.name]
    charts.list.selectRow(first)
    charts.range.setCurrentIndex(3)  # last 7 days
    for line in DEMO_LINES[:3]:
        charts.model.setData(charts.model.index(rows[line.target.name], 0), 2, 10)  # CheckStateRole = 10
    settle(200)
    wait_for(lambda: not charts.loading)
    for index, name in enumerate(["charts-timeline", "charts-hour-of-day", "charts-day-hour", "charts-cdf"]):
        charts.tabs.setCurrentIndex(index)
        shoot(name)
    catalog = window.go_to("catalog")
    wait_for(lambda: catalog.model.rowCount() > 0)
    catalog.gpu.setCurrentText("H100")
    settle(200)
    # An offering whose facts and regions' probe endpoints the catalog states, in view and selected.
    for row in range(catalog.proxy.rowCount()):
        offering = catalog.proxy.data(catalog.proxy.index(row, 0), OfferingsModel.RowRole)
        if offering["provider"] == "aws" and offering["id"] == "p5.48xlarge":
            catalog.table.selectRow(row)
            catalog.table.scrollTo(catalog.proxy.index(row, 0), QAbstractItemView.ScrollHint.PositionAtCenter)
            break
    settle(100)
    if catalog.region.count() > 1:
        catalog.region.setCurrentIndex(1)
    shoot("catalog")

    score = window.go_to("score")
    wait_for(lambda: score.ranking is not None and not score.busy)
    shoot("score")
    score.left_tabs.setCurrentIndex(1)
    score.scorecard.detail_tabs.setCurrentIndex(1)
    shoot("score-weights")

    export = window.go_to("export")
    export.out.setText(str(work / "linkvet-comparison.xlsx"))
    export.start_export()
    wait_for(lambda: not export.running, timeout_s=300)
    shoot("export")
    window.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
