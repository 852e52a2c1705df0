"""linkvet's http method one request at a time, each attempt's figures printed, for the lab to pair with the
truth of each connection (`linkvet probe --json` gives only the medians):

    python -m tests.lab.http_attempts URL COUNT [INTERVAL_S]

One JSON line per attempt: `dns_ms`, `connect_ms`, `tls_ms`, `ttfb_ms`, `total_ms`, `ttfb_source`,
`error`. The requests never overlap (each starts `INTERVAL_S` after the previous one ended).
"""

from __future__ import annotations

import asyncio
import json
import sys

from probes.methods._httpcommon import prepare_tls
from probes.methods.http import request_once
from probes.target import ProbeOptions


async def attempts(url: str, count: int, interval_s: float) -> None:
    options = ProbeOptions(count=1, timeout_s=2.0)
    await prepare_tls(options.verify_tls)
    for seq in range(count):
        if seq:
            await asyncio.sleep(interval_s)
        attempt = await request_once(url, options, seq)
        error = attempt.sample.error.value if attempt.sample.error is not None else None
        figures = {**attempt.timings, "ttfb_source": attempt.ttfb_source, "error": error}
        print(json.dumps(figures), flush=True)


def main(argv: list[str]) -> int:
    url, count, *rest = argv
    asyncio.run(attempts(url, int(count), float(rest[0]) if rest else 0.5))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
