"""The run's packet pacer: packets to different targets leave at least `gap_s` apart (fping's `-i`), so a
thousand targets do not burst and cause their own loss. Every method's attempt loop, every traceroute probe
and the ICMP engine's sending thread take their turn here.

A sender first reserves a slot (first come, first served: slots are handed out `gap` apart), waits for it,
and then may still be held back until `gap` after the previous packet actually left: a sender that woke late
pushes the next one back rather than letting two packets leave closer than `gap`. After sending, the sender
reports when its packet left (`sent`), which is what the next turn measures from. The pacer is shared by the
event loop (`turn`) and the ICMP engine's thread (`turn_ns`, or its compiled sends), so its state
(`PacerState`: the compiled `_linkvet_icmp.Pacer` where built, else `PythonPacerState`) takes a lock.

`precise_sleep_ns` and `fine_timer_slack` are the engine thread's sleep: the kernel's default timer slack
lets a sleep of a millisecond overrun by 50 µs and more; one nanosecond of slack keeps wake-ups within
~10 µs on an idle core.
"""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Protocol

from probes.icmp import native

PR_SET_TIMERSLACK = 29


class Pacer:
    """Spaces out packets across all targets: at most one send every `gap_s` seconds."""

    def __init__(self, gap_s: float) -> None:
        self.gap_s = max(0.0, gap_s)
        self.gap_ns = round(self.gap_s * 1e9)
        # The compiled state where it is built (the ICMP engine's compiled sends take their turns in it without
        # the interpreter); the same rules in Python otherwise.
        built = native.icmp
        self.state: PacerState = (
            built.Pacer(self.gap_ns) if built is not None else PythonPacerState(self.gap_ns)
        )

    def turn_ns(self, slot: int | None = None) -> tuple[int, int | None]:
        """One try at a turn: `(0, None)` when the caller may send now (then it sends, and calls `sent`),
        else `(monotonic ns to try again at, the caller's reserved slot)`; pass the slot back next time, so
        that the turns go first come, first served."""
        return self.state.turn_ns(slot)

    def sent(self, at_ns: int | None = None, *, reserve: bool = False) -> int | None:
        """The caller's packet left at `at_ns` (monotonic ns; default now): the next turn waits `gap` after.
        With `reserve`, also reserve the caller's next slot and return it (pass it to `turn_ns`)."""
        return self.state.sent(at_ns, reserve=reserve)

    async def turn(self) -> None:
        """Wait for this caller's turn (in the event loop); send right after, then call `sent`."""
        if self.gap_ns == 0:
            return
        slot: int | None = None
        while True:
            at, slot = self.state.turn_ns(slot)
            if at == 0:
                return
            await asyncio.sleep(max(0, at - time.monotonic_ns()) / 1e9)


class PacerState(Protocol):
    """The pacer's state and rules (`Pacer.turn_ns`, `Pacer.sent`): `PythonPacerState`, or the compiled
    `_linkvet_icmp.Pacer`, which keeps the same rules behind a mutex."""

    @property
    def gap_ns(self) -> int: ...

    def turn_ns(self, slot: int | None = None, /) -> tuple[int, int | None]: ...

    def sent(self, at_ns: int | None = None, *, reserve: bool = False) -> int | None: ...


class PythonPacerState:
    """The pacer's state in Python (where `_linkvet_icmp` is not built)."""

    def __init__(self, gap_ns: int) -> None:
        self.gap_ns = max(0, gap_ns)
        self._lock = threading.Lock()
        self._next_free_ns = 0
        self._last_sent_ns = -self.gap_ns

    def turn_ns(self, slot: int | None = None, /) -> tuple[int, int | None]:
        gap = self.gap_ns
        with self._lock:
            now = time.monotonic_ns()
            if slot is None:
                slot = max(now, self._next_free_ns)
                self._next_free_ns = slot + gap
            if slot > now:
                return slot, slot
            free_at = self._last_sent_ns + gap
            if free_at > now:
                return free_at, slot
            self._last_sent_ns = now
            if self._next_free_ns < now + gap:
                self._next_free_ns = now + gap
            return 0, None

    def sent(self, at_ns: int | None = None, *, reserve: bool = False) -> int | None:
        at = time.monotonic_ns() if at_ns is None else at_ns
        gap = self.gap_ns
        with self._lock:
            if at > self._last_sent_ns:
                self._last_sent_ns = at
                if self._next_free_ns < at + gap:
                    self._next_free_ns = at + gap
            if not reserve:
                return None
            slot = max(at, self._next_free_ns)
            self._next_free_ns = slot + gap
            return slot


def fine_timer_slack() -> None:
    """Give the calling thread a 1 ns timer slack (Linux; elsewhere, or if refused, nothing changes)."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_TIMERSLACK, 1, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def precise_sleep_ns(until_ns: int) -> None:
    """Sleep until the monotonic clock reads `until_ns` (clock_nanosleep; no busy waiting)."""
    delay = until_ns - time.monotonic_ns()
    if delay > 0:
        time.sleep(delay / 1e9)
