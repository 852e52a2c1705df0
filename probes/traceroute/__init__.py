"""Traceroute from the office: per-hop RTT and loss over ICMP, UDP or TCP, each hop labelled with the
backbone it belongs to (see `probes.routes` for the table and the path classification)."""

from probes.traceroute.engine import TraceOptions, trace, trace_host, trace_repeatedly
from probes.traceroute.result import PROTOCOLS, HopReply, TraceHop, TraceProtocol, TraceResult

__all__ = [
    "PROTOCOLS",
    "HopReply",
    "TraceHop",
    "TraceOptions",
    "TraceProtocol",
    "TraceResult",
    "trace",
    "trace_host",
    "trace_repeatedly",
]
