"""The GUI in team mode: the settings take a PostgreSQL store's URL (refusing what is not one, never showing a
password), and the Probe screen stores its round there and the Charts screen reads it back, on a real server."""

from __future__ import annotations

from PySide6.QtCore import QSettings, Qt

from desktop.app.settings import AppSettings
from desktop.app.settings_dialog import SettingsDialog
from desktop.usecases.probe_list import TargetEntry
from probes.store import Store
from probes.store_location import StoreUrl
from probes.target import Method, Target


def test_the_settings_take_a_shared_store_url_and_refuse_other_text(qapp, qtbot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    settings = AppSettings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    assert settings.store_location == settings.db_path  # the data folder's SQLite file by default
    dialog = SettingsDialog(settings)
    qtbot.addWidget(dialog)
    dialog.store_url.setText("mysql://agent:topsecret@db.example/linkvet")
    dialog.accept()
    assert dialog.result() == 0 and "postgresql:// URL" in dialog.error.text()
    assert "topsecret" not in dialog.error.text()
    dialog.store_url.setText("postgresql://agent:topsecret@db.example/linkvet")
    dialog.accept()
    assert dialog.result() == 0 and "~/.pgpass" in dialog.error.text()  # never kept in the settings file
    ini = tmp_path / "s.ini"
    assert not ini.exists() or "topsecret" not in ini.read_text(encoding="utf-8")
    dialog.store_url.setText("postgresql://agent@db.example/linkvet?sslmode=verify-full")
    dialog.accept()
    assert dialog.result() == 1
    again = AppSettings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    assert again.store_location == StoreUrl("postgresql://agent@db.example/linkvet?sslmode=verify-full")
    again.store_url = ""
    assert again.store_location == again.db_path


def test_a_probe_round_goes_to_the_shared_store_and_the_charts_read_it(
    window, qtbot, listener, postgres_url
) -> None:  # type: ignore[no-untyped-def]
    window.context.settings.store_url = postgres_url
    assert postgres_url.split("?")[0] in window.store_label.text()
    window.context.targets.set_entries(
        [TargetEntry(Target(Method.TCP, host="127.0.0.1", port=listener, name="tcp listener"))]
    )
    probe = window.go_to("probe")
    probe.count.setValue(5)
    probe.interval.setValue(0.01)
    qtbot.mouseClick(probe.run_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not probe.running, timeout=60_000)
    assert "stored as round" in window.statusBar().currentMessage()
    with Store(postgres_url, readonly=True) as store:
        assert store.counts()["rounds"] == 1 and store.counts()["samples"] == 5
    assert not window.context.settings.db_path.exists()  # nothing went to the data folder's file
    charts = window.go_to("charts")
    qtbot.waitUntil(lambda: charts.model.rowCount() == 1, timeout=10_000)
    window.context.settings.store_url = ""  # what the screens load after this test: the (absent) file
    window.context.workers.wait(30_000)
