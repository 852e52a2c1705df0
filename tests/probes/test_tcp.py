import socket
import threading
import time

import pytest

from probes.errors import ErrorKind
from probes.runner import run
from probes.sockets import (
    SO_TIMESTAMPING,
    SOF_TIMESTAMPING_OPT_ID,
    TX_TIMESTAMP_FLAGS,
    drain_error_queue,
    kernel_handshake_rtt_ms,
)
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


@pytest.mark.linux_backend
def test_handshakes_are_timed_by_the_kernel_and_the_result_says_so(tcp_listener: int) -> None:
    (result,) = run([parse_target(f"127.0.0.1:{tcp_listener}")], FAST)
    assert result.received == 10
    assert (
        result.metric("timestamps") == "kernel"
    )  # TCP_INFO's handshake RTT: the kernel's clock at both ends


def test_a_refusal_is_timed_in_user_space_and_the_result_says_so(closed_port: int) -> None:
    (result,) = run([parse_target(f"127.0.0.1:{closed_port}")], FAST)
    assert result.metric("timestamps") == "user"  # the kernel keeps no RTT for a refused connection


def test_the_kernel_gives_no_transmit_stamp_for_a_syn(tcp_listener: int) -> None:
    """Why TCP connect times come from TCP_INFO rather than SO_TIMESTAMPING: the kernel stamps only bytes
    written with sendmsg, so a connecting socket's error queue stays empty (the decision in
    probes/methods/tcp.py rests on this)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPING, TX_TIMESTAMP_FLAGS & ~SOF_TIMESTAMPING_OPT_ID)
        sock.connect(("127.0.0.1", tcp_listener))
        assert kernel_handshake_rtt_ms(sock) is not None
        assert drain_error_queue(sock, socket.AF_INET) == ([], [])


def test_a_handshake_slower_than_the_timeout_is_lost(tcp_listener: int) -> None:
    # A loopback handshake takes tens of µs: with a 1 µs timeout none counts, whether linkvet saw it
    # complete (late) or gave up first (timeout).
    (result,) = run(
        [parse_target(f"127.0.0.1:{tcp_listener}")], ProbeOptions(count=4, interval_s=0.01, timeout_s=1e-6)
    )
    assert (result.sent, result.received, result.loss) == (4, 0, 1.0)
    assert {s.error for s in result.samples} <= {ErrorKind.LATE, ErrorKind.TIMEOUT}


def test_the_loss_line_follows_the_language(silent_port: int) -> None:
    """One message per sentence: the loss line reads in Chinese, its error kinds stay enumerated values."""
    from probes.i18n import set_language

    set_language("zh_CN")
    try:
        (result,) = run(
            [parse_target(f"127.0.0.1:{silent_port}")], ProbeOptions(count=2, interval_s=0.05, timeout_s=0.4)
        )
    finally:
        set_language(None)
    assert result.message == "2 次连接中丢失 2 次：2 timeout"


@pytest.mark.parametrize("backend", ["linux", "portable"])
def test_a_handshake_whose_syn_was_sent_again_is_a_loss(backend: str) -> None:
    """Issue 31 §7: a listener whose accept queue is full drops the first SYN; the queue is freed 0.4 s later,
    so the kernel's retransmitted SYN (at its 1 s timeout) completes the handshake. That attempt is a loss
    on the line — counted as lost, its 1 s end kept apart (`retransmitted`), never an RTT — read from
    TCP_INFO on the linux backend and from the connect time on the portable one."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(0)
    port = listener.getsockname()[1]
    fillers = [socket.create_connection(("127.0.0.1", port))]
    extra = socket.socket()
    extra.setblocking(False)
    extra.connect_ex(("127.0.0.1", port))
    fillers.append(extra)
    time.sleep(0.1)

    def free_the_queue() -> None:
        time.sleep(0.4)
        for sock in fillers:
            sock.close()
        while True:
            try:
                listener.accept()[0].close()
            except OSError:
                return

    listener.settimeout(0.5)
    freer = threading.Thread(target=free_the_queue)
    freer.start()
    try:
        (result,) = run(
            [parse_target(f"127.0.0.1:{port}")], ProbeOptions(count=1, timeout_s=3.0), backend=backend
        )
    finally:
        freer.join()
        listener.close()
    (sample,) = result.samples
    assert sample.error is ErrorKind.RETRANSMITTED and sample.rtt_ms is None, result
    assert (result.sent, result.received, result.loss) == (1, 0, 1.0)
    assert result.metrics["retransmitted"] == 1
    assert 1000 <= float(result.metrics["retransmitted_median_ms"] or 0) < 3000
    assert "sent again" in (result.message or "")
