"""Render each screen of the desktop application to a PNG (the README's screenshots).

    xvfb-run -a -s "-screen 0 1400x900x24" python packaging/screenshots.py [--out desktop/manual/images]
        [--language en|zh_CN]

Runs from a checkout, in a private temporary data folder and settings file: the Charts screen reads a
synthetic week of history written through the real store (`tests/gui/synthetic.py`, labelled as such in the
targets' names); the Probe screen shows a real probe of loopback addresses run for the picture; the Routes
screen a real trace (as root through the route lab's routers, `tests/lab/route_lab.py`; else of loopback)
above a synthetic region's route history (`tests/gui/synthetic_routes.py`). Last, the Charts screen's Offices
compared tab over a second store three synthetic offices measured yesterday (`tests/analysis/test_vantages.py`).
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
    parser.add_argument("--out", type=Path, default=REPO / "desktop" / "manual" / "images")
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
    write_routes(data / "linkvet.sqlite3")
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
    shoot_routes(window, wait_for, shoot)

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
    shoot_offices(window, work, wait_for, shoot)
    window.close()
    return 0


def shoot_offices(window, work: Path, wait_for, shoot) -> None:  # type: ignore[no-untyped-def]
    """The Charts screen's Offices compared tab: a second data folder whose store three synthetic offices
    (Shanghai, Beijing, Shenzhen) filled over yesterday (`tests/analysis/test_vantages.py`'s `write_offices`)."""
    from probes import timestamps
    from probes.store import Store
    from tests.analysis.test_vantages import write_offices

    offices = work / "offices"
    offices.mkdir()
    day_us = 86_400_000_000
    with Store(offices / "linkvet.sqlite3") as store:
        write_offices(store, (timestamps.now_us() // day_us - 1) * day_us)
    charts = window.go_to("charts")
    charts.range.setCurrentIndex(3)  # last 7 days
    window.context.settings.data_dir = offices
    charts.reload_targets()
    wait_for(lambda: not charts.offices_loading and bool(charts.offices.comparisons))
    charts.tabs.setCurrentWidget(charts.offices)
    shoot("charts-offices")


def write_routes(db: Path) -> None:
    """Ten synthetic days of traces of one region whose line fell from CN2 GIA to 163 on a Tuesday at 21:00
    (Shanghai time), with its echoes (`tests/gui/synthetic_routes.py`)."""
    from datetime import datetime, timedelta

    from tests.gui.synthetic import SHANGHAI
    from tests.gui.synthetic_routes import write_route_history

    now = datetime.now(tz=SHANGHAI)
    back = (now.weekday() - 1) % 7 or 7  # the last Tuesday before today
    change = (now - timedelta(days=back)).replace(hour=21, minute=0, second=0, microsecond=0)
    start = change - timedelta(hours=3 * 24)  # traces every 3 hours: one falls on the change
    write_route_history(db, start=start, change_at=change, days=(now - start).total_seconds() / 86400)


def shoot_routes(window, wait_for, shoot) -> None:  # type: ignore[no-untyped-def]
    """The Routes screen: a real trace (through the route lab's CN2/163-addressed routers as root, else of
    loopback) above the synthetic region's history."""
    routes = window.go_to("routes")
    routes.history.period.setCurrentIndex(1)  # last 30 days
    from tests.lab.route_lab import RouteLab, lab_unavailable_reason

    if lab_unavailable_reason() is None:
        with RouteLab({"gt": ["202.97.1.1", "59.43.3.1"]}, icmp_ratelimit_ms=0) as lab:
            assert lab.office is not None
            routes.child_prefix = ("ip", "netns", "exec", lab.office.name)
            routes.target.setEditText(lab.region("gt"))
            routes.claim.setCurrentIndex(routes.claim.findData("cn2-gia"))
            routes.probes.setValue(5)
            routes.save.setChecked(False)
            routes.start_trace()
            wait_for(lambda: not routes.running)
    else:
        routes.target.setEditText("127.0.0.1")
        routes.protocol.setCurrentText("udp")
        routes.save.setChecked(False)
        routes.start_trace()
        wait_for(lambda: not routes.running)
    wait_for(lambda: routes.history.history is not None and not routes.history.loading)
    shoot("routes")


if __name__ == "__main__":
    sys.exit(main())
