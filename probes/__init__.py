"""linkvet's measuring engine: probe methods, the paced runner, the result store, the scheduler and analysis.

Imports neither Qt nor `catalogs`; the CLI and the desktop app compose it.

Where things are
    target.py       what to measure: `Target` (with its plain form), `ProbeOptions`, `parse_target`,
                    `parse_target_list`; addresses.py  addresses, host names and URLs, read strictly
    limits.py       the one validation of every count, duration, time and size (flags and plans alike)
    results.py      what a measurement returns: `Sample`, `ProbeResult`
    stats.py        the definitions of loss, percentiles and jitter used everywhere
    errors.py       every exception the engine raises (the tree) and `ErrorKind`, why an attempt failed
    methods/        one module per probe method (icmp, tcp, http, download, iperf3, trace, responsiveness);
                    what http and download share in `_httpcommon.py`, their connections' kernel timestamps
                    (TTFB) in `_kernel_times.py` (SO_TIMESTAMPING) and `_timed_transport.py` (the httpx transport)
    loaded_latency.py  a responsiveness test's figures from its probes: RTT under load, RPM, the grade
    runner.py       many targets at once, paced (`pacing.py`), one shared ICMP engine
    icmp/           the ICMP engine: its thread in Python or compiled (`icmp/native/`, C), echoes, sockets,
                    packets
    backends/       the probe backends, one chosen per run: linux (kernel stamps), portable (user-space
                    timing), macos, windows (the ICMP API); each result records its `backend`
    traceroute/     traceroute over ICMP, UDP or TCP;  routes/  the network table and route verdicts
    sockets.py      the linux backend's socket plumbing (kernel receive and transmit timestamps, error
                    queues, TCP_INFO)
    resolve.py      DNS (and IPv4-mapped IPv6 addresses to IPv4)
    peak.py         peak windows
    schedule/       plan files, the scheduler of `linkvet schedule`, its Prometheus metrics
    alerts/         `[[alerts]]` rules, judged after each round, told to webhooks and mailboxes
    store/          the result store (SQLite): records, write and read paths, rollups, alert states, the
                    SQL backend
    histogram.py    the mergeable RTT histograms the rollups keep
    analysis/       hour-of-day, peak vs off-peak, breaches and link summaries over the store
    files/          the files users hand in: `inputfile.py`, the one reader of input files (regular
                    files only, bounded; `textinput.py`, which `catalogs` reads through too, checks TOML/JSON
                    nesting and numbers before parsing; pydantic's errors in our words and where a field's
                    line is), `filemodel.py`, the strict base of every file model (pydantic: imported only
                    where a file has one)
    timestamps.py   UTC µs timestamps; paths.py default file locations
"""

from probes._version import __version__

__all__ = ["__version__"]
