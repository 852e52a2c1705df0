"""The probing child process and its frames: what it sends decodes to the core's own objects, samples are
filed under the targets the user chose, and a real loopback run comes back whole (Qt-free)."""

from __future__ import annotations

import io
import os
import socket
import threading

from desktop.app import frames
from desktop.app import job_process as jp
from desktop.app.workers import JobProcess
from probes.errors import ErrorKind
from probes.results import ProbeResult, Progress, Sample
from probes.stats import summarize
from probes.target import Method, ProbeOptions, Target


def test_plain_forms_round_trip_to_equal_objects() -> None:
    target = Target(
        Method.HTTP, url="https://example.com/x", name="n", provider="p", region="r", line_type="bgp"
    )
    result = ProbeResult(
        target,
        1,
        9,
        (Sample(0, 2, 1.5), Sample(1, 3, None, ErrorKind.TIMEOUT)),
        error=None,
        message="m",
        metrics={"status": 200, "ttfb_ms": 12.5},
    )
    back = frames.result_of(frames.plain_result(result))
    assert back == result and back.summary == result.summary and dict(back.metrics) == dict(result.metrics)
    stream = io.BytesIO()
    frames.write_frame(stream, frames.FINISHED, [(0, frames.plain_result(result))])
    stream.seek(0)
    kind, data = frames.read_raw_frame(stream)
    assert kind == frames.FINISHED and frames.result_of(frames.decode(data)[0][1]) == result
    assert frames.read_raw_frame(stream) is None


def test_frames_are_read_whole_from_a_pipe_that_returns_them_in_pieces() -> None:
    read_end, write_end = os.pipe()
    frame = io.BytesIO()
    frames.write_frame(frame, frames.DONE, {"order": list(range(5000))})
    data = frame.getvalue()

    def trickle() -> None:  # a few bytes at a time, as a pipe may deliver them to an unbuffered reader
        for start in range(0, len(data), 7):
            os.write(write_end, data[start : start + 7])
        os.close(write_end)

    writer = threading.Thread(target=trickle)
    writer.start()
    with open(read_end, "rb", buffering=0) as raw:
        kind, payload = frames.read_raw_frame(raw)
        assert kind == frames.DONE and frames.decode(payload) == {"order": list(range(5000))}
        assert frames.read_raw_frame(raw) is None
    writer.join()


def test_outbox_files_fallback_samples_under_the_chosen_target_with_live_summaries() -> None:
    icmp = Target(Method.ICMP, host="127.0.0.1", port=22)
    stream = io.BytesIO()
    outbox = jp._Outbox(stream, threading.Lock(), [icmp])
    twin = icmp.with_method(Method.TCP)
    for seq, rtt in enumerate([1.0, None, 3.0]):
        outbox.sample(twin, Sample(seq, seq, rtt))
    outbox.progress(Progress(1, 1, ProbeResult(twin, 0, 1, ()), 0.1))
    outbox.flush()
    stream.seek(0)
    kind, data = frames.read_raw_frame(stream)
    samples, summaries = frames.decode(data)
    assert kind == frames.SAMPLES and {s[0] for s in samples} == {icmp.key}
    assert frames.summary_of(summaries[icmp.key]) == summarize([1.0, None, 3.0])
    kind, data = frames.read_raw_frame(stream)
    assert kind == frames.FINISHED and frames.decode(data)[0][0] == 0


def test_a_probe_job_in_the_child_process_reports_samples_results_and_the_end() -> None:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(64)
    port = server.getsockname()[1]
    try:
        targets = [
            Target(Method.TCP, host="127.0.0.1", port=port),
            Target(Method.ICMP, host="127.0.0.1", port=port),
        ]
        child = JobProcess(
            {
                "kind": "probe",
                "targets": targets,
                "options": ProbeOptions(count=5, interval_s=0.01),
                "db_path": None,
            }
        )
        kinds, results, samples = [], {}, []
        for kind, data in child.frames():
            kinds.append(kind)
            payload = frames.decode(data)
            if kind == frames.SAMPLES:
                samples.extend(payload[0])
            elif kind == frames.FINISHED:
                results.update({n: frames.result_of(p) for n, p in payload})
            elif kind == frames.DONE:
                done = payload
        errors = child.finish()
    finally:
        server.close()
    assert kinds[-1] == frames.DONE and done["round_id"] is None, errors
    # The child ends cleanly: its waiting-for-cancel thread must not hold stdin's lock at shutdown (that made
    # Python wait 1 s and abort with SIGABRT after every run).
    assert child.process.returncode == 0 and "Fatal Python error" not in errors, errors
    ordered = [results[n] for n in done["order"]]
    assert [r.target.port for r in ordered] == [port, port]
    assert all(r.loss == 0.0 and r.sent == 5 for r in ordered)
    assert {s[0] for s in samples} == {t.key for t in targets} and len(samples) == 10


def test_cancelling_the_child_stores_nothing_and_says_so(tmp_path) -> None:
    targets = [Target(Method.ICMP, host="127.0.0.1", port=9)]
    db = tmp_path / "s.sqlite3"
    child = JobProcess(
        {
            "kind": "probe",
            "targets": targets,
            "options": ProbeOptions(count=1000, interval_s=0.01),
            "db_path": str(db),
        }
    )
    kinds = []
    for kind, _ in child.frames():
        kinds.append(kind)
        if kind == frames.SAMPLES and len(kinds) == 1:
            child.send({"cancel": True})
    child.finish()
    assert kinds[-1] == frames.CANCELLED and not db.exists()


def test_the_child_words_its_messages_in_the_language_chosen_for_the_window() -> None:
    from desktop.i18n import language

    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    url = f"http://127.0.0.1:{port}/"
    job = {
        "kind": "probe",
        "targets": [Target(Method.HTTP, url=url)],
        "options": ProbeOptions(count=1),
        "db_path": None,
    }
    messages = {}
    for chosen in ("zh_CN", "en"):
        with language(chosen):
            child = JobProcess(job)
        found = [
            frames.result_of(p)
            for kind, data in child.frames()
            if kind == frames.FINISHED
            for _, p in frames.decode(data)
        ]
        child.finish()
        messages[chosen] = found[0].message
    assert messages == {"zh_CN": f"{url}：连接被拒绝", "en": f"{url}: connection refused"}
