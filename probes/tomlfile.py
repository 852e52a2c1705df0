"""Reading the TOML files `probes` takes (plans, network tables): UTF-8 text, then the TOML table, with every
way that can fail put into words once. Each reader passes `error(message, line)`, which builds its own
exception naming the file (`PlanError`, `NetworkTableError`), and raises what it returns."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

ErrorFactory = Callable[[str, int | None], Exception]  # (what is wrong, the 1-based line or None)

_POSITION = re.compile(r" ?\(at line (\d+), column (\d+)\)")


def read_text(path: Path, error: ErrorFactory, *, noun: str = "file") -> str:
    """The file's text. Fails with "no such {noun}", "cannot read the {noun}: …" or "not UTF-8 text (…)"."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise error(f"no such {noun}", None) from None
    except OSError as exc:
        raise error(f"cannot read the {noun}: {exc.strerror or exc}", None) from exc
    except UnicodeDecodeError as exc:
        raise error(f"not UTF-8 text ({exc.reason} at byte {exc.start})", None) from exc


def parse(text: str, error: ErrorFactory, *, syntax: str = "TOML syntax error") -> dict[str, Any]:
    """The TOML table of `text`. Fails with "{syntax}: {the parser's words}" and the line they are about."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        match = _POSITION.search(message)
        line = int(match.group(1)) if match else None
        raise error(f"{syntax}: {_POSITION.sub('', message)}", line) from None
