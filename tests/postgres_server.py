"""A real PostgreSQL server for tests (a pytest plugin loaded by tests/conftest.py).

`postgres_server` (session): a throwaway cluster made with Debian's `initdb` in a temporary folder and
started with `pg_ctl`, listening on a Unix socket in that folder (trust, for the test user) and on 127.0.0.1
at a free port (password only: `scram-sha-256`, for the credential tests); stopped with `pg_ctl stop -m fast`
and removed at the end. As root the cluster runs as the `postgres` user (PostgreSQL refuses to run as root).
`LINKVET_TEST_POSTGRES_URL` names an existing server's database instead (nothing is started; the tests that
stop and start a server skip). Without a server binary and without that variable, the tests skip and say why.

`postgres_url` (per test): a URL whose tables live in a fresh schema of the session's database (the URL's
`options` set the search path), dropped after the test. `own_postgres` (per test): a cluster of the test's own,
for tests that stop and start the server.
"""

from __future__ import annotations

import contextlib
import getpass
import glob
import os
import secrets
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest

URL_VARIABLE = "LINKVET_TEST_POSTGRES_URL"
PASSWORD = "linkvet-test-" + secrets.token_hex(8)  # the 127.0.0.1 listener's password (a throwaway cluster)


def server_binaries() -> tuple[Path, Path] | None:
    """(initdb, pg_ctl): on PATH, else the newest of /usr/lib/postgresql/*/bin; None when there are none."""
    initdb, pg_ctl = shutil.which("initdb"), shutil.which("pg_ctl")
    if initdb and pg_ctl:
        return Path(initdb), Path(pg_ctl)
    for folder in sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=_version_key, reverse=True):
        if os.access(Path(folder, "initdb"), os.X_OK) and os.access(Path(folder, "pg_ctl"), os.X_OK):
            return Path(folder, "initdb"), Path(folder, "pg_ctl")
    return None


def _version_key(folder: str) -> tuple[int, ...]:
    name = Path(folder).parent.name
    return tuple(int(part) for part in name.split(".") if part.isdigit())


def _as_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


def _postgres_account() -> tuple[int, int]:
    import pwd  # POSIX only (this module is loaded on Windows too, where the tests skip)

    account = pwd.getpwnam("postgres")
    return account.pw_uid, account.pw_gid


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class PostgresServer:
    """A cluster in its own folder: `start`, `stop`, `url`, `remove` (see the module docstring)."""

    def __init__(self, *, fsync: bool = False) -> None:
        self.fsync = fsync  # off for tests (nothing to survive a power cut); on for benchmarks
        binaries = server_binaries()
        if binaries is None:
            raise RuntimeError("no PostgreSQL server binaries (initdb, pg_ctl)")
        self.initdb, self.pg_ctl = binaries
        self.folder = Path(tempfile.mkdtemp(prefix="linkvet-pg-"))
        self.data = self.folder / "data"
        self.socket_dir = self.folder  # short: a Unix socket path holds at most 107 bytes
        self.log = self.folder / "server.log"
        self.port = _free_port()
        self.user = "postgres" if _as_root() else getpass.getuser()
        if _as_root():
            os.chown(self.folder, *_postgres_account())
        password_file = self.folder / "pwfile"
        self._run_as_owner_write(password_file, PASSWORD + "\n")
        self._run(
            self.initdb,
            "-D",
            str(self.data),
            "-U",
            self.user,
            "--auth-local=trust",
            "--auth-host=scram-sha-256",
            f"--pwfile={password_file}",
            "--encoding=UTF8",
            "--locale=C",
            "--no-sync",
        )
        password_file.unlink()

    def _run_as_owner_write(self, path: Path, text: str) -> None:
        path.write_text(text, encoding="utf-8")
        if _as_root():
            os.chown(path, *_postgres_account())
        path.chmod(0o600)

    def _run(self, *command: object, check: bool = True) -> subprocess.CompletedProcess[str]:
        argv = [str(part) for part in command]
        if _as_root():
            argv = ["runuser", "-u", "postgres", "--", *argv]
        return subprocess.run(argv, capture_output=True, text=True, timeout=120, check=check)

    def start(self) -> None:
        options = (
            f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.socket_dir}"
            f" -c fsync={'on' if self.fsync else 'off'}"
            " -c max_connections=200 -c shared_buffers=128MB"
        )
        done = self._run(
            self.pg_ctl, "-D", self.data, "-o", options, "-l", self.log, "-w", "start", check=False
        )
        if done.returncode != 0:
            log = self.log.read_text(encoding="utf-8", errors="replace") if self.log.exists() else ""
            raise RuntimeError(f"pg_ctl start failed: {done.stdout}{done.stderr}\n{log[-2000:]}")

    def stop(self) -> None:
        self._run(self.pg_ctl, "-D", self.data, "-m", "fast", "-w", "stop", check=False)

    def running(self) -> bool:
        return self._run(self.pg_ctl, "-D", self.data, "status", check=False).returncode == 0

    def remove(self) -> None:
        self.stop()
        shutil.rmtree(self.folder, ignore_errors=True)

    def url(self, database: str = "postgres", *, options: str | None = None) -> str:
        """A URL reaching `database` over the Unix socket as the cluster's superuser (no password)."""
        query = f"host={quote(str(self.socket_dir), safe='')}&port={self.port}"
        if options is not None:
            query += "&options=" + quote(options, safe="")
        return f"postgresql://{self.user}@/{database}?{query}"

    def tcp_url(self, database: str = "postgres") -> str:
        """A URL reaching `database` over 127.0.0.1 (a password is needed: `PASSWORD`), without one."""
        return f"postgresql://{self.user}@127.0.0.1:{self.port}/{database}"


def _admin(url: str, *statements: str) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True, connect_timeout=10) as connection:
        for statement in statements:
            connection.execute(statement)


def _with_options(url: str, options: str) -> str:
    joiner = "&" if "?" in url else "?"
    return f"{url}{joiner}options={quote(options, safe='')}"


class SessionDatabase:
    """The session's database: a URL, and fresh schemas in it."""

    def __init__(self, url: str, server: PostgresServer | None) -> None:
        self.url = url
        self.server = server
        self._count = 0

    def fresh_schema_url(self) -> tuple[str, str]:
        """(URL whose search path is a new empty schema, the schema's name)."""
        self._count += 1
        schema = f"t{os.getpid()}_{self._count}_{secrets.token_hex(3)}"
        _admin(self.url, f"CREATE SCHEMA {schema}")
        return _with_options(self.url, f"-csearch_path={schema}"), schema

    def drop_schema(self, schema: str) -> None:
        with contextlib.suppress(Exception):
            _admin(self.url, f"DROP SCHEMA IF EXISTS {schema} CASCADE")


def _need_psycopg() -> None:
    try:
        import psycopg  # noqa: F401
    except ImportError:
        pytest.skip("psycopg is not installed (pip install '.[test]')")


def _need_binaries() -> None:
    if server_binaries() is None:
        pytest.skip(
            "no PostgreSQL server here: initdb/pg_ctl not on PATH nor in /usr/lib/postgresql/*/bin "
            f"(apt-get install postgresql, or set {URL_VARIABLE})"
        )
    if _as_root():
        try:
            _postgres_account()
        except KeyError:
            pytest.skip("running as root and there is no `postgres` user to run a PostgreSQL server as")


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[SessionDatabase]:
    """The session's PostgreSQL database (see the module docstring)."""
    _need_psycopg()
    given = os.environ.get(URL_VARIABLE)
    if given:
        yield SessionDatabase(given, None)
        return
    _need_binaries()
    server = PostgresServer()
    try:
        server.start()
        database = f"linkvet_test_{secrets.token_hex(4)}"
        _admin(server.url(), f"CREATE DATABASE {database}")
        yield SessionDatabase(server.url(database), server)
    finally:
        server.remove()


@pytest.fixture
def postgres_url(postgres_server: SessionDatabase) -> Iterator[str]:
    """A URL of an empty schema of the session's database, dropped after the test."""
    url, schema = postgres_server.fresh_schema_url()
    try:
        yield url
    finally:
        postgres_server.drop_schema(schema)


@pytest.fixture
def own_postgres() -> Iterator[PostgresServer]:
    """A started cluster of this test's own (to stop and start), removed after it."""
    _need_psycopg()
    _need_binaries()
    server = PostgresServer()
    try:
        server.start()
        yield server
    finally:
        server.remove()


def wait_until_accepting(url: str, timeout_s: float = 30.0) -> None:
    """Wait until the server at `url` takes connections."""
    import psycopg

    deadline = time.monotonic() + timeout_s
    while True:
        try:
            with psycopg.connect(url, connect_timeout=2):
                return
        except psycopg.OperationalError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)
