"""linkvet's compiled part (`_linkvet_icmp`): built where pip can build it, refused when stale, the pacer's two
states keeping the same rules, and the compiled engine's packet reading against crafted packets on a real
raw socket (the Python engine beside it, on the same packets)."""

from __future__ import annotations

import asyncio
import os
import random
import shutil
import socket
import struct
import sys
import sysconfig
import threading
import time
import types
from pathlib import Path

import pytest

from probes.icmp import native
from probes.icmp.engine import IcmpEngine
from probes.icmp.wire import fold, ones_complement_sum
from probes.pacing import PacerState, PythonPacerState


def _can_build() -> str | None:
    if sys.platform != "linux":
        return "the compiled engine is Linux's"
    if shutil.which("cc") is None and shutil.which("gcc") is None:
        return "no C compiler here: pip installs linkvet without the compiled engine"
    if not (Path(sysconfig.get_paths()["include"]) / "Python.h").exists():
        return "no Python.h here: pip installs linkvet without the compiled engine"
    return None


@pytest.mark.skipif(_can_build() is not None, reason=_can_build() or "")
def test_pip_built_the_compiled_engine_where_it_can() -> None:
    # The README's test command installs the checkout first; with a compiler there, the build must be here
    # and current, or the engine tests would all quietly test the Python thread only.
    assert native.icmp is not None, native.icmp_problem


def test_a_stale_build_or_the_switch_leaves_the_python_path_and_says_why(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    stale = types.ModuleType("_linkvet_icmp")
    stale.API = native.API - 1  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "_linkvet_icmp", stale)
    module, problem = native._load()
    assert module is None
    assert problem == (
        f"_linkvet_icmp is a build of another version (API {native.API - 1}, this code needs "
        f"{native.API}): reinstall"
    )
    monkeypatch.setenv("LINKVET_PURE_PYTHON", "1")
    assert native._load() == (None, "LINKVET_PURE_PYTHON is set")


def _states() -> list[object]:
    built = native.icmp
    skip = pytest.mark.skip(reason=f"the compiled pacer is not here: {native.icmp_problem}")
    return [
        pytest.param(PythonPacerState, id="python"),
        pytest.param(built.Pacer if built else None, id="compiled", marks=() if built else skip),
    ]


@pytest.mark.parametrize("state_class", _states())
def test_both_pacer_states_keep_the_same_rules(state_class: type[PacerState]) -> None:
    gap = 10_000_000_000  # 10 s: nothing below waits that long, so each answer is the rule's, not a race's
    state = state_class(gap)
    assert state.gap_ns == gap
    before = time.monotonic_ns()
    assert state.turn_ns(None) == (0, None)  # the first sender goes at once
    at, slot = state.turn_ns(None)  # the next gets a slot one gap after the first send
    assert slot is not None and at == slot and before + gap <= slot <= time.monotonic_ns() + gap
    assert state.turn_ns(slot) == (slot, slot)  # its slot has not come: it keeps it
    third_at, third = state.turn_ns(None)  # first come, first served: the slot after
    assert third is not None and third_at == third == slot + gap
    # A packet sent late (after `at`) pushes the next turn back to a gap after it.
    late = slot + 5 * gap
    assert state.sent(late, reserve=True) == late + gap
    assert state.sent(late, reserve=False) is None
    # A send reported out of order (earlier than the last) changes nothing.
    assert state.sent(before, reserve=True) == late + 2 * gap


def test_a_negative_gap_reads_as_none() -> None:
    states: list[PacerState] = [PythonPacerState(-5)]
    if native.icmp is not None:
        states.append(native.icmp.Pacer(-5))
    for state in states:
        assert state.gap_ns == 0
        assert state.turn_ns(None) == (0, None) and state.turn_ns(None) == (0, None)


@pytest.mark.skipif(native.icmp is None, reason=native.icmp_problem or "")
def test_the_engine_makes_outcomes_only_of_a_plain_tuple_type_and_refuses_to_run_uninitialised() -> None:
    from probes.icmp.compiled import _ERRORS, _SOURCES
    from probes.icmp.echoes import EchoOutcome
    from probes.sockets import refusal_text

    assert native.icmp is not None
    engine_type = native.icmp.Engine

    class WithFields(tuple[int, ...]):  # an instance dict besides its items: not what the C code fills
        pass

    for outcome_type in (WithFields, list, EchoOutcome.__mro__[-1]):
        with pytest.raises(TypeError, match="tuple subclass without fields of its own"):
            engine_type(outcome_type, _ERRORS, _SOURCES, refusal_text)
    with pytest.raises(ValueError, match="one error per outcome code"):
        engine_type(EchoOutcome, _ERRORS[:-1], _SOURCES, refusal_text)
    # Made without __init__ (no read buffers, no way to make outcomes): every call says so, none crashes.
    bare = engine_type.__new__(engine_type)
    with pytest.raises(RuntimeError, match="not initialised"):
        bare.run(0)
    with pytest.raises(RuntimeError, match="not initialised"):
        bare.close()
    with pytest.raises(RuntimeError, match="not initialised"):
        bare.add_socket(0, socket.AF_INET, True, 1, b"8 bytes!", True)


# -- crafted packets ---------------------------------------------------------------------------------------


def _icmp(icmp_type: int, body: bytes) -> bytes:
    header = struct.pack("!BBHHH", icmp_type, 0, 0, 0, 0)[:4]
    packet = header + body
    checksum = fold(ones_complement_sum(packet))
    return packet[:2] + struct.pack("!H", checksum) + packet[4:]


def _crafted(rng: random.Random) -> bytes:
    """An ICMP packet of a type the engine's raw socket lets through (reply, unreachable, time exceeded),
    with a body that is random, truncated, or a quoted request whose lengths lie."""
    icmp_type = rng.choice([0, 3, 11])
    shape = rng.randrange(4)
    if shape == 0:  # short or empty
        body = rng.randbytes(rng.randrange(0, 8))
    elif shape == 1:  # random of any length
        body = rng.randbytes(rng.randrange(0, 200))
    elif shape == 2:  # a quoted IPv4 header claiming a length longer than what follows
        ihl = rng.randrange(0, 16)
        body = b"\x00\x00\x00\x00" + bytes([0x40 | ihl]) + rng.randbytes(rng.randrange(0, 40))
    else:  # a quoted echo request to 127.0.0.1 with random identifier and sequence
        ip = struct.pack(
            "!BBHHHBBH4s4s", 0x45, 0, 84, 0, 0, 64, 1, 0, b"\x7f\x00\x00\x01", b"\x7f\x00\x00\x01"
        )
        body = (
            b"\x00\x00\x00\x00"
            + ip
            + struct.pack("!BBHHH", 8, 0, 0, rng.randrange(65536), rng.randrange(65536))
        )
    return _icmp(icmp_type, body)


@pytest.mark.skipif(os.geteuid() != 0, reason="crafting ICMP packets needs a raw socket (root)")
@pytest.mark.usefixtures("engine_thread")
def test_crafted_icmp_packets_neither_crash_the_engine_nor_answer_its_echoes() -> None:
    """While a train of echoes runs to 127.0.0.1, another raw socket floods loopback with crafted ICMP
    replies and errors (truncated, lying lengths, quoting requests that are not ours). The engine reads them
    all (its raw socket sees every ICMP packet on the host), ignores them, and answers each echo from its own
    reply only."""
    rng = random.Random(20261202)
    packets = [_crafted(rng) for _ in range(3000)]
    stop = threading.Event()

    def flood() -> None:
        with socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP) as sender:
            for start in range(0, len(packets), 10):  # 10 a millisecond: the whole train long
                if stop.is_set():
                    return
                for packet in packets[start : start + 10]:
                    sender.sendto(packet, ("127.0.0.1", 0))
                time.sleep(0.001)

    async def scenario() -> list[object]:
        async with IcmpEngine() as engine:
            assert engine.privileged()
            return await engine.train("127.0.0.1", socket.AF_INET, count=30, interval_s=0.02, timeout_s=1.0)

    flooding = threading.Thread(target=flood, daemon=True)
    flooding.start()
    try:
        outcomes = asyncio.run(scenario())
    finally:
        stop.set()
        flooding.join(timeout=5)
    assert len(outcomes) == 30
    assert all(o.error is None and o.rtt_ms is not None and o.responder == "127.0.0.1" for o in outcomes)  # type: ignore[attr-defined]
