"""An office agent that STARTS while its PostgreSQL server is down: `linkvet schedule` says so, measures into
its spool, takes the plan's lock when the server is back and forwards the backlog, every finished round stored
exactly once; a second agent of the same plan started later refuses as before; `--once` spools its round and
exits 3. Real servers and real processes throughout."""

from __future__ import annotations

import contextlib
import signal
import socket
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from tests.postgres_server import PASSWORD, PostgresServer, wait_until_accepting
from tests.probes.test_store_forward_postgres import _agent, _log, _rounds, _spooled, _vantage_plan, _whole
from tests.probes.test_store_refusals import _finished_rounds, _linkvet, _until


class _Line:
    """A loopback TCP line to the server's Unix socket that the test opens (`up`) when it wants: an agent
    connecting through it before finds nothing listening (connection refused), as when its server is down,
    while other agents reach the same server directly."""

    def __init__(self, server: PostgresServer) -> None:
        self.target = str(server.socket_dir / f".s.PGSQL.{server.port}")
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = int(probe.getsockname()[1])
        self.listener: socket.socket | None = None

    def url(self, user: str) -> str:
        return f"postgresql://{user}@127.0.0.1:{self.port}/postgres"

    def up(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", self.port))
        threading.Thread(target=self._accept, args=(self.listener,), daemon=True).start()

    def close(self) -> None:
        if self.listener is not None:
            self.listener.close()

    def _accept(self, listener: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while True:
                client, _address = listener.accept()
                upstream = socket.socket(socket.AF_UNIX)
                upstream.connect(self.target)
                for a, b in ((client, upstream), (upstream, client)):
                    threading.Thread(target=_pump, args=(a, b), daemon=True).start()


def _pump(source: socket.socket, sink: socket.socket) -> None:
    with contextlib.suppress(OSError):
        while data := source.recv(65536):
            sink.sendall(data)
    with contextlib.suppress(OSError):
        sink.shutdown(socket.SHUT_WR)


@contextlib.contextmanager
def _line(server: PostgresServer) -> Iterator[_Line]:
    line = _Line(server)
    try:
        yield line
    finally:
        line.close()


def test_an_agent_started_while_the_server_is_down_spools_and_forwards_each_round_once_when_it_is_back(
    own_postgres: PostgresServer, tmp_path: Path
) -> None:
    url = own_postgres.url()
    own_postgres.stop()
    home = tmp_path / "shanghai"
    plan = _vantage_plan(home, "shanghai")
    agent = _agent(home, plan, url)
    second: subprocess.Popen[str] | None = None
    try:
        _until(
            lambda: _log(home).count("could not store the round (kept in the spool") >= 3,
            what="3 rounds spooled by an agent that started with its server down",
        )
        log = _log(home)
        assert "cannot be reached" in log and "measuring into the spool" in log, log
        assert agent.poll() is None  # still measuring
        assert _spooled(home) >= 3
        status = _linkvet(home, "schedule", "--plan", str(plan), "--db", url, "--status")
        assert status.returncode == 3, status.stderr
        assert "not reachable" in status.stdout and "rounds waiting" in status.stdout, status.stdout
        own_postgres.start()
        wait_until_accepting(url)
        _until(lambda: _spooled(home) == 0, timeout_s=90, what="the backlog forwarded")
        assert "is back: took the lock of plan" in _log(home)
        _until(lambda: _rounds(url) >= _finished_rounds(_log(home)) >= 4, what="rounds stored directly again")
        # A second agent of the same plan and vantage point, started now, refuses as before.
        other = tmp_path / "shanghai-2"
        second = _agent(other, _vantage_plan(other, "shanghai"), url)
        _out, err = second.communicate(timeout=60)
        assert second.returncode == 3, err
        assert "is already being measured into this store by" in err and "Traceback" not in err, err
        assert _spooled(other) == 0  # it measured nothing
    finally:
        agent.send_signal(signal.SIGTERM)
        _out, err = agent.communicate(timeout=60)
        if second is not None and second.poll() is None:
            second.kill()
            second.communicate(timeout=10)
    assert agent.returncode == 0, err
    assert "Traceback" not in err
    assert _spooled(home) == 0
    assert _whole(url)["shanghai"] == _finished_rounds(_log(home))  # every finished round, exactly once


def test_once_with_the_server_down_spools_the_round_and_exits_3(
    own_postgres: PostgresServer, tmp_path: Path
) -> None:
    url = own_postgres.tcp_url().replace("@", f":{PASSWORD}@", 1)  # a password in the URL: never shown
    own_postgres.stop()
    home = tmp_path / "beijing"
    plan = _vantage_plan(home, "beijing")
    once = _linkvet(home, "schedule", "--once", "--plan", str(plan), "--db", url, "--log-file", "log.txt")
    assert once.returncode == 3, once.stderr
    assert "1 measured round is not in the store" in once.stderr and "kept in the spool" in once.stderr
    assert "Traceback" not in once.stderr
    log = (home / "log.txt").read_text(encoding="utf-8")
    assert "cannot be reached" in log and "measuring into the spool" in log, log
    assert PASSWORD not in once.stderr + once.stdout + log and ":***@127.0.0.1" in log
    assert _spooled(home) == 1
    own_postgres.start()
    wait_until_accepting(url)
    again = _linkvet(home, "schedule", "--once", "--plan", str(plan), "--db", url, "--log-file", "log.txt")
    assert again.returncode == 0, again.stderr
    assert _spooled(home) == 0
    with psycopg.connect(url) as db:  # the spooled round and the new one, each once and whole
        rounds = db.execute(
            "SELECT count(*), count(DISTINCT uid) FROM rounds WHERE vantage = 'beijing'"
        ).fetchone()
        per_round = db.execute(
            "SELECT count(*), sum((SELECT count(*) FROM samples s WHERE s.result_id = r.id)) FROM results r"
            " GROUP BY r.round_id"
        ).fetchall()
    assert rounds == (2, 2)
    assert sorted(per_round) == [(2, 6), (2, 6)]


def test_a_server_that_answers_with_a_refusal_is_refused_at_start_as_before(
    own_postgres: PostgresServer, tmp_path: Path
) -> None:
    url = own_postgres.tcp_url().replace("@", ":not-the-password@", 1)
    home = tmp_path / "shenzhen"
    plan = _vantage_plan(home, "shenzhen")
    once = _linkvet(home, "schedule", "--once", "--plan", str(plan), "--db", url, "--log-file", "log.txt")
    assert once.returncode == 3, once.stderr
    assert "password authentication failed" in once.stderr and "Traceback" not in once.stderr
    assert "not-the-password" not in once.stderr
    assert _spooled(home) == 0  # nothing measured


def test_an_agent_that_finds_the_lock_held_when_its_store_is_back_stops_and_keeps_its_rounds(
    own_postgres: PostgresServer, tmp_path: Path
) -> None:
    url = own_postgres.url()
    first_home, late_home = tmp_path / "first", tmp_path / "late"
    first = _agent(first_home, _vantage_plan(first_home, "guangzhou"), url)
    late: subprocess.Popen[str] | None = None
    with _line(own_postgres) as line:
        try:
            _until(lambda: _rounds(url) >= 2, what="two rounds stored by the first agent")
            # The same plan and vantage point, started where the server cannot be reached: it measures.
            late = _agent(late_home, _vantage_plan(late_home, "guangzhou"), line.url(own_postgres.user))
            _until(
                lambda: _log(late_home).count("could not store the round (kept in the spool") >= 2,
                what="2 rounds spooled by the late agent",
            )
            line.up()  # its server is back: the first agent holds the lock
            _out, err = late.communicate(timeout=60)
            assert late.returncode == 3, err
            assert "Traceback" not in err
            assert "measured rounds are not in the store" in err and "kept in the spool" in err, err
            assert "is back, but plan plan (vantage guangzhou) is already being measured" in _log(late_home)
            assert "is back: took the lock" not in _log(late_home)
            spooled = _spooled(late_home)
            assert spooled >= 2 and spooled == _finished_rounds(_log(late_home))  # none forwarded
            assert first.poll() is None  # the first agent measures on
        finally:
            first.send_signal(signal.SIGTERM)
            _out, first_err = first.communicate(timeout=60)
            if late is not None and late.poll() is None:
                late.kill()
                late.communicate(timeout=10)
    assert first.returncode == 0, first_err
    assert _whole(url)["guangzhou"] == _finished_rounds(_log(first_home))  # only the first agent's rounds


def test_what_counts_as_unreachable_on_real_connection_attempts(own_postgres: PostgresServer) -> None:
    from probes.errors import StoreError, StoreUnreachableError
    from probes.store.postgres.connecting import connect
    from probes.store_location import StoreUrl

    with pytest.raises(StoreError) as refused:  # the server answers: no such database
        connect(StoreUrl(own_postgres.url("no_such_database")), readonly=True)
    assert not isinstance(refused.value, StoreUnreachableError)
    with pytest.raises(StoreError) as refused:  # the server answers: a password is needed
        connect(StoreUrl(own_postgres.tcp_url()), readonly=True)
    assert not isinstance(refused.value, StoreUnreachableError)
    own_postgres.stop()
    with pytest.raises(StoreUnreachableError):  # no socket: the server is down
        connect(StoreUrl(own_postgres.url()), readonly=True)
    with pytest.raises(StoreUnreachableError, match="Connection refused"):  # nothing listens on the port
        connect(StoreUrl(own_postgres.tcp_url()), readonly=True)
