"""Issue 31 §7: a TCP connect that needed its SYN again is a loss on the line, not a 1.2 s round trip.

Over an emulated ~150 ms line losing ~4% each way (~8% of handshakes lose their SYN or SYN-ACK), with a
timeout past TCP's 1 s initial retransmission timeout (so the kernel's retransmitted SYN completes the
handshake before the attempt times out), `linkvet probe -m tcp` is held to the truth of the packets: its lost
count within one attempt of the handshakes that did not get through at the first try, its RTTs those of the
clean handshakes (median within 1 ms, p95 within the backend's bound), the handshakes that completed only
after a retransmission counted apart (`retransmitted`) and never as RTTs. On both probe backends: the linux
one reads the retransmissions from TCP_INFO, the portable one from the connect time.
"""

from __future__ import annotations

import pytest

from tests.lab import truth
from tests.lab.accuracy import compare
from tests.lab.anchors import run_linkvet_probe
from tests.lab.netlab import TCP_PORT, Lab
from tests.lab.profiles import Profile
from tests.lab.test_probe_accuracy import P95_MS

pytestmark = pytest.mark.lab

LOSSY = Profile.constant(150.0, jitter_ms=1.0, loss=0.04)
COUNT = 150
TIMEOUT_S = 3.5  # past the 1 s initial RTO and the 3 s of a second retransmission: a retried SYN completes


@pytest.mark.parametrize("backend", ["linux", "portable"])
def test_a_retransmitted_handshake_is_a_loss_not_a_round_trip(lab: Lab, backend: str) -> None:
    lab.set_profile(LOSSY)
    host = lab.region().address
    run = run_linkvet_probe(
        lab,
        host,
        "--method",
        "tcp",
        "--port",
        str(TCP_PORT),
        "--count",
        str(COUNT),
        "--interval",
        "0.1",
        "--timeout",
        str(TIMEOUT_S),
        backend=backend,
    )
    result = run.result
    assert result["method"] == "tcp" and result["backend"] == backend, result
    exchanges = truth.tcp_handshakes(
        lab.packets(run.since_ns),
        host,
        TCP_PORT,
        since_ns=run.since_ns,
        until_ns=run.until_ns,
        timeout_s=TIMEOUT_S,
        retransmission_is_loss=True,
    )
    cmp = compare("linkvet tcp", run.rtts_ms, exchanges, TIMEOUT_S)
    retried = [e for e in exchanges if e.fate.startswith("retransmitted, answered")]
    assert len(exchanges) == result["sent"] == COUNT, cmp.describe()
    assert cmp.lost_true >= 5, f"the line lost too little to judge: {cmp.describe()}"
    # the loss: every handshake that did not get through at the first try, within one attempt of the truth
    assert abs(cmp.lost_measured - cmp.lost_true) <= 1, cmp.describe()
    assert result["sent"] - result["received"] == cmp.lost_measured
    # the late ends kept apart, never as RTTs: no measured RTT near the retransmission timeout
    assert abs(int(result["retransmitted"]) - len(retried)) <= 1, (
        result["retransmitted"],
        [e.fate for e in retried],
    )
    assert all(rtt is None or rtt < 1000 for rtt in run.rtts_ms), cmp.describe()
    if retried:
        assert float(result["retransmitted_median_ms"]) > 1000
        assert "sent again" in (result["message"] or "")
    # the clean handshakes' RTTs, as the lab's tolerances hold them
    true_median, true_p95 = cmp.true_median(), cmp.true_p95()
    assert true_median is not None and true_p95 is not None
    assert result["rtt_median_ms"] == pytest.approx(true_median, abs=1.0), cmp.describe()
    assert result["rtt_p95_ms"] == pytest.approx(true_p95, abs=P95_MS[backend]), cmp.describe()
    print(
        f"{backend}: {COUNT} connects, truth lost {cmp.lost_true} ({len(retried)} completed after a "
        f"retransmission), linkvet lost {cmp.lost_measured}, retransmitted {result['retransmitted']}; "
        f"median {result['rtt_median_ms']:.2f} ms vs true {true_median:.2f}"
    )
