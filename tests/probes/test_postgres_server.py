"""The tests' PostgreSQL server (tests/postgres_server.py): it runs, its schemas are private to each test, it
stops and starts, and its 127.0.0.1 listener wants the password."""

from __future__ import annotations

import pytest

from tests.postgres_server import PASSWORD, PostgresServer, SessionDatabase, wait_until_accepting


def test_each_test_gets_an_empty_schema_of_its_own(
    postgres_url: str, postgres_server: SessionDatabase
) -> None:
    import psycopg

    with psycopg.connect(postgres_url, autocommit=True) as connection:
        schema = connection.execute("SELECT current_schema()").fetchone()
        assert schema is not None and schema[0].startswith("t")
        assert connection.execute(
            "SELECT count(*) FROM pg_tables WHERE schemaname = %s", schema
        ).fetchone() == (0,)
        connection.execute("CREATE TABLE mine (x integer)")
    other, other_schema = postgres_server.fresh_schema_url()
    try:
        with (
            psycopg.connect(other, autocommit=True) as connection,
            pytest.raises(psycopg.errors.UndefinedTable),
        ):
            connection.execute("SELECT * FROM mine")
    finally:
        postgres_server.drop_schema(other_schema)


def test_a_server_of_its_own_stops_and_starts(own_postgres: PostgresServer) -> None:
    import psycopg

    url = own_postgres.url()
    wait_until_accepting(url)
    own_postgres.stop()
    assert not own_postgres.running()
    with pytest.raises(psycopg.OperationalError):
        psycopg.connect(url, connect_timeout=2)
    own_postgres.start()
    wait_until_accepting(url)
    with psycopg.connect(url) as connection:
        assert connection.execute("SELECT 1").fetchone() == (1,)


def test_the_loopback_listener_wants_the_password(own_postgres: PostgresServer) -> None:
    import psycopg

    with pytest.raises(psycopg.OperationalError, match="password"):
        psycopg.connect(own_postgres.tcp_url(), connect_timeout=5)
    with psycopg.connect(own_postgres.tcp_url(), password=PASSWORD, connect_timeout=5) as connection:
        assert connection.execute("SELECT 1").fetchone() == (1,)
