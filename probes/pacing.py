"""The run's packet pacer: packets to different targets leave at least `gap_s` apart (fping's `-i`), so a
thousand targets do not burst and cause their own loss. Every method's attempt loop and every traceroute
probe waits for its turn here."""

from __future__ import annotations

import asyncio
import time


class Pacer:
    """Spaces out packets across all targets: at most one send every `gap_s` seconds.

    Each caller reserves the next free slot; a caller that wakes late does not push later slots back, so a
    late wake-up is caught up and the average rate holds at 1/gap.
    """

    def __init__(self, gap_s: float) -> None:
        self.gap_s = max(0.0, gap_s)
        self._next_free = 0.0

    async def turn(self) -> None:
        if self.gap_s == 0:
            return
        now = time.monotonic()
        slot = max(now, self._next_free)
        self._next_free = slot + self.gap_s
        if slot > now:
            await asyncio.sleep(slot - now)
