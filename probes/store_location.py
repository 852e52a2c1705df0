"""Where a result store is: a SQLite file (a path) or a PostgreSQL database (a `postgresql://` URL).

`parse_location` reads what `--db` or `LINKVET_DB` says; `default_location` is `LINKVET_DB` when set, else the
SQLite file in the user's data directory. A URL is kept as a `StoreUrl`, whose `str()` is the URL with its
password replaced by `***` (in the user part and in a `password=` parameter), so a message, a log line or a
plan file that names the store never holds a password. Credentials are meant to come from libpq's usual places
instead: the password file (`~/.pgpass`, `PGPASSFILE`), the `PG*` environment variables, a service file;
`sslmode` and the other libpq parameters go in the URL's query (`?sslmode=verify-full`).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote

from probes.errors import StoreError
from probes.i18n import _
from probes.paths import default_db_path

ENV_VARIABLE = "LINKVET_DB"
POSTGRES_SCHEMES = ("postgresql", "postgres")
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")
_USER_PART = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*://)([^@/?#]*)@")
_PASSWORD_PARAMETER = re.compile(r"(?i)(^|[?&])(password=)[^&#]*")


@dataclass(frozen=True, slots=True)
class StoreUrl:
    """A PostgreSQL store's URL (libpq's form); `str()` and `repr()` show it without its password."""

    url: str = field(repr=False)

    def __str__(self) -> str:
        return redacted(self.url)

    def __repr__(self) -> str:
        return f"StoreUrl({redacted(self.url)!r})"

    @property
    def password(self) -> str | None:
        """The password written in the URL itself, if any (so that it can be kept out of driver messages)."""
        user_part = _USER_PART.match(self.url)
        if user_part and ":" in user_part.group(2):
            return user_part.group(2).split(":", 1)[1] or None
        match = re.search(r"(?i)[?&]password=([^&#]*)", self.url)
        return match.group(1) if match and match.group(1) else None


StoreLocation = Path | StoreUrl


def redacted(url: str) -> str:
    """`url` with any password replaced by `***` (postgresql://user:***@host/db)."""

    def user_part(match: re.Match[str]) -> str:
        user = match.group(2)
        return f"{match.group(1)}{user.split(':', 1)[0] + ':***' if ':' in user else user}@"

    return _PASSWORD_PARAMETER.sub(r"\1\2***", _USER_PART.sub(user_part, url, count=1))


def parse_location(text: str) -> StoreLocation:
    """A store's location from `--db`/`LINKVET_DB` text: a `postgresql://` (or `postgres://`) URL, else a
    path. Another `scheme://` is refused (ValueError, saying what is taken), as is a URL libpq cannot read."""
    match = _SCHEME.match(text)
    if match is None:
        if not text:
            raise ValueError(_("an empty store location: give a file path or a postgresql:// URL"))
        return Path(text)
    scheme = match.group(1).lower()
    if scheme not in POSTGRES_SCHEMES:
        raise ValueError(
            _(
                "{location}: a store is a SQLite file path or a postgresql:// URL; the scheme {scheme}:// is not one"
            ).format(location=redacted(text), scheme=scheme)
        )
    from psycopg.conninfo import conninfo_to_dict  # here: only a URL needs psycopg

    try:
        conninfo_to_dict(text)
    except Exception as exc:  # psycopg.ProgrammingError: libpq's parser refused it
        reason = without_password(str(exc).strip(), StoreUrl(text))
        raise ValueError(
            _("{location}: not a PostgreSQL URL libpq can read: {reason}").format(
                location=redacted(text), reason=reason
            )
        ) from None
    return StoreUrl(text)


def default_location() -> StoreLocation:
    """`LINKVET_DB` when it is set (and not empty), else the SQLite file in the user's data directory."""
    text = os.environ.get(ENV_VARIABLE, "")
    if not text:
        return default_db_path()
    try:
        return parse_location(text)
    except ValueError as exc:
        raise StoreError(
            _("the environment variable {variable} does not name a store: {reason}").format(
                variable=ENV_VARIABLE, reason=exc
            )
        ) from None


def location_or_default(location: StoreLocation | str | None) -> StoreLocation:
    """A location as given (a path, a URL, or text to parse), or the default one when None."""
    if location is None:
        return default_location()
    if isinstance(location, str):
        return parse_location(location)
    return location


def identity(location: StoreLocation) -> str:
    """What names a store in the spool: its absolute path, or its URL without the password."""
    return str(location) if isinstance(location, StoreUrl) else str(location.resolve())


def location_text(location: StoreLocation) -> str:
    """The location as given, to hand to a child process of this program (a job's `db_path`): the URL with
    whatever it holds, or the path. Never for people: show `str(location)`."""
    return location.url if isinstance(location, StoreUrl) else str(location)


def exists(location: StoreLocation) -> bool:
    """Whether there is a store there to read: a SQLite file that exists; a server is asked when opened."""
    return True if isinstance(location, StoreUrl) else location.exists()


def _without(text: str, secret: str | None) -> str:
    if not secret:
        return text
    for form in {secret, unquote(secret)}:
        text = text.replace(form, "***")
    return text


def without_password(text: str, url: StoreUrl) -> str:
    """`text` (a driver's message) with the URL, if it quotes it, redacted, and the URL's password, if it
    holds one, replaced by `***` wherever else it appears."""
    return _without(text.replace(url.url, redacted(url.url)), url.password)
