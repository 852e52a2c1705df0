"""Render the manual's pictures (`desktop/manual/images/`) with `linkvet gui --screenshot`'s own function
(`desktop.app.screenshots.write_screenshots`), offscreen, over a store that shows every screen with data:

    python packaging/screenshots.py [--out desktop/manual/images] [--language en|zh_CN] [--size 1280x800]
        [--all]

Runs from a checkout, in a private temporary data folder and settings file. The store holds: the bundled
example evaluation, measured once for real (its three loopback candidates, by the agent's own command) for
the evaluation home; a synthetic week of history written through the real store (`tests/gui/synthetic.py`,
labelled as such in the targets' names) for Charts, Needs & score and Export; a synthetic region's route
history (`tests/gui/synthetic_routes.py`) under a real trace (as root through the route lab's routers,
`tests/lab/route_lab.py`; else of loopback) for Routes; three synthetic offices measured yesterday
(`tests/analysis/test_vantages.py`) for Charts → Offices compared. The Probe screen shows a real probe of
loopback addresses run for the picture. Only the pictures the manual shows are written (`--all`: every screen,
the guide's pages and the dialogs too), in Chinese with the suffix `-zh_CN`.
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

# The pictures the manual shows (desktop/manual/*/desktop-app.md), in English and in Chinese.
ENGLISH = {
    "home",
    "wizard-candidates",
    "targets",
    "probe",
    "charts-timeline",
    "charts-hour-of-day",
    "charts-day-hour",
    "charts-cdf",
    "charts-offices",
    "routes",
    "catalog",
    "score",
    "score-weights",
    "export",
}
CHINESE = {"home", "probe", "charts-hour-of-day", "charts-day-hour", "charts-offices", "routes", "score"}


def main() -> int:
    from desktop.launch import window_size

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO / "desktop" / "manual" / "images")
    parser.add_argument("--language", default="en", choices=["en", "zh_CN"])
    parser.add_argument("--size", type=window_size, default=(1280, 800))
    parser.add_argument("--days", type=float, default=7)
    parser.add_argument("--all", action="store_true", help="every screen, in either language")
    args = parser.parse_args()

    from desktop.launch import WindowOptions, _offscreen

    _offscreen(args.size)
    work = Path(tempfile.mkdtemp(prefix="linkvet-shots-"))
    data = work / "data"
    data.mkdir()
    db = data / "linkvet.sqlite3"
    os.environ["XDG_DATA_HOME"] = str(work / "xdg")  # the agent's spool and records: private too
    os.environ["LINKVET_CATALOG_DIR"] = str(work / "catalogs")
    prepare(db, data, args.days)

    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from desktop.app.screenshots import write_screenshots

    qsettings = QSettings(str(work / "settings.ini"), QSettings.Format.IniFormat)
    qsettings.setValue("data/dir", str(data))
    qsettings.setValue("probe/options", '{"count": 30, "interval_s": 0.05, "timeout_s": 1.0, "store": false}')
    app = QApplication.instance() or QApplication([sys.argv[0]])
    assert isinstance(app, QApplication)
    chinese = args.language == "zh_CN"
    options = WindowOptions(db=db, language=args.language, screenshot=args.out, size=args.size)
    return write_screenshots(
        app,
        options,
        qsettings=qsettings,
        stage=ManualStage(),
        suffix="-zh_CN" if chinese else "",
        only=None if args.all else CHINESE if chinese else ENGLISH,
    )


def prepare(db: Path, data: Path, days: float) -> None:
    """The store and the probe list the pictures show (see the module)."""
    from desktop.usecases.agent_process import measure_once
    from desktop.usecases.evaluation import ensure_example
    from desktop.usecases.probe_list import ProbeListFile, TargetEntry
    from probes import timestamps
    from probes.store import Store
    from probes.target import Method, Target
    from tests.analysis.test_vantages import write_offices
    from tests.gui.synthetic import DEMO_LINES, write_history

    print(f"writing {days} days of synthetic history…", flush=True)
    write_history(db, days=days)
    write_routes(db)
    day_us = 86_400_000_000
    with Store(db) as store:
        write_offices(store, (timestamps.now_us() // day_us - 1) * day_us)
    print("measuring the example evaluation once (loopback)…", flush=True)
    measure_once(db, ensure_example(db), None)
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


class ManualStage:
    """Sets each screen up as the manual shows it."""

    def before(self, window, name: str) -> None:  # type: ignore[no-untyped-def]
        from desktop.app.screenshots import wait_idle

        if name == "probe":
            probe = window.screens["probe"]
            probe.start_run()
            wait_idle(window, condition=lambda: not probe.running)
            probe.table.selectRow(0)
        elif name == "charts-timeline":
            self.charts(window)
        elif name == "routes":
            self.routes(window)
        elif name == "catalog":
            self.catalog(window)
        elif name == "export":
            export = window.screens["export"]
            export.out.setText(str(Path(tempfile.mkdtemp()) / "linkvet-comparison.xlsx"))
            export.start_export()
            wait_idle(window, timeout_s=300, condition=lambda: not export.running)

    @staticmethod
    def charts(window) -> None:  # type: ignore[no-untyped-def]
        from desktop.app.screenshots import wait_idle
        from tests.gui.synthetic import DEMO_LINES

        charts = window.screens["charts"]
        wait_idle(window, condition=lambda: charts.model.rowCount() > 0)
        rows = {charts.model.target(r).name: r for r in range(charts.model.rowCount())}
        charts.list.selectRow(rows[DEMO_LINES[1].target.name])
        charts.range.setCurrentIndex(3)  # last 7 days
        for line in DEMO_LINES[:3]:
            charts.model.setData(charts.model.index(rows[line.target.name], 0), 2, 10)  # CheckStateRole = 10
        wait_idle(window, condition=lambda: not charts.loading)

    @staticmethod
    def routes(window) -> None:  # type: ignore[no-untyped-def]
        """A real trace (through the route lab's CN2/163-addressed routers as root, else of loopback) above
        the synthetic region's history."""
        from desktop.app.screenshots import wait_idle
        from tests.lab.route_lab import RouteLab, lab_unavailable_reason

        routes = window.screens["routes"]
        routes.history.period.setCurrentIndex(1)  # last 30 days
        if lab_unavailable_reason() is None:
            with RouteLab({"gt": ["202.97.1.1", "59.43.3.1"]}, icmp_ratelimit_ms=0) as lab:
                assert lab.office is not None
                routes.child_prefix = ("ip", "netns", "exec", lab.office.name)
                routes.target.setEditText(lab.region("gt"))
                routes.claim.setCurrentIndex(routes.claim.findData("cn2-gia"))
                routes.probes.setValue(5)
                routes.save.setChecked(False)
                routes.start_trace()
                wait_idle(window, condition=lambda: not routes.running)
        else:
            routes.target.setEditText("127.0.0.1")
            routes.protocol.setCurrentText("udp")
            routes.save.setChecked(False)
            routes.start_trace()
            wait_idle(window, condition=lambda: not routes.running)
        wait_idle(window, condition=lambda: routes.history.region.count() > 0)
        region = routes.history.region
        for index in range(region.count()):  # the synthetic region (tests/gui/synthetic_routes.py)
            if tuple(region.itemData(index) or ()) == ("raksmart", "san-jose"):
                region.setCurrentIndex(index)
        wait_idle(window, condition=lambda: routes.history.history is not None and not routes.history.loading)

    @staticmethod
    def catalog(window) -> None:  # type: ignore[no-untyped-def]
        """An offering whose facts and regions' probe endpoints the catalog states, in view and selected."""
        from PySide6.QtWidgets import QAbstractItemView

        from desktop.app.models.offerings import OfferingsModel
        from desktop.app.screenshots import wait_idle

        catalog = window.screens["catalog"]
        wait_idle(window, condition=lambda: catalog.model.rowCount() > 0)
        catalog.gpu.setCurrentText("H100")
        for row in range(catalog.proxy.rowCount()):
            offering = catalog.proxy.data(catalog.proxy.index(row, 0), OfferingsModel.RowRole)
            if offering["provider"] == "aws" and offering["id"] == "p5.48xlarge":
                catalog.table.selectRow(row)
                catalog.table.scrollTo(
                    catalog.proxy.index(row, 0), QAbstractItemView.ScrollHint.PositionAtCenter
                )
                break
        if catalog.region.count() > 1:
            catalog.region.setCurrentIndex(1)


if __name__ == "__main__":
    sys.exit(main())
