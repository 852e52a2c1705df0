"""Side by side on the emulated link: linkvet and the anchor tools, each against the lab's truth.

    python -m tests.benchmarks.lab_side_by_side [--count 200] [--seconds 10] [--runs 3] [--modes quiet,busy]
                                                [--rtt-only]                     (root: builds the lab)

On one lab link, in one run, one tool at a time: ~150 ms RTT with 2 ms jitter and random + bursty loss for
RTT and loss (fping -C, ping, linkvet icmp and tcp on the linux probe backend and again on the portable
one, `LINKVET_PROBE_BACKEND=portable`), the same without loss for HTTP phases (curl -w,
linkvet http), and 50 Mbit/s for throughput (iperf3, curl, linkvet download, linkvet iperf3). Every figure
is compared with the truth of the very packets that tool sent; linkvet's error is printed as a ratio to
fping's (RTT, loss), curl's (HTTP phases) and iperf3's (throughput). Goal: ratio ≤ 1.0.

The RTT and loss part runs `--runs` times in each mode: `quiet` (nothing else started), and `busy` (two
CPU-bound processes beside the tools at normal priority, started and stopped here; the emulator runs at
real-time priority, so only the tools compete with them). A last table gives each tool's spread over the
runs: per-attempt RTT error (mean of |measured − true|), p95 RTT error (|measured p95 − true p95|) and the
ratio of linkvet's mean error to fping's in the same run. Goal (issue 18): ICMP mean error ≤ 0.5× fping's
and p95 within 2 ms, busy or quiet. The full table is the first quiet run's.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from tests.lab import anchors, truth
from tests.lab.accuracy import Comparison, compare
from tests.lab.cpuload import BusyCpus
from tests.lab.netlab import HTTP_PORT, IPERF3_PORT, TCP_PORT, Lab, lab_unavailable_reason
from tests.lab.packetlog import DOWN
from tests.lab.profiles import Profile

LOSSY_150 = Profile.constant(150.0, jitter_ms=2.0, loss=0.02, burst_loss=0.03, mean_burst=3.0)
CLEAN_150 = Profile.constant(150.0, jitter_ms=1.0)
SHAPED_MBPS = 50.0
# A queue deeper than the round trip, so that one TCP flow keeps the link full and its capacity is the truth.
SHAPED_150 = Profile.constant(150.0, rate_mbps=SHAPED_MBPS, queue_ms=250.0)
OMIT_S = 2  # iperf3 -O, as linkvet's iperf3 method leaves TCP slow start out
TIMEOUT_S = 0.9
INTERVAL_S = 0.1


@dataclass
class Row:
    section: str
    tool: str
    figure: str
    value: float | None
    true: float | None
    unit: str
    anchor: str | None = None  # the row this one's error is divided by
    group: str = ""  # the run the row belongs to: its anchor is looked for in the same group

    @property
    def error(self) -> float | None:
        if self.value is None or self.true is None:
            return None
        return abs(self.value - self.true)


def _rtt_rows(section: str, cmp: Comparison) -> list[Row]:
    errors = [abs(e) for e in cmp.sample_errors_ms]
    received = sorted(m for m in cmp.measured if m is not None)
    return [
        Row(section, cmp.tool, "median RTT", cmp.measured_median(), cmp.true_median(), "ms"),
        Row(
            section,
            cmp.tool,
            "mean |per-attempt error|",
            statistics.fmean(errors) if errors else None,
            0.0,
            "ms",
        ),
        Row(section, cmp.tool, "p95 RTT", truth.percentile(received, 95), cmp.true_p95(), "ms"),
        Row(section, cmp.tool, "lost", cmp.lost_measured, cmp.lost_true, f"of {len(cmp.true)}"),
    ]


def measure_rtt_and_loss(lab: Lab, count: int, group: str = "") -> list[Row]:
    rows = _measure_rtt_and_loss(lab, count)
    for row in rows:
        row.group = group
    return rows


def _measure_rtt_and_loss(lab: Lab, count: int) -> list[Row]:
    lab.set_profile(LOSSY_150)
    host = lab.region().address
    rows: list[Row] = []

    def echoes(since: int, until: int) -> list[truth.Exchange]:
        return truth.icmp_echoes(
            lab.packets(since), host, since_ns=since, until_ns=until, timeout_s=TIMEOUT_S
        )

    fping = anchors.run_fping(lab, host, count, int(INTERVAL_S * 1000), int(TIMEOUT_S * 1000))
    rows += _rtt_rows(
        "icmp", compare("fping -C", fping.rtts_ms, echoes(fping.since_ns, fping.until_ns), TIMEOUT_S)
    )
    ping = anchors.run_ping(lab, host, count, INTERVAL_S, TIMEOUT_S)
    ping_true = echoes(ping.since_ns, ping.until_ns)
    rows += _rtt_rows("icmp", compare("ping", ping.rtts_ms, ping_true, TIMEOUT_S))
    rows.append(
        Row(
            "icmp",
            "ping",
            "mean RTT (summary line)",
            ping.figures.get("avg_ms"),
            statistics.fmean(truth.rtts(ping_true)),
            "ms",
        )
    )
    for backend, suffix in BACKENDS:
        run = anchors.run_linkvet_probe(
            lab,
            host,
            "--method",
            "icmp",
            "--count",
            str(count),
            "--interval",
            str(INTERVAL_S),
            "--timeout",
            str(TIMEOUT_S),
            backend=backend,
        )
        assert run.result["backend"] == backend, run.result
        linkvet_true = echoes(run.since_ns, run.until_ns)
        tool = f"linkvet icmp{suffix}"
        for row in _rtt_rows("icmp", compare(tool, run.rtts_ms, linkvet_true, TIMEOUT_S)):
            row.anchor = "fping -C"
            rows.append(row)
        rows.append(
            Row(
                "icmp",
                tool,
                "mean RTT",
                run.result["rtt_mean_ms"],
                statistics.fmean(truth.rtts(linkvet_true)),
                "ms",
                anchor=None,
            )
        )
    for backend, suffix in BACKENDS:
        run = anchors.run_linkvet_probe(
            lab,
            host,
            "--method",
            "tcp",
            "--port",
            str(TCP_PORT),
            "--count",
            str(count),
            "--interval",
            str(INTERVAL_S),
            "--timeout",
            str(TIMEOUT_S),
            backend=backend,
        )
        assert run.result["backend"] == backend, run.result
        handshakes = truth.tcp_handshakes(
            lab.packets(run.since_ns),
            host,
            TCP_PORT,
            since_ns=run.since_ns,
            until_ns=run.until_ns,
            timeout_s=TIMEOUT_S,
        )
        for row in _rtt_rows("tcp", compare(f"linkvet tcp{suffix}", run.rtts_ms, handshakes, TIMEOUT_S)):
            row.anchor = "fping -C"
            rows.append(row)
    return rows


def measure_http(lab: Lab, count: int) -> list[Row]:
    lab.set_profile(CLEAN_150)
    region = lab.region()
    rows: list[Row] = []
    curl = anchors.run_curl(lab, region.http_url, count)
    exchanges = truth.http_exchanges(
        lab.packets(curl.since_ns), region.address, HTTP_PORT, since_ns=curl.since_ns, until_ns=curl.until_ns
    )
    transfers = curl.figures["transfers"]
    connect_err = [
        abs(t["connect"] * 1000 - e.connect_ms)
        for t, e in zip(transfers, exchanges, strict=True)
        if e.connect_ms is not None
    ]
    ttfb_err = [
        abs((t["starttransfer"] - t["pretransfer"]) * 1000 - e.request_to_first_byte_ms)
        for t, e in zip(transfers, exchanges, strict=True)
        if e.request_to_first_byte_ms is not None
    ]
    rows.append(
        Row(
            "http",
            "curl -w",
            "median connect",
            statistics.median(t["connect"] * 1000 for t in transfers),
            truth.median([e.connect_ms for e in exchanges if e.connect_ms]),
            "ms",
        )
    )
    rows.append(
        Row(
            "http",
            "curl -w",
            "median TTFB",
            statistics.median((t["starttransfer"] - t["pretransfer"]) * 1000 for t in transfers),
            truth.median([e.request_to_first_byte_ms for e in exchanges if e.request_to_first_byte_ms]),
            "ms",
        )
    )
    rows.append(Row("http", "curl -w", "mean |connect error|", statistics.fmean(connect_err), 0.0, "ms"))
    rows.append(
        Row("http", "curl -w", "per-attempt |TTFB error|, mean", statistics.fmean(ttfb_err), 0.0, "ms")
    )
    # linkvet at its default 1 s interval (attempts one after another), then at 0.3 s, where an attempt
    # (3 RTTs) overlaps the next one's start.
    for label, interval in (("linkvet http", "1"), ("linkvet http -i 0.3", "0.3")):
        run = anchors.run_linkvet_probe(
            lab, region.http_url, "--method", "http", "--count", str(count), "--interval", interval
        )
        exchanges = truth.http_exchanges(
            lab.packets(run.since_ns), region.address, HTTP_PORT, since_ns=run.since_ns, until_ns=run.until_ns
        )
        rows.append(
            Row(
                "http",
                label,
                "median connect",
                run.result["connect_ms"],
                truth.median([e.connect_ms for e in exchanges if e.connect_ms]),
                "ms",
                anchor="curl -w",
            )
        )
        rows.append(
            Row(
                "http",
                label,
                "median TTFB",
                run.result["ttfb_ms"],
                truth.median([e.request_to_first_byte_ms for e in exchanges if e.request_to_first_byte_ms]),
                "ms",
                anchor="curl -w",
            )
        )
    # Each attempt against the truth of its own connection (the CLI prints only medians).
    since = time.monotonic_ns()
    home = lab.workdir / "linkvet-home"
    home.mkdir(parents=True, exist_ok=True)
    done = lab.office_run(
        [sys.executable, "-m", "tests.lab.http_attempts", region.http_url, str(count), "0.5"],
        env=lab.linkvet_env(home),
        cwd=home,
        timeout=count * 3 + 30,
    )
    attempts = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    exchanges = truth.http_exchanges(
        lab.packets(since), region.address, HTTP_PORT, since_ns=since, until_ns=time.monotonic_ns()
    )
    paired = [
        (a, e)
        for a, e in zip(attempts, exchanges, strict=True)
        if a["ttfb_ms"] is not None and e.request_to_first_byte_ms is not None
    ]
    sources = sorted({str(a["ttfb_source"]) for a, _ in paired})
    rows.append(
        Row(
            "http",
            f"linkvet http ({', '.join(sources)} timestamps)",
            "per-attempt |TTFB error|, mean",
            statistics.fmean(abs(a["ttfb_ms"] - e.request_to_first_byte_ms) for a, e in paired),
            0.0,
            "ms",
            anchor="curl -w",
        )
    )
    rows.append(
        Row(
            "http",
            f"linkvet http ({', '.join(sources)} timestamps)",
            "per-attempt |TTFB error|, max",
            max(abs(a["ttfb_ms"] - e.request_to_first_byte_ms) for a, e in paired),
            0.0,
            "ms",
        )
    )
    return rows


def measure_throughput(lab: Lab, seconds: float) -> list[Row]:
    lab.set_profile(SHAPED_150)
    region = lab.region()
    rows: list[Row] = []

    def capacity(since: int, port: int) -> float:
        delivery = truth.tcp_delivery(
            lab.packets(since), region.address, direction=DOWN, port=port, min_payload=1000, since_ns=since
        )
        return delivery.capacity_mbps(SHAPED_MBPS)

    def delivered(since: int, port: int, skip_s: float, span_s: float) -> float:
        """What the link delivered in a tool's own window: `span_s` from `skip_s` after the first data
        segment (TCP's sawtooth is then the same for the tool and the truth: only the measuring differs)."""
        log = lab.packets(since)
        first = truth.tcp_delivery(
            log, region.address, direction=DOWN, port=port, min_payload=1000, since_ns=since
        )
        assert first.first_ns is not None
        start = first.first_ns + int(skip_s * 1e9)
        window = truth.tcp_delivery(
            log,
            region.address,
            direction=DOWN,
            port=port,
            min_payload=1000,
            since_ns=start,
            until_ns=start + int(span_s * 1e9),
        )
        return window.new_payload_bytes * 8 / span_s / 1e6

    def read_in_order(since: int, port: int, skip_s: float, span_s: float) -> float:
        """What the receiver could read in order in the tool's window (as iperf3 counts): more than the
        wire's count by what TCP held back behind a loss when the window began and released within it."""
        flow = truth.in_order(lab.packets(since), region.address, direction=DOWN, port=port, since_ns=since)
        start = flow.first_ns + int(skip_s * 1e9)
        return flow.rate_mbps(start, start + int(span_s * 1e9))

    in_window = f"iperf3 -R -t {seconds:g} -O {OMIT_S}"
    for omit in (0, OMIT_S):
        iperf = anchors.run_iperf3(lab, region.address, seconds, reverse=True, omit_s=omit)
        label = f"iperf3 -R -t {seconds:g}" + (f" -O {omit}" if omit else "")
        rows.append(
            Row(
                "throughput",
                label,
                "download",
                iperf.figures["mbps"],
                capacity(iperf.since_ns, IPERF3_PORT),
                "Mbit/s",
            )
        )
        if omit:
            rows.append(
                Row(
                    "throughput",
                    label,
                    "download vs delivered in its window",
                    iperf.figures["mbps"],
                    delivered(iperf.since_ns, IPERF3_PORT, omit, iperf.figures["seconds"]),
                    "Mbit/s",
                )
            )
            rows.append(
                Row(
                    "throughput",
                    label,
                    "download vs read in order in its window",
                    iperf.figures["mbps"],
                    read_in_order(iperf.since_ns, IPERF3_PORT, omit, iperf.figures["seconds"]),
                    "Mbit/s",
                )
            )
    curl = anchors.run_curl(lab, region.large_url, 1, max_seconds=seconds)
    speed = curl.figures["transfers"][0]["speed"] * 8 / 1e6
    rows.append(
        Row(
            "throughput",
            f"curl --max-time {seconds:g}",
            "download",
            speed,
            capacity(curl.since_ns, HTTP_PORT),
            "Mbit/s",
        )
    )
    run = anchors.run_linkvet_probe(
        lab,
        region.large_url,
        "--method",
        "download",
        "--max-seconds",
        f"{seconds:g}",
        "--max-bytes",
        str(10**9),
    )
    cap = capacity(run.since_ns, HTTP_PORT)
    rows.append(
        Row(
            "throughput",
            "linkvet download",
            "throughput_mbps",
            run.result["throughput_mbps"],
            cap,
            "Mbit/s",
            anchor=f"iperf3 -R -t {seconds:g}",  # both include slow start
        )
    )
    rows.append(
        Row(
            "throughput",
            "linkvet download",
            "steady_mbps",
            run.result["steady_mbps"],
            cap,
            "Mbit/s",
            anchor=f"iperf3 -R -t {seconds:g} -O {OMIT_S}",  # both leave the warm-up out
        )
    )
    if run.result.get("steady_from_s") is not None:
        span = run.result["steady_to_s"] - run.result["steady_from_s"]
        rows.append(
            Row(
                "throughput",
                "linkvet download",
                "steady_mbps vs delivered in its window",
                run.result["steady_mbps"],
                delivered(run.since_ns, HTTP_PORT, run.result["steady_from_s"], span),
                "Mbit/s",
                anchor=in_window,
            )
        )
    run = anchors.run_linkvet_probe(
        lab, region.address, "--method", "iperf3", "--iperf3-seconds", f"{seconds:g}"
    )
    rows.append(
        Row(
            "throughput",
            "linkvet iperf3",
            "download_mbps",
            run.result["download_mbps"],
            capacity(run.since_ns, IPERF3_PORT),
            "Mbit/s",
            anchor=f"iperf3 -R -t {seconds:g} -O {OMIT_S}",
        )
    )
    rows.append(
        Row(
            "throughput",
            "linkvet iperf3",
            "download_mbps vs delivered in its window",
            run.result["download_mbps"],
            delivered(run.since_ns, IPERF3_PORT, run.result["omitted_s"], run.result["seconds"]),
            "Mbit/s",
            anchor=in_window,
        )
    )
    rows.append(
        Row(
            "throughput",
            "linkvet iperf3",
            "download_mbps vs read in order in its window",
            run.result["download_mbps"],
            read_in_order(run.since_ns, IPERF3_PORT, run.result["omitted_s"], run.result["seconds"]),
            "Mbit/s",
            anchor=in_window,
        )
    )
    return rows


def _ratio(row: Row, rows: list[Row]) -> str:
    if row.anchor is None:
        return ""
    anchor = next(
        (
            r
            for r in rows
            if r.tool == row.anchor and r.group == row.group and _kind(r.figure) == _kind(row.figure)
        ),
        None,
    )
    if anchor is None or anchor.error is None or row.error is None:
        return ""
    if anchor.error == 0:
        return "1.00 (both exact)" if row.error == 0 else "inf (anchor exact)"
    return f"{row.error / anchor.error:.2f}"


def _kind(figure: str) -> str:
    # Most specific first: "median TTFB" is compared with the anchor's median TTFB, not its median RTT.
    if "TTFB" in figure and "per-attempt" in figure:
        return "TTFB per-attempt"
    for word in ("in order", "window", "connect", "TTFB", "per-attempt", "p95", "lost", "median"):
        if word in figure:
            return word
    return "throughput"


def _fmt(value: float | None, unit: str) -> str:
    if value is None:
        return "-"
    return f"{value:.0f}" if unit.startswith("of") else f"{value:.3f}" if unit == "ms" else f"{value:.2f}"


def render(rows: list[Row]) -> str:
    header = ("section", "tool", "figure", "measured", "truth", "unit", "|error|", "ratio")
    lines = [header] + [
        (
            r.section,
            r.tool,
            r.figure,
            _fmt(r.value, r.unit),
            _fmt(r.true, r.unit),
            r.unit,
            _fmt(r.error, r.unit),
            _ratio(r, rows),
        )
        for r in rows
    ]
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(line) + " |" for line in lines[1:]]
    return "\n".join(out)


# linkvet on each probe backend that runs here: the linux one (kernel stamps) and the portable one
# (user-space timing), so the price of the portable backend is measured beside it.
BACKENDS = (("linux", ""), ("portable", " (portable)"))
RTT_TOOLS = (
    "fping -C",
    "linkvet icmp",
    "linkvet icmp (portable)",
    "linkvet tcp",
    "linkvet tcp (portable)",
)


def _spread(values: list[float]) -> str:
    if not values:
        return "-"
    low, high = min(values), max(values)
    return f"{low:.3f}" if f"{low:.3f}" == f"{high:.3f}" else f"{low:.3f}–{high:.3f}"


def render_spread(groups: dict[str, list[list[Row]]]) -> str:
    """Per mode and tool, over the runs: mean per-attempt error, p95 error, the ratio to fping's mean error."""
    header = (
        "mode",
        "tool",
        "runs",
        "mean |per-attempt error| ms",
        "|p95 error| ms",
        "mean error ÷ fping's",
        "lost (measured/true)",
    )
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for mode, runs in groups.items():
        for tool in RTT_TOOLS:
            mean_err, p95_err, ratios, lost = [], [], [], []
            for rows in runs:
                mine = {r.figure: r for r in rows if r.tool == tool}
                fping = {r.figure: r for r in rows if r.tool == "fping -C"}
                mean = mine["mean |per-attempt error|"].value
                if mean is not None:
                    mean_err.append(mean)
                    anchor = fping["mean |per-attempt error|"].value
                    if tool != "fping -C" and anchor:
                        ratios.append(mean / anchor)
                p95 = mine["p95 RTT"].error
                if p95 is not None:
                    p95_err.append(p95)
                lost.append(f"{mine['lost'].value:.0f}/{mine['lost'].true:.0f}")
            out.append(
                "| "
                + " | ".join(
                    (
                        mode,
                        tool,
                        str(len(runs)),
                        _spread(mean_err),
                        _spread(p95_err),
                        _spread(ratios) if ratios else "",
                        ", ".join(lost),
                    )
                )
                + " |"
            )
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--count", type=int, default=200, help="echoes / handshakes per tool (default 200)")
    parser.add_argument("--http-count", type=int, default=20, help="HTTP requests per tool (default 20)")
    parser.add_argument(
        "--seconds", type=float, default=10.0, help="seconds per throughput test (default 10)"
    )
    parser.add_argument("--runs", type=int, default=3, help="RTT and loss runs per mode (default 3)")
    parser.add_argument("--modes", default="quiet,busy", help="comma-separated: quiet, busy (default both)")
    parser.add_argument("--busy", type=int, default=2, help="CPU-bound processes in busy mode (default 2)")
    parser.add_argument("--rtt-only", action="store_true", help="leave out the HTTP and throughput parts")
    args = parser.parse_args(argv)
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    unknown = set(modes) - {"quiet", "busy"}
    if unknown:
        parser.error(f"unknown mode(s): {', '.join(sorted(unknown))}")
    reason = lab_unavailable_reason()
    if reason:
        print(f"skipped: {reason}", file=sys.stderr)
        return 0
    load_before = os.getloadavg()[0]
    groups: dict[str, list[list[Row]]] = {mode: [] for mode in modes}
    burned: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="linkvet-lab-") as workdir, Lab(Path(workdir)) as lab:
        for mode in modes:
            for run in range(args.runs):
                if mode == "busy":
                    with BusyCpus(args.busy) as busy:
                        groups[mode].append(measure_rtt_and_loss(lab, args.count, f"{mode} {run}"))
                        burned[mode] = burned.get(mode, 0.0) + busy.cpu_seconds()
                else:
                    groups[mode].append(measure_rtt_and_loss(lab, args.count, f"{mode} {run}"))
        rows = list(groups[modes[0]][0]) if modes and args.runs else []
        if not args.rtt_only:
            rows += measure_http(lab, args.http_count)
            rows += measure_throughput(lab, args.seconds)
        stats = lab.stats()
        lateness_ms = stats["late_max_ns"] / 1e6
    print(
        f"Link: {LOSSY_150.segments[0].rtt_ms:g} ms RTT, 2 ms jitter/direction, 2% random + 3% bursty loss"
        f"/direction (RTT, loss); {SHAPED_MBPS:g} Mbit/s (throughput). Truth: the lab's packet log. "
        f"Throughput truth = what the shaped link carries as TCP payload."
    )
    print(f"The first {modes[0] if modes else ''} run:")
    print(render(rows))
    print()
    print(f"RTT and loss, {args.runs} run(s) per mode, {args.count} attempts per tool per run:")
    print(render_spread(groups))
    if "busy" in burned:
        print(f"(busy: {args.busy} CPU-bound processes, {burned['busy']:.0f} CPU-s burned beside the tools)")
    print(
        f"({os.cpu_count()} CPUs; load average {load_before:.2f} at the start, {os.getloadavg()[0]:.2f} at the end)"
    )
    print(f"(emulator: worst departure lateness in this run {lateness_ms:.2f} ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
