"""Where linkvet keeps its files by default (the user's data directory, via platformdirs)."""

from __future__ import annotations

from pathlib import Path

import platformdirs

APP_NAME = "linkvet"


def data_dir() -> Path:
    """The user's data directory for linkvet (e.g. ~/.local/share/linkvet); not created here."""
    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def default_db_path() -> Path:
    return data_dir() / "linkvet.sqlite3"


def log_path() -> Path:
    return data_dir() / "linkvet.log"


def default_spool_path() -> Path:
    """The spool of measured rounds a store could not take yet (`probes.store.sqlite.spool`)."""
    return data_dir() / "linkvet-spool.sqlite3"
