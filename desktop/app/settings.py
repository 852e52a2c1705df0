"""The application's preferences, persisted with QSettings: where the data lives, the peak windows and the
time zone charts are drawn in, the language, what the screens last used, the evaluation last opened, and
whether this is the first start (no setting at all yet: the window then opens Help → Getting started once).

The same settings as every command: the store is `--db` when the window was started with it, else
`LINKVET_DB` when set, else the window's own choice (the data folder's file or a shared store); `--lang` is the
language of this run. While an evaluation is open its peak windows are the window's (charts, scoring).

`AppSettings` wraps an injected `QSettings` (tests pass one backed by a temporary ini file) and says when
something changed, so screens follow without polling.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QCoreApplication, QLocale, QObject, QSettings, Signal

from probes.paths import data_dir as default_data_dir
from probes.store_location import ENV_VARIABLE, StoreLocation, StoreUrl, parse_location

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
    SCREEN = "window/screen_key"
    GETTING_STARTED_SHOWN = "help/getting_started_shown"
    EVALUATION = "home/evaluation"
    OFFICES = "home/offices"  # {evaluation: the office this computer measures from}

    def __init__(
        self,
        store: QSettings | None = None,
        parent: QObject | None = None,
        *,
        store_override: StoreLocation | None = None,
        language_override: str | None = None,
    ) -> None:
        super().__init__(parent)
        self._q = store if store is not None else QSettings("linkvet", "linkvet")
        # No setting at all yet: linkvet starts for the first time for this user (the window greets them).
        self.first_start = not self._q.allKeys()
        self._store_override = store_override  # --db
        self._language_override = language_override if language_override in LANGUAGES else None  # --lang
        self._evaluation_windows: list[PeakWindow] | None = None

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
    def store_fixed_by(self) -> str | None:
        """What chose the store instead of the window's settings: "--db", "LINKVET_DB", or None."""
        if self._store_override is not None:
            return "--db"
        if self._environment_store() is not None:
            return ENV_VARIABLE
        return None

    @staticmethod
    def _environment_store() -> StoreLocation | None:
        text = os.environ.get(ENV_VARIABLE, "")
        if not text:
            return None
        try:
            return parse_location(text)
        except ValueError:
            return None  # the CLI refuses it with its reason; the window keeps its own store

    @property
    def store_location(self) -> StoreLocation:
        """The result store the GUI reads and writes: `--db`, else `LINKVET_DB`, else the PostgreSQL store
        when one is set, else `db_path`."""
        if self._store_override is not None:
            return self._store_override
        if (environment := self._environment_store()) is not None:
            return environment
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
        """The open evaluation's peak windows; with none open, the window's own (Settings)."""
        from probes.peak import DEFAULT_PEAK_WINDOWS, PeakWindowError

        if self._evaluation_windows is not None:
            return list(self._evaluation_windows)
        try:
            return parse_peak_windows(self.peak_window_texts)
        except PeakWindowError:
            return list(DEFAULT_PEAK_WINDOWS)

    @peak_windows.setter
    def peak_windows(self, windows: list[PeakWindow]) -> None:
        self._set(self.PEAK_WINDOWS, json.dumps([str(w) for w in windows]))

    @property
    def evaluation_windows(self) -> list[PeakWindow] | None:
        return None if self._evaluation_windows is None else list(self._evaluation_windows)

    @evaluation_windows.setter
    def evaluation_windows(self, windows: list[PeakWindow] | None) -> None:
        """The open evaluation's peak windows (None: no evaluation open); not persisted: the evaluation
        holds them."""
        before = None if self._evaluation_windows is None else [str(w) for w in self._evaluation_windows]
        after = None if windows is None else [str(w) for w in windows]
        self._evaluation_windows = None if windows is None else list(windows)
        if before != after:
            self.changed.emit(self.PEAK_WINDOWS)

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
        """`--lang` of this run; else the one chosen in the window; else the system's."""
        if self._language_override is not None:
            return self._language_override
        raw = self._q.value(self.LANGUAGE)
        return raw if raw in LANGUAGES else system_language()

    @language.setter
    def language(self, code: str) -> None:
        if code not in LANGUAGES:
            raise ValueError(f"unknown language {code!r} (expected one of {', '.join(LANGUAGES)})")
        before, stored = self.language, self._q.value(self.LANGUAGE)
        self._language_override = None  # a choice in the window outlasts the run's --lang
        self._set(self.LANGUAGE, code)  # says so when the stored choice changed
        if stored == code and before != code:
            self.changed.emit(self.LANGUAGE)

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
    def screen(self) -> str:
        """The key of the screen shown last ("" before any: the evaluation's home)."""
        raw = self._q.value(self.SCREEN)
        return raw if isinstance(raw, str) else ""

    @screen.setter
    def screen(self, key: str) -> None:
        self._set(self.SCREEN, key)

    # -- the evaluation -------------------------------------------------------------------------------------

    @property
    def evaluation(self) -> str:
        """The evaluation opened last ("" when none yet): it opens at the next start."""
        raw = self._q.value(self.EVALUATION)
        return raw if isinstance(raw, str) else ""

    @evaluation.setter
    def evaluation(self, name: str) -> None:
        self._set(self.EVALUATION, name)

    def office(self, evaluation: str) -> str | None:
        """The office this computer measures an evaluation from (None: not said; the first office)."""
        value = self._json(self.OFFICES, {})
        chosen = value.get(evaluation) if isinstance(value, dict) else None
        return chosen if isinstance(chosen, str) and chosen else None

    def set_office(self, evaluation: str, office: str | None) -> None:
        value = self._json(self.OFFICES, {})
        value = dict(value) if isinstance(value, dict) else {}
        if office:
            value[evaluation] = office
        else:
            value.pop(evaluation, None)
        self._set(self.OFFICES, json.dumps(value, sort_keys=True))
