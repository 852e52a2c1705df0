"""Reading a request body on a test HTTP server (the loopback peers, the lab's region service): chunked
(RFC 9112 §7.1, as httpx streams an upload) or of a Content-Length, discarded, its size returned."""

from __future__ import annotations

from http.server import BaseHTTPRequestHandler
from typing import BinaryIO


def read_body(handler: BaseHTTPRequestHandler) -> int:
    """Read and discard the request's body; its size in bytes (raises ConnectionError when it ends early)."""
    stream = handler.rfile
    if handler.headers.get("Transfer-Encoding", "").lower() != "chunked":
        return _discard(stream, int(handler.headers.get("Content-Length") or 0))
    total = 0
    while True:
        line = stream.readline()
        if not line:
            raise ConnectionError("the body ended before its last chunk")
        size = int(line.split(b";")[0].strip(), 16)
        if size == 0:
            while stream.readline().strip():  # trailer fields, up to the empty line
                pass
            return total
        total += _discard(stream, size)
        stream.readline()  # the CRLF after the chunk's data


def _discard(stream: BinaryIO, size: int) -> int:
    remaining = size
    while remaining:
        part = stream.read(min(remaining, 1 << 16))
        if not part:
            raise ConnectionError("the body ended early")
        remaining -= len(part)
    return size
