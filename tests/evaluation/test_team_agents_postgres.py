"""Offices that follow the evaluation, on a real PostgreSQL server and real `linkvet` processes, each office a
home of its own (its own data, state, config and catalog folders): an evaluation made in one home, two agents
started with no plan file (`linkvet agent --vantage …`), each measuring it to loopback endpoints and saying its
health (`linkvet eval show`; one serves Prometheus metrics); a candidate added in one home is measured by both
within two rounds; a questionnaire imported in one home changes `score --eval` in the other; a rule that needs
2 of the 2 offices fires once when both see the breach and not while one does (a webhook receiver on
loopback); an agent killed with SIGKILL, the server stopped under two agents, and an agent started while the
server is down (measuring the plans it kept): every finished round stored once."""

from __future__ import annotations

import json
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg
import pytest

from catalogs.needs import EXAMPLE_NEEDS
from tests.conftest import cli_env
from tests.notifiers import Receiver
from tests.postgres_server import PostgresServer, wait_until_accepting

ROUND_EVERY = "12s"  # an ICMP round of 10 attempts a second apart takes ~9 s


def _env(home: Path) -> dict[str, str]:
    env = cli_env(home)
    env["LINKVET_CATALOG_DIR"] = str(home / "catalogs")
    return env


def _linkvet(home: Path, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    home.mkdir(parents=True, exist_ok=True)
    return subprocess.run(
        [sys.executable, "-m", "desktop.cli", *args],
        cwd=home,
        env=_env(home),
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def _ok(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    return done.stdout


@contextmanager
def _agent(home: Path, url: str, office: str, *extra: str) -> Iterator[subprocess.Popen[str]]:
    """`linkvet agent` of an office for the block; stopped (SIGTERM) at its end, killed if it hangs."""
    home.mkdir(parents=True, exist_ok=True)
    agent = subprocess.Popen(
        [
            *(sys.executable, "-m", "desktop.cli", "agent", "--vantage", office, "--db", url),
            *("--log-file", str(home / "log.txt"), "--grace", "5", *extra),
        ],
        cwd=home,
        env=_env(home),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        yield agent
    finally:
        if agent.poll() is None:
            agent.send_signal(signal.SIGTERM)
            try:
                agent.communicate(timeout=60)
            except subprocess.TimeoutExpired:
                agent.kill()
                agent.communicate(timeout=10)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _scrape(port: int) -> str:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as response:
        return str(response.read().decode("utf-8"))


def _log(home: Path) -> str:
    path = home / "log.txt"
    return path.read_text(encoding="utf-8") if path.exists() else ""


def _until(condition: Callable[[], bool], timeout_s: float = 120, what: str = "the condition") -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} not reached in {timeout_s} s")
        time.sleep(0.2)


def _query(url: str, sql: str, params: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
    try:
        with psycopg.connect(url, connect_timeout=2) as db:
            return list(db.execute(sql, params).fetchall())
    except psycopg.Error:
        return []


def _rounds(url: str, office: str) -> list[int]:
    return [int(r[0]) for r in _query(url, "SELECT id FROM rounds WHERE vantage = %s ORDER BY id", (office,))]


def _measured(url: str, office: str, host: str) -> list[int]:
    """The rounds of `office` with an ICMP result to `host`."""
    rows = _query(
        url,
        "SELECT DISTINCT r.round_id FROM results r JOIN series s ON s.id = r.series_id"
        " WHERE s.vantage = %s AND s.method = 'icmp' AND s.host = %s ORDER BY 1",
        (office, host),
    )
    return [int(r[0]) for r in rows]


def _each_round_once(url: str) -> dict[str, int]:
    """Every stored round once (uid and slot), its rollups the sum of its samples; the rounds per office."""
    with psycopg.connect(url) as db:
        uids = db.execute("SELECT count(DISTINCT uid), count(*) FROM rounds").fetchone()
        slots = db.execute("SELECT count(DISTINCT (vantage, plan, slot_us)), count(*) FROM rounds").fetchone()
        hourly = db.execute("SELECT coalesce(sum(sent), 0) FROM hourly").fetchone()
        sent = db.execute(
            "SELECT count(*) FROM samples s JOIN results r ON r.id = s.result_id"
            " JOIN series se ON se.id = s.series_id WHERE se.method IN ('icmp', 'tcp', 'trace')"
        ).fetchone()
        by_office = dict(db.execute("SELECT vantage, count(*) FROM rounds GROUP BY vantage").fetchall())
    assert uids is not None and uids[0] == uids[1], uids
    assert slots is not None and slots[0] == slots[1], slots
    assert hourly is not None and sent is not None and int(hourly[0]) <= int(sent[0])
    return {str(k): int(v) for k, v in by_office.items()}


def _finished(log: str) -> int:
    return len(re.findall(r"INFO round \d+ \(", log)) + log.count(
        "could not store the round (kept in the spool"
    )


def _spooled(home: Path) -> int:
    import sqlite3
    from contextlib import closing

    path = home / "xdg-data" / "linkvet" / "linkvet-spool.sqlite3"
    if not path.exists():
        return 0
    with closing(sqlite3.connect(path, timeout=10)) as db:
        try:
            return int(db.execute("SELECT count(*) FROM spooled").fetchone()[0])
        except sqlite3.OperationalError:
            return 0


def _evaluation(
    home: Path, url: str, *, endpoint: str = "127.0.0.31", alerts: str = "", every: str = ROUND_EVERY
) -> None:
    """`eval new` with two offices and a candidate, then its cadence (and alert rules) set by editing the
    exported document and importing it again, as a team would."""
    _ok(
        _linkvet(
            home,
            *("eval", "new", "q1", "--needs", str(EXAMPLE_NEEDS), "--office", "shanghai:ct"),
            *("--office", "beijing:cu", "--db", url),
        )
    )
    _ok(
        _linkvet(
            home,
            *("eval", "add", "q1", "--provider", "raksmart", "--region", "san-jose"),
            *("--offering", "high-defence-gpu-server", "--test-ip", endpoint, "--db", url),
        )
    )
    exported = home / "q1.toml"
    _ok(_linkvet(home, "eval", "export", "q1", "--out", str(exported), "--db", url))
    text = exported.read_text(encoding="utf-8").replace(
        "format_version = 1\nname", f'format_version = 2\nevery = "{every}"\npeak_every = "{every}"\nname', 1
    )
    exported.write_text(text.replace("[needs]\n", alerts + "\n[needs]\n", 1), encoding="utf-8")
    _ok(_linkvet(home, "eval", "import", str(exported), "--replace", "--db", url))


def test_two_agents_without_a_plan_measure_the_evaluation_and_a_candidate_added_within_two_rounds(
    postgres_url: str, tmp_path: Path
) -> None:
    url = postgres_url
    lead, shanghai, beijing = tmp_path / "lead", tmp_path / "shanghai", tmp_path / "beijing"
    _evaluation(lead, url)
    port = _free_port()
    metrics = ("--metrics-listen", f"127.0.0.1:{port}")
    with (
        _agent(shanghai, url, "shanghai", "--carrier", "ct", *metrics) as a,
        _agent(beijing, url, "beijing") as b,
    ):
        _until(
            lambda: (
                len(_measured(url, "shanghai", "127.0.0.31")) >= 1
                and len(_measured(url, "beijing", "127.0.0.31")) >= 1
            ),
            what="a round from each office",
        )
        assert a.poll() is None and b.poll() is None
        # A candidate added in the lead's home (a vendor the catalogs do not have: created in the team's
        # store, so every office's catalogs know it) is measured by both within two of their rounds.
        _ok(
            _linkvet(
                lead,
                *("eval", "add", "q1", "--provider", "vendorb", "--region", "sha-1"),
                *("--provider-name", "Vendor B", "--test-ip", "127.0.0.32", "--db", url),
            )
        )
        added_at = {office: _rounds(url, office)[-1] for office in ("shanghai", "beijing")}
        _until(
            lambda: all(_measured(url, o, "127.0.0.32") for o in ("shanghai", "beijing")),
            what="the added candidate measured from both offices",
        )
        for office in ("shanghai", "beijing"):
            first = _measured(url, office, "127.0.0.32")[0]
            after = [r for r in _rounds(url, office) if r > added_at[office]]
            assert first in after[:2], (office, first, after)  # within two rounds of the change
        # Shanghai's agent serves the candidates it measures, the added one too, as Prometheus metrics.
        scraped = _scrape(port)
        for host, provider in (("127.0.0.31", "raksmart"), ("127.0.0.32", "vendorb")):
            sent = re.search(
                rf'linkvet_probe_sent_total{{[^}}]*host="{re.escape(host)}"[^}}]*provider="{provider}"'
                rf'[^}}]*vantage="shanghai"}} (\S+)',
                scraped,
            )
            assert sent is not None and float(sent.group(1)) >= 10, (host, scraped[-3000:])
        shown = json.loads(_ok(_linkvet(lead, "eval", "show", "q1", "--json", "--db", url)))
    agents = {a["office"]: a for a in shown["agents"]}
    assert set(agents) == {"shanghai", "beijing"}
    assert agents["shanghai"]["state"] == "measuring" and agents["shanghai"]["agent_carrier"] == "ct"
    assert agents["shanghai"]["carrier"] == "ct" and agents["beijing"]["carrier"] == "cu"
    assert all(a["last_round"] and a["spooled_rounds"] == 0 and a["pid"] for a in agents.values())
    labels = {c["label"] for c in shown["candidates"]}
    assert labels == {"raksmart/san-jose/high-defence-gpu-server", "vendorb/sha-1"}
    vendorb = next(c for c in shown["candidates"] if c["label"] == "vendorb/sha-1")
    assert set(vendorb["evidence"]["line"]["offices"]) == {"shanghai", "beijing"}
    text = _ok(_linkvet(lead, "eval", "show", "q1", "--db", url))
    assert "shanghai (ct): measuring;" in text and "beijing (cu): measuring;" in text
    for home in (shanghai, beijing):
        assert "Traceback" not in _log(home) and "measuring for q1" in _log(home)
    assert _each_round_once(url)


def test_a_questionnaire_imported_in_one_home_changes_score_eval_in_the_other(
    postgres_url: str, tmp_path: Path
) -> None:
    from tests.usecases.test_questionnaire import OFFERING, answer_everything

    url = postgres_url
    shanghai, beijing = tmp_path / "shanghai", tmp_path / "beijing"
    _evaluation(shanghai, url)

    def raksmart(home: Path) -> dict[str, object]:
        ranked = json.loads(_ok(_linkvet(home, "score", "--eval", "q1", "--json", "--db", url)))
        return next(e for e in ranked["rankings"][0]["entries"] if e["offering"] == OFFERING)

    before = raksmart(beijing)
    workbook = shanghai / "raksmart.xlsx"
    _ok(
        _linkvet(
            shanghai, "questionnaire", "export", "--provider", "raksmart", "--out", str(workbook), "--db", url
        )
    )
    answered = shanghai / "answered.xlsx"
    answer_everything(workbook, answered, {"region[san-jose].endpoints": "127.0.0.41"})
    imported = _ok(
        _linkvet(
            shanghai,
            *("questionnaire", "import", str(answered), "--provider", "raksmart"),
            *("--source", "Li Wei (sales)", "--office", "shanghai", "--db", url),
        )
    )
    assert "written to the team store postgresql://" in imported
    assert not (shanghai / "catalogs" / "raksmart.overlay.toml").exists()  # in the store, not the folder
    after = raksmart(beijing)
    assert after["coverage"] > before["coverage"]  # type: ignore[operator]
    assert (after["score_min"], after["score_max"]) != (before["score_min"], before["score_max"])
    shown = _ok(_linkvet(beijing, "catalog", "show", "raksmart", OFFERING, "--db", url))
    assert "your team's facts: the team store postgresql://" in shown
    assert "recorded at shanghai by " in shown
    # Beijing's answer to one question differs: both kept, the newer used, the conflict listed; choosing
    # Shanghai's settles it.
    key = f"offering[{OFFERING}].price.gpu_hour"
    other = beijing / "answered.xlsx"
    answer_everything(workbook, other, {"region[san-jose].endpoints": "127.0.0.41", key: 1.9})
    second = _ok(
        _linkvet(
            beijing,
            *("questionnaire", "import", str(other), "--provider", "raksmart"),
            *("--source", "Wang Fang (sales)", "--office", "beijing", "--db", url),
        )
    )
    assert (
        "have answers from offices that differ" in second or "has answers from offices that differ" in second
    )
    conflicts = json.loads(_ok(_linkvet(shanghai, "catalog", "conflicts", "--json", "--db", url)))
    (conflict,) = conflicts
    assert conflict["fact"] == key and [a["office"] for a in conflict["answers"]] == ["beijing", "shanghai"]
    assert conflict["used"] == conflict["answers"][0]["record"] and conflict["answers"][0]["value"] == 1.9
    listed = json.loads(
        _ok(_linkvet(shanghai, "catalog", "list", "--provider", "raksmart", "--json", "--db", url))
    )
    assert next(r for r in listed if r["id"] == OFFERING)["min_gpu_hour"] == 1.9
    chosen = conflict["answers"][1]["record"]
    _ok(
        _linkvet(
            beijing, "catalog", "choose", "raksmart", key, str(chosen), "--office", "beijing", "--db", url
        )
    )
    assert json.loads(_ok(_linkvet(shanghai, "catalog", "conflicts", "--json", "--db", url))) == []
    listed = json.loads(
        _ok(_linkvet(beijing, "catalog", "list", "--provider", "raksmart", "--json", "--db", url))
    )
    assert next(r for r in listed if r["id"] == OFFERING)["min_gpu_hour"] == 2.2
    exported = _ok(_linkvet(beijing, "catalog", "export", "--out", str(tmp_path / "facts"), "--db", url))
    assert "raksmart.overlay.toml" in exported
    checked = _ok(_linkvet(beijing, "catalog", "validate", str(tmp_path / "facts")))
    assert "1 catalog(s) valid, 0 with problems" in checked


ALERTS = """
[[alerts]]
name = "both-see-it"
when = "p95"
above_ms = 0.000001
rounds = 1
offices = 2
notify = ["team-hook"]

[notifiers.team-hook]
type = "webhook"
url = "{url}"
"""


def test_a_two_of_two_rule_fires_once_when_both_offices_see_it_and_not_while_one_does(
    postgres_url: str, tmp_path: Path, receiver: Receiver
) -> None:
    url = postgres_url
    lead, shanghai, beijing = tmp_path / "lead", tmp_path / "shanghai", tmp_path / "beijing"
    _evaluation(lead, url, alerts=ALERTS.format(url=f"{receiver.base}/hook"))
    with _agent(shanghai, url, "shanghai"):
        _until(lambda: len(_rounds(url, "shanghai")) >= 2, what="two rounds from Shanghai")
        _until(
            lambda: (
                _query(url, "SELECT status FROM alert_states WHERE vantage = 'shanghai'") == [("firing",)]
            ),
            what="Shanghai's own state of the rule",
        )
        time.sleep(2)
        assert receiver.requests == []  # one office is not two
        with _agent(beijing, url, "beijing"):
            got = receiver.wait_for(1, timeout=120)
            assert len(got) == 1, got
            _until(lambda: len(_rounds(url, "beijing")) >= 3, what="three rounds from Beijing")
            _until(lambda: len(_rounds(url, "shanghai")) >= 5, what="five rounds from Shanghai")
    assert len(receiver.requests) == 1  # once, however many rounds both offices breach
    body = receiver.requests[0].json
    (event,) = body["alerts"]
    assert event["status"] == "firing" and event["rule"] == "both-see-it"
    assert event["offices"] == ["beijing", "shanghai"] and event["offices_needed"] == 2
    assert event["offices_total"] == 2 and event["vantage"] is None
    assert event["text"].startswith("FIRING both-see-it from 2 of 2 offices (beijing ")
    states = dict(_query(url, "SELECT vantage, status FROM alert_states"))
    assert states == {"shanghai": "firing", "beijing": "firing", "*": "firing"}


def test_an_agent_killed_with_sigkill_loses_at_most_its_round_in_flight_and_doubles_none(
    postgres_url: str, tmp_path: Path
) -> None:
    url = postgres_url
    lead, shanghai = tmp_path / "lead", tmp_path / "shanghai"
    _evaluation(lead, url, every="5s")
    with _agent(shanghai, url, "shanghai") as first:
        _until(lambda: len(_rounds(url, "shanghai")) >= 2, what="two rounds")
        time.sleep(3.3)  # an arbitrary moment, possibly mid-round
        first.send_signal(signal.SIGKILL)
        first.communicate(timeout=10)
    assert first.returncode == -signal.SIGKILL
    with _agent(shanghai, url, "shanghai") as second:  # the dead agent's lock ended with its session
        _until(lambda: _spooled(shanghai) == 0, what="the spool forwarded")
        _until(
            lambda: (
                _log(shanghai).count("linkvet agent: office") == 2
                and "INFO round" in _log(shanghai).split("linkvet agent: office")[-1]
            ),
            what="a round of the new agent",
        )
        second.send_signal(signal.SIGTERM)
        _out, err = second.communicate(timeout=60)
    assert second.returncode == 0, err
    finished = _finished(_log(shanghai))
    stored = _each_round_once(url)["shanghai"]
    assert finished <= stored <= finished + 1, (finished, stored)


def test_the_server_stopped_under_two_agents_every_finished_round_is_stored_once(
    own_postgres: PostgresServer, tmp_path: Path
) -> None:
    url = own_postgres.url()
    lead, shanghai, beijing = tmp_path / "lead", tmp_path / "shanghai", tmp_path / "beijing"
    _evaluation(lead, url, every="5s")
    with _agent(shanghai, url, "shanghai") as a, _agent(beijing, url, "beijing") as b:
        _until(lambda: all(len(_rounds(url, o)) >= 1 for o in ("shanghai", "beijing")), what="a round each")
        own_postgres.stop()
        for home in (shanghai, beijing):
            _until(
                lambda h=home: _log(h).count("could not store the round (kept in the spool") >= 2,
                what="2 rounds spooled",
            )
        own_postgres.start()
        wait_until_accepting(url)
        for home in (shanghai, beijing):
            _until(lambda h=home: _spooled(h) == 0, what="the spool forwarded")
        _until(
            lambda: all("forwarded" in _log(h) for h in (shanghai, beijing)), what="the backlogs forwarded"
        )
        for agent in (a, b):
            agent.send_signal(signal.SIGTERM)
        for agent in (a, b):
            agent.communicate(timeout=60)
            assert agent.returncode == 0
    stored = _each_round_once(url)
    for office, home in (("shanghai", shanghai), ("beijing", beijing)):
        assert stored[office] == _finished(_log(home)), (office, stored, _log(home)[-2000:])
        assert "Traceback" not in _log(home)


def test_an_agent_started_while_its_server_is_down_measures_the_plans_it_kept_and_forwards_them(
    own_postgres: PostgresServer, tmp_path: Path
) -> None:
    url = own_postgres.url()
    lead, shanghai = tmp_path / "lead", tmp_path / "shanghai"
    _evaluation(lead, url, every="5s")
    once = _linkvet(
        shanghai, "agent", "--vantage", "shanghai", "--once", "--db", url, "--log-file", "once.txt"
    )
    # One round with the server up: the agent keeps the plans it measured for a start without the server.
    assert once.returncode == 0, once.stderr
    own_postgres.stop()
    with _agent(shanghai, url, "shanghai") as agent:
        _until(
            lambda: _log(shanghai).count("could not store the round (kept in the spool") >= 2,
            what="2 rounds spooled by an agent that started with its server down",
        )
        log = _log(shanghai)
        assert "measuring the 1 evaluation this agent measured last" in log, log
        assert agent.poll() is None
        own_postgres.start()
        wait_until_accepting(url)
        _until(lambda: _spooled(shanghai) == 0, what="the backlog forwarded")
        _until(
            lambda: "the store answers again: following its evaluations" in _log(shanghai), what="following"
        )
        agent.send_signal(signal.SIGTERM)
        _out, err = agent.communicate(timeout=60)
    assert agent.returncode == 0, err
    stored = _each_round_once(url)["shanghai"]
    assert stored == _finished(_log(shanghai)) + 1  # and the --once round before


@pytest.fixture(autouse=True)
def _no_office_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LINKVET_OFFICE", raising=False)
    monkeypatch.delenv("LINKVET_DB", raising=False)
