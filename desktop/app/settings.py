"""The application's preferences, persisted with QSettings: where the data lives, the peak windows and the
time zone charts are drawn in, the language, what the screens last used, and whether this is the first start
(no setting at all yet: the window then opens Help → Getting started once).

`AppSettings` wraps an injected `QSettings` (tests pass one backed by a temporary ini file) and says when
something changed, so screens follow without polling.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QCoreApplication, QLocale, QObject, QSettings, Signal

from probes.paths import data_dir as default_data_dir
from probes.store_location import StoreLocation, StoreUrl, parse_location

if TYPE_CHECKING:  # probes.peak loads pandas, catalogs.scoring numpy: imported where needed, not at startup
    from catalogs.scoring import RankingMethod
    from probes.peak import PeakWindow

LANGUAGES = ("en", "zh_CN")
DB_FILE_NAME = "linkvet.sqlite3"  # the same name `probes.paths.default_db_path` uses
TARGETS_FILE_NAME = "gui-targets.json"


def system_language() -> str:
    return "zh_CN" if QLocale.system().name().lower().startswith("zh") else "en"


def parse_peak_windows(lines: list[str]) -> list[PeakWindow]:
    """Peak windows from their text form, one per entry; raises `PeakWindowError` naming the bad entry."""
    from probes.peak import PeakWindow, PeakWindowError

    windows = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            windows.append(PeakWindow.parse(line))
        except PeakWindowError as exc:
            raise PeakWindowError(
                QCoreApplication.translate("SettingsDialog", "peak window {number}: {reason}").format(
                    number=number, reason=exc
                )
            ) from None
    return windows


class AppSettings(QObject):
    """Typed access to the persisted preferences. `changed(key)` fires after a value is set."""

    changed = Signal(str)

    DATA_DIR = "data/dir"
    STORE_URL = "data/store_url"  # team mode: a PostgreSQL store instead of the data folder's SQLite file
    PEAK_WINDOWS = "peak/windows"
    TIME_ZONE = "display/time_zone"
    LANGUAGE = "display/language"
    PROBE_OPTIONS = "probe/options"
    SCORE_WEIGHTS = "score/weights"
    NEEDS = "score/needs"
    SCORE_METHOD = "score/method"
    EXPORT_DIR = "export/dir"
    SCREEN = "window/screen"
    GETTING_STARTED_SHOWN = "help/getting_started_shown"

    def __init__(self, store: QSettings | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._q = store if store is not None else QSettings("linkvet", "linkvet")
        # No setting at all yet: linkvet starts for the first time for this user (the window greets them).
        self.first_start = not self._q.allKeys()

    @property
    def qsettings(self) -> QSettings:
        return self._q

    def _set(self, key: str, value: Any) -> None:
        if self._q.value(key) == value:
            return
        self._q.setValue(key, value)
        self._q.sync()
        self.changed.emit(key)

    def _json(self, key: str, default: Any) -> Any:
        raw = self._q.value(key)
        if not isinstance(raw, str) or not raw:
            return default
        try:
            return json.loads(raw)
        except ValueError:
            return default

    # -- where the data lives ------------------------------------------------------------------------------

    @property
    def data_dir(self) -> Path:
        raw = self._q.value(self.DATA_DIR)
        return Path(raw) if isinstance(raw, str) and raw else default_data_dir()

    @data_dir.setter
    def data_dir(self, path: Path) -> None:
        self._set(self.DATA_DIR, str(path))

    @property
    def db_path(self) -> Path:
        """The SQLite store in the data folder (the CLI's default with the default data folder)."""
        return self.data_dir / DB_FILE_NAME

    @property
    def store_url(self) -> str:
        """A PostgreSQL store's URL (team mode), or "" for the SQLite store in the data folder."""
        raw = self._q.value(self.STORE_URL)
        return raw if isinstance(raw, str) else ""

    @store_url.setter
    def store_url(self, url: str) -> None:
        self._set(self.STORE_URL, url)

    @property
    def store_location(self) -> StoreLocation:
        """The result store the GUI reads and writes: the PostgreSQL store when one is set, else `db_path`."""
        url = self.store_url
        if url:
            try:
                location = parse_location(url)
            except ValueError:
                return self.db_path  # refused when set (the settings dialog); a hand-edited file falls back
            if isinstance(location, StoreUrl):
                return location
        return self.db_path

    @property
    def targets_path(self) -> Path:
        return self.data_dir / TARGETS_FILE_NAME

    # -- peak windows and time zone ------------------------------------------------------------------------

    @property
    def peak_window_texts(self) -> list[str]:
        value = self._json(self.PEAK_WINDOWS, None)
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return value
        from probes.peak import DEFAULT_PEAK_WINDOWS

        return [str(w) for w in DEFAULT_PEAK_WINDOWS]

    @property
    def peak_windows(self) -> list[PeakWindow]:
        from probes.peak import DEFAULT_PEAK_WINDOWS, PeakWindowError

        try:
            return parse_peak_windows(self.peak_window_texts)
        except PeakWindowError:
            return list(DEFAULT_PEAK_WINDOWS)

    @peak_windows.setter
    def peak_windows(self, windows: list[PeakWindow]) -> None:
        self._set(self.PEAK_WINDOWS, json.dumps([str(w) for w in windows]))

    @property
    def time_zone(self) -> str:
        """The zone charts draw hours of the day in (default: the first peak window's zone)."""
        raw = self._q.value(self.TIME_ZONE)
        if isinstance(raw, str) and raw:
            return raw
        windows = self.peak_windows
        return windows[0].tz if windows else "UTC"

    @time_zone.setter
    def time_zone(self, zone: str) -> None:
        self._set(self.TIME_ZONE, zone)

    # -- language --------------------------------------------------------------------------------------------

    @property
    def language(self) -> str:
        raw = self._q.value(self.LANGUAGE)
        return raw if raw in LANGUAGES else system_language()

    @language.setter
    def language(self, code: str) -> None:
        if code not in LANGUAGES:
            raise ValueError(f"unknown language {code!r} (expected one of {', '.join(LANGUAGES)})")
        self._set(self.LANGUAGE, code)

    # -- what the screens last used -------------------------------------------------------------------------

    @property
    def probe_options(self) -> dict[str, Any]:
        value = self._json(self.PROBE_OPTIONS, {})
        return value if isinstance(value, dict) else {}

    @probe_options.setter
    def probe_options(self, value: dict[str, Any]) -> None:
        self._set(self.PROBE_OPTIONS, json.dumps(value, sort_keys=True))

    @property
    def score_weights(self) -> dict[str, float]:
        value = self._json(self.SCORE_WEIGHTS, {})
        if not isinstance(value, dict):
            return {}
        return {str(k): float(v) for k, v in value.items() if isinstance(v, int | float)}

    @score_weights.setter
    def score_weights(self, value: dict[str, float]) -> None:
        self._set(self.SCORE_WEIGHTS, json.dumps(value, sort_keys=True))

    @property
    def score_method(self) -> RankingMethod:
        return "topsis" if self._q.value(self.SCORE_METHOD) == "topsis" else "weighted-sum"

    @score_method.setter
    def score_method(self, method: str) -> None:
        self._set(self.SCORE_METHOD, method)

    @property
    def needs(self) -> dict[str, Any]:
        value = self._json(self.NEEDS, {})
        return value if isinstance(value, dict) else {}

    @needs.setter
    def needs(self, value: dict[str, Any]) -> None:
        self._set(self.NEEDS, json.dumps(value, sort_keys=True))

    @property
    def export_dir(self) -> Path:
        raw = self._q.value(self.EXPORT_DIR)
        return Path(raw) if isinstance(raw, str) and raw else Path.home()

    @export_dir.setter
    def export_dir(self, path: Path) -> None:
        self._set(self.EXPORT_DIR, str(path))

    @property
    def getting_started_shown(self) -> bool:
        """Help → Getting started has been shown by itself once (on the first start)."""
        return str(self._q.value(self.GETTING_STARTED_SHOWN, "")).lower() == "true"

    @getting_started_shown.setter
    def getting_started_shown(self, shown: bool) -> None:
        self._set(self.GETTING_STARTED_SHOWN, "true" if shown else "false")

    @property
    def screen(self) -> int:
        raw = self._q.value(self.SCREEN)
        try:
            return int(raw) if raw is not None else 0
        except (TypeError, ValueError):
            return 0

    @screen.setter
    def screen(self, index: int) -> None:
        self._set(self.SCREEN, index)
