"""Store locations (`probes.store_location`): a path or a postgresql:// URL, and no password in what is shown."""

from __future__ import annotations

from pathlib import Path

import pytest

from probes.errors import StoreError
from probes.store_location import (
    StoreUrl,
    default_location,
    location_or_default,
    parse_location,
    redacted,
    without_password,
)


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        (
            "postgresql://agent:s3cret@db.example:5432/linkvet",
            "postgresql://agent:***@db.example:5432/linkvet",
        ),
        (
            "postgresql://agent:p%40ss@db.example/linkvet?sslmode=verify-full",
            "postgresql://agent:***@db.example/linkvet?sslmode=verify-full",
        ),
        (
            "postgres://db.example/linkvet?sslmode=require&password=hunter2",
            "postgres://db.example/linkvet?sslmode=require&password=***",
        ),
        ("postgresql://agent@db.example/linkvet", "postgresql://agent@db.example/linkvet"),
        ("postgresql://a:b@h1:5432,h2:5433/linkvet", "postgresql://a:***@h1:5432,h2:5433/linkvet"),
        ("postgresql:///linkvet?host=/run/postgresql", "postgresql:///linkvet?host=/run/postgresql"),
    ],
)
def test_a_url_is_shown_without_its_password(url: str, shown: str) -> None:
    location = parse_location(url)
    assert isinstance(location, StoreUrl)
    assert location.url == url
    assert str(location) == shown == redacted(url)
    assert repr(location) == f"StoreUrl({shown!r})"
    assert f"{location}" == shown and "{}".format(location) == shown  # noqa: UP032


def test_paths_stay_paths() -> None:
    assert parse_location("results.sqlite3") == Path("results.sqlite3")
    assert parse_location("/var/lib/linkvet/store.sqlite3") == Path("/var/lib/linkvet/store.sqlite3")
    assert parse_location("C:\\data\\linkvet.sqlite3") == Path("C:\\data\\linkvet.sqlite3")


def test_other_schemes_and_bad_urls_are_refused_without_the_password() -> None:
    with pytest.raises(
        ValueError, match=r"mysql://u:\*\*\*@h/db: a store is a SQLite file path or a postgresql:// URL"
    ):
        parse_location("mysql://u:topsecret@h/db")
    with pytest.raises(ValueError, match="not a PostgreSQL URL libpq can read") as caught:
        parse_location("postgresql://u:topsecret@h/db?nosuchparameter=1")
    assert "topsecret" not in str(caught.value)
    with pytest.raises(ValueError, match="not a PostgreSQL URL libpq can read") as caught:
        parse_location("postgresql://u:topsecret@[::1/db")
    assert "topsecret" not in str(caught.value)
    with pytest.raises(ValueError, match="empty store location"):
        parse_location("")


def test_a_driver_message_loses_the_password() -> None:
    url = StoreUrl("postgresql://u:topsecret@h/db")
    text = 'could not connect to "postgresql://u:topsecret@h/db": password topsecret rejected'
    assert (
        without_password(text, url) == 'could not connect to "postgresql://u:***@h/db": password *** rejected'
    )


def test_linkvet_db_names_the_default_store(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("LINKVET_DB", "postgresql://agent@db.example/linkvet")
    assert default_location() == StoreUrl("postgresql://agent@db.example/linkvet")
    assert location_or_default(None) == StoreUrl("postgresql://agent@db.example/linkvet")
    assert location_or_default(tmp_path / "x.sqlite3") == tmp_path / "x.sqlite3"
    monkeypatch.setenv("LINKVET_DB", str(tmp_path / "team.sqlite3"))
    assert default_location() == tmp_path / "team.sqlite3"
    monkeypatch.setenv("LINKVET_DB", "")
    assert default_location().name == "linkvet.sqlite3"
    monkeypatch.setenv("LINKVET_DB", "mongodb://u:topsecret@h/x")
    with pytest.raises(StoreError, match="LINKVET_DB does not name a store") as caught:
        default_location()
    assert "topsecret" not in str(caught.value)
