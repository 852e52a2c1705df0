"""The lab's yardsticks for throughput, on a packet log written by hand (no lab, no root): a lost segment,
its retransmission and a spurious second copy."""

from __future__ import annotations

import numpy as np

from tests.lab import truth
from tests.lab.packetlog import DOWN, DTYPE, FORWARDED, LOST_RANDOM, TCP, ip_to_int

HOST, OFFICE = "198.18.1.2", "198.18.0.2"
ISN = 2**32 - 1500  # the flow's sequence numbers wrap around 2**32 on the way


def _log(segments: list[tuple[int, int, int, int]]) -> np.ndarray:
    """(t_out ns, offset of the first byte, payload bytes, fate) per segment of one flow, region → office."""
    log = np.zeros(len(segments), dtype=DTYPE)
    for i, (t_ns, offset, length, fate) in enumerate(segments):
        log[i]["t_in_ns"] = t_ns - 1_000
        log[i]["t_out_ns"] = t_ns if fate == FORWARDED else -1
        log[i]["direction"] = DOWN
        log[i]["fate"] = fate
        log[i]["proto"] = TCP
        log[i]["src"], log[i]["dst"] = ip_to_int(HOST), ip_to_int(OFFICE)
        log[i]["sport"], log[i]["dport"] = 80, 40000
        log[i]["tcp_seq"] = (ISN + offset) % 2**32
        log[i]["payload_len"] = length
        log[i]["ip_len"] = length + 52
    return log


# 0–999 at 1 s; 1000–1999 lost; 2000–2999 and 3000–3999 wait behind the hole; 1000–1999 again at 4 s fills
# it; 2000–2999 once more at 5 s (a spurious retransmission) brings nothing new.
LOG = _log(
    [
        (1_000_000_000, 0, 1000, FORWARDED),
        (2_000_000_000, 1000, 1000, LOST_RANDOM),
        (2_000_000_000, 2000, 1000, FORWARDED),
        (3_000_000_000, 3000, 1000, FORWARDED),
        (4_000_000_000, 1000, 1000, FORWARDED),
        (5_000_000_000, 2000, 1000, FORWARDED),
    ]
)


def test_in_order_delivery_counts_bytes_behind_a_hole_when_it_is_filled() -> None:
    flow = truth.in_order(LOG, HOST, direction=DOWN, port=80)
    assert flow.first_segment_bytes == 1000
    assert [flow.bytes_by(t * 1_000_000_000) for t in (0, 1, 2, 3, 4, 5)] == [0, 1000, 1000, 1000, 4000, 4000]
    assert flow.rate_mbps(3_500_000_000, 4_500_000_000) == 3000 * 8 / 1e6


def test_the_wire_counts_each_copy_and_new_bytes_each_byte_once() -> None:
    everything = truth.tcp_delivery(LOG, HOST, port=80)
    assert everything.payload_bytes == 5000  # five copies forwarded
    assert everything.new_payload_bytes == 4000  # four distinct kilobytes
    late = truth.tcp_delivery(LOG, HOST, port=80, since_ns=3_500_000_000)
    assert (late.payload_bytes, late.new_payload_bytes) == (2000, 1000)  # the spurious copy adds nothing
