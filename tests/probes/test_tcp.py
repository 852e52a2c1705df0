from probes.errors import ErrorKind
from probes.runner import run
from probes.target import Method, ProbeOptions, parse_target

FAST = ProbeOptions(count=10, interval_s=0.005, timeout_s=1.0)


def test_connect_times_to_a_listener(tcp_listener: int) -> None:
    (result,) = run([parse_target(f"127.0.0.1:{tcp_listener}")], FAST)
    assert result.method is Method.TCP
    assert (result.sent, result.received, result.loss) == (10, 10, 0.0), result.message
    assert all(s.error is None and 0 < (s.rtt_ms or 0) < 50 for s in result.samples)
    assert result.message is None


def test_refusal_is_a_reply_with_an_rtt(closed_port: int) -> None:
    (result,) = run([parse_target(f"127.0.0.1:{closed_port}")], FAST)
    assert result.received == 10 and result.loss == 0.0
    assert {s.error for s in result.samples} == {ErrorKind.REFUSED}
    assert all(s.rtt_ms is not None for s in result.samples)
    assert "refused" in (result.message or "") and str(closed_port) in (result.message or "")


def test_unanswered_syn_is_a_loss(silent_port: int) -> None:
    """SYNs to a listener whose accept queue is full are dropped (no RST, no SYN-ACK): each connect times
    out and counts as lost."""
    (result,) = run(
        [parse_target(f"127.0.0.1:{silent_port}")], ProbeOptions(count=3, interval_s=0.05, timeout_s=0.4)
    )
    assert (result.sent, result.received, result.loss) == (3, 0, 1.0)
    assert {s.error for s in result.samples} == {ErrorKind.TIMEOUT}
    assert result.message == "3 of 3 connects lost: 3 timeout"
