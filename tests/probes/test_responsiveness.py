"""The responsiveness method on loopback (real sockets, a real HTTP server), its figures from samples, and the
TCP fallbacks in namespaces. Latency *under a real queue* is the lab's job (tests/lab/test_responsiveness.py).
"""

from __future__ import annotations

import itertools
import json
from collections import Counter
from pathlib import Path

import pytest

from probes.errors import ErrorKind
from probes.loaded_latency import GRADES, figures, grade, rpm, rpm_window, trimmed_mean
from probes.results import Sample
from probes.runner import run
from probes.store import Store
from probes.target import Method, ProbeOptions, parse_target
from tests.netns import namespaces, needs_root
from tests.rounds import save_results

QUICK = ProbeOptions(
    count=1,
    timeout_s=1.0,
    load_idle_s=1.0,
    load_probe_interval_s=0.05,
    download_max_seconds=2.0,
    download_connections=2,
)


def test_phases_follow_their_own_schedule_through_idle_and_load(http_server: str) -> None:
    (result,) = run([parse_target(f"http://{http_server}/trickle", Method.RESPONSIVENESS)], QUICK)
    assert result.ok, result.message
    m = result.metrics
    phases = Counter(s.phase for s in result.samples)
    # 1 s idle and a 2 s download at one probe every 50 ms: the three phases in order, each with its probes
    assert list(dict.fromkeys(s.phase for s in result.samples)) == ["idle", "download-ramp", "download"]
    assert all(phases[p] >= 1 for p in ("idle", "download-ramp", "download"))
    times = [s.sent_at_us for s in result.samples]
    assert times == sorted(times)
    assert [s.seq for s in result.samples] == list(range(len(result.samples)))
    # What the method decided, judged on its own record (not on the wall-clock gaps a busy machine stretches
    # and squeezes): one probe per slot of its schedule, slot k due k × 50 ms after the start, never two in
    # a slot nor a burst to catch up (a late wake-up skips the slots it missed).
    ticks = [s.tick for s in result.samples]
    assert all(isinstance(t, int) for t in ticks) and ticks[0] == 0
    steps = [b - a for a, b in itertools.pairwise(ticks)]  # type: ignore[operator]
    assert min(steps) >= 1, steps
    assert m["latency_probe"] == "icmp" and m["idle_probes"] == phases["idle"]
    assert m["loaded_probes"] == phases["download"]
    # loopback has no queue: the load adds nothing worth a grade below A+
    assert m["grade"] == "A+" and abs(float(m["loaded_rtt_increase_ms"])) < 1.0
    # the trickle server sends ~1 MB/s per connection: two connections, ~16 Mbit/s
    assert 8 < float(m["download_mbps"]) < 24
    assert m["upload_mbps"] is None and m["throughput_mbps"] == m["download_mbps"]
    # the figures are those of the stored samples, recomputed
    assert {k: m[k] for k in figures(result.samples)} == figures(result.samples)


def test_each_sample_is_stored_with_its_phase(http_server: str, tmp_path: Path) -> None:
    (result,) = run([parse_target(f"http://{http_server}/trickle", Method.RESPONSIVENESS)], QUICK)
    with Store(tmp_path / "s.sqlite3") as store:
        save_results(store, [result], source="test")
        frame = store.samples_frame()
        stored = store.results_frame()
    assert frame["phase"].tolist() == [s.phase for s in result.samples]
    assert json.loads(stored["metrics_json"][0])["grade"] == result.metrics["grade"]


def test_upload_to_an_endpoint_that_takes_posts(http_server: str) -> None:
    options = ProbeOptions(
        count=1,
        timeout_s=1.0,
        load_idle_s=0.5,
        load_probe_interval_s=0.05,
        download_max_seconds=1.5,
        download_max_bytes=200_000_000,
        load_upload_url=f"http://{http_server}/upload",
    )
    (result,) = run([parse_target(f"http://{http_server}/trickle", Method.RESPONSIVENESS)], options)
    assert result.ok and result.message is None, result.message
    phases = Counter(s.phase for s in result.samples)
    assert phases["upload-ramp"] >= 1
    assert int(result.metrics["upload_bytes"] or 0) > 0
    assert float(result.metrics["upload_mbps"] or 0) > 0


def test_a_server_that_refuses_uploads_is_said_and_the_download_still_counts(http_server: str) -> None:
    options = ProbeOptions(
        count=1,
        timeout_s=1.0,
        load_idle_s=0.5,
        load_probe_interval_s=0.05,
        download_max_seconds=1.5,
        load_upload_url=f"http://{http_server}/not-an-upload-endpoint",
    )
    (result,) = run([parse_target(f"http://{http_server}/trickle", Method.RESPONSIVENESS)], options)
    assert result.ok
    assert "refused the upload" in (result.message or "") and "405" in (result.message or "")
    assert result.metrics["upload_mbps"] is None
    assert result.metrics["download_mbps"] is not None


def test_a_failed_download_is_the_result_error_with_the_idle_probes_kept(http_server: str) -> None:
    (result,) = run([parse_target(f"http://{http_server}/missing", Method.RESPONSIVENESS)], QUICK)
    assert result.error is not None and "404" in (result.message or "")
    assert result.metrics["idle_rtt_median_ms"] is not None
    assert result.metrics["loaded_rtt_median_ms"] is None and result.metrics["grade"] is None


def test_cli_json_has_the_documented_keys(run_linkvet, http_server: str) -> None:  # type: ignore[no-untyped-def]
    done = run_linkvet(
        "probe",
        f"http://{http_server}/trickle",
        "-m",
        "responsiveness",
        "--json",
        "--idle-seconds",
        "1",
        "--max-seconds",
        "2",
        "--probe-interval",
        "0.05",
    )
    assert done.returncode == 0, done.stderr
    record = json.loads(done.stdout)
    for key in (
        "idle_rtt_median_ms",
        "loaded_rtt_median_ms",
        "loaded_rtt_p90_ms",
        "loaded_rtt_increase_ms",
        "download_mbps",
        "rpm",
        "grade",
    ):
        assert record[key] is not None, key
    assert record["connections"] == 4  # responsiveness' default
    assert {s["phase"] for s in record["samples"]} == {"idle", "download-ramp", "download"}
    table = run_linkvet("history", f"http://{http_server}/trickle")
    assert table.returncode == 0 and "responsiveness" in table.stdout


# -- the figures, from hand-written samples (edge cases named as such) --------------------------------------


def _samples(phase_rtts: list[tuple[str, list[float | None]]], step_us: int = 100_000) -> list[Sample]:
    out, t = [], 0
    for phase, rtts in phase_rtts:
        for rtt in rtts:
            out.append(Sample(len(out), t, rtt, None, phase))
            t += step_us
    return out


def test_grades_at_the_dslreports_boundaries() -> None:
    assert [name for name, _ in GRADES] == ["A+", "A", "B", "C", "D"]
    cases = {0.0: "A+", 4.99: "A+", 5.0: "A", 29.9: "A", 30.0: "B", 59.9: "B", 60.0: "C", 199.0: "C"}
    cases |= {200.0: "D", 399.9: "D", 400.0: "F", 2000.0: "F", -0.3: "A+"}
    assert {value: grade(value) for value in cases} == cases
    assert grade(None) is None


def test_trimmed_mean_drops_only_the_top_five_percent() -> None:
    values = [10.0] * 19 + [1000.0]
    assert trimmed_mean(values) == pytest.approx(10.0)
    assert rpm(values) == pytest.approx(6000.0)
    assert trimmed_mean([]) is None and rpm([]) is None


def test_increase_averages_the_two_directions_as_dslreports_does() -> None:
    samples = _samples(
        [
            ("idle", [20.0, 21.0, 22.0]),
            ("download-ramp", [100.0, 200.0]),
            ("download", [120.0, 121.0, 122.0]),
            ("upload-ramp", [300.0]),
            ("upload", [61.0, None, 63.0]),
        ]
    )
    f = figures(samples)
    assert f["idle_rtt_median_ms"] == 21.0
    assert f["download_rtt_increase_ms"] == 100.0 and f["upload_rtt_increase_ms"] == 41.0
    assert f["loaded_rtt_increase_ms"] == pytest.approx(70.5)
    assert f["grade"] == "C"
    assert f["loaded_probes"] == 6 and f["loaded_loss"] == pytest.approx(1 / 6)
    # ramp probes are kept as samples but count in no figure
    assert f["loaded_rtt_median_ms"] == 120.0


def test_probes_this_machine_could_not_send_count_in_no_figure() -> None:
    samples = _samples([("idle", [20.0, None, 22.0]), ("download", [120.0, None, 122.0, None])])
    failed = {1, 6}  # hand-written edge case: no route for one idle and one loaded probe
    samples = [
        Sample(s.seq, s.sent_at_us, s.rtt_ms, ErrorKind.SEND_FAILED if s.seq in failed else s.error, s.phase)
        for s in samples
    ]
    f = figures(samples)
    assert f["idle_probes"] == 2 and f["idle_loss"] == 0.0
    assert f["loaded_probes"] == 3 and f["loaded_loss"] == pytest.approx(1 / 3)
    assert f["idle_rtt_median_ms"] == 21.0 and f["loaded_rtt_median_ms"] == 121.0


def test_rpm_uses_the_last_four_seconds_of_each_loaded_phase() -> None:
    samples = _samples([("idle", [5.0] * 10), ("download", [100.0] * 40 + [10.0] * 40)])
    window = rpm_window(samples)
    assert len(window) == 41 and {s.rtt_ms for s in window} == {10.0, 100.0}
    assert figures(samples)["rpm_round_trips"] == 41


# -- where ICMP is not permitted or not answered -------------------------------------------------------------

_SERVE_AND_PROBE = (
    "import sys, threading\n"
    "from tests.peers import _Server, _Handler\n"
    "s = _Server(('127.0.0.1', 0), _Handler)\n"
    "threading.Thread(target=s.serve_forever, daemon=True).start()\n"
    "from desktop.cli import main\n"
    "sys.exit(main(['probe', f'http://127.0.0.1:{s.server_address[1]}/trickle', '-m', 'responsiveness',"
    " '--json', '--no-store', '--idle-seconds', '1', '--max-seconds', '1.5', '--timeout', '0.5']))\n"
)


@needs_root
def test_unanswered_echoes_switch_the_probes_to_tcp_connects() -> None:
    with namespaces(1) as (office,):
        office.sysctl("net.ipv4.icmp_echo_ignore_all", "1")
        out = office.python(["-c", _SERVE_AND_PROBE])
    assert out.returncode == 0, out.stderr
    record = json.loads(out.stdout)
    assert record["latency_probe"] == "tcp"
    assert "answered none of the idle phase's ICMP echoes" in record["message"]
    # the unanswered echoes are kept, apart; the idle figures are the connects'
    echoes = [s for s in record["samples"] if s["phase"] == "idle-icmp"]
    idle = [s for s in record["samples"] if s["phase"] == "idle"]
    assert len(echoes) >= 8 and all(s["rtt_ms"] is None for s in echoes)
    assert len(idle) >= 8 and all(s["rtt_ms"] is not None for s in idle)
    assert record["idle_loss"] == 0.0 and record["idle_probes"] == len(idle)
    assert record["idle_rtt_median_ms"] is not None and record["grade"] is not None


@needs_root
def test_no_icmp_permission_probes_with_tcp_connects() -> None:
    with namespaces(1) as (office,):
        office.sysctl("net.ipv4.ping_group_range", "1 0")
        out = office.python(["-c", _SERVE_AND_PROBE], unprivileged=True)
    assert out.returncode == 0, out.stderr
    record = json.loads(out.stdout)
    assert record["latency_probe"] == "tcp" and "ICMP not permitted" in record["message"]
    assert all(s["rtt_ms"] is not None for s in record["samples"])
