"""A made evaluation for the report's tests: `q1` in a real SQLite store, the example 70B job, two offices
(shanghai on China Telecom, beijing on China Unicom), three candidates of the bundled catalogs at loopback test
addresses, and `days` days of rounds written the one way the store takes them (`Store.write_round`): ICMP every
`every_min` minutes from each office (the evening peak slower and lossier, Beijing's more), downloads and
latency-under-load tests to the first candidate every hour, and traces from both offices (Shanghai's over CN2
as claimed, Beijing's over 163: the claim contradicted from there)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from catalogs.evaluation.model import Office
from catalogs.needs import EXAMPLE_NEEDS
from catalogs.user import load_with_user
from desktop.usecases.evaluation import add_candidate, new_evaluation
from probes.errors import ErrorKind
from probes.loaded_latency import figures
from probes.results import ProbeResult, Sample
from probes.store import Store
from probes.target import Method, Target
from tests.analysis.synthetic import trace_result
from tests.rounds import save_round

US = 1_000_000
MINUTE_US = 60 * US
START_US = 1_767_225_600 * US  # 2026-01-01 00:00 UTC (08:00 in Shanghai)
NAME = "q1"
CANDIDATES = (
    ("lambda", "asia-northeast-1", "gpu_8x_h100_sxm5", "127.0.2.1", "cn2-gia"),
    ("gcp", "asia-northeast1", "h100-x8", "127.0.2.2", None),
    ("aws", "ap-northeast-1", "p5.48xlarge", "127.0.2.3", None),
)
OFFICES = (Office("shanghai", "ct"), Office("beijing", "cu"))
DOWNLOAD_URL = "http://127.0.2.1/100mb.bin"
CN2_PATH = ("192.168.1.1", "59.43.180.1", "59.43.246.9")
PATH_163 = ("192.168.1.1", "202.97.12.1", "202.97.50.9")


def make_evaluation(db: Path, *, measured: bool = True, days: int = 3, every_min: int = 10) -> Path:
    """The store at `db` with evaluation `q1` (and its rounds when `measured`)."""
    new_evaluation(db, NAME, EXAMPLE_NEEDS, offices=OFFICES)
    catalogs = load_with_user()
    for provider, region, offering, address, line_type in CANDIDATES:
        endpoints = [address, DOWNLOAD_URL] if provider == "lambda" else [address]
        add_candidate(
            db,
            NAME,
            catalogs,
            provider=provider,
            region=region,
            offering=offering,
            endpoints=endpoints,
            line_type=line_type,
        )
    if measured:
        with Store(db) as store:
            fill(store, days, every_min)
    return db


def _targets() -> list[Target]:
    return [
        Target(
            Method.ICMP,
            host=address,
            name=f"{provider}-{region}",
            provider=provider,
            region=region,
            line_type=lt,
        )
        for provider, region, _offering, address, lt in CANDIDATES
    ]


def fill(store: Store, days: int, every_min: int, seed: int = 7) -> None:
    rng = np.random.default_rng(seed)
    targets = _targets()
    lambda_download = Target(
        Method.DOWNLOAD,
        url=DOWNLOAD_URL,
        name="lambda-file",
        provider="lambda",
        region="asia-northeast-1",
        line_type="cn2-gia",
    )
    lambda_load = Target(
        Method.RESPONSIVENESS,
        url=DOWNLOAD_URL,
        name="lambda-file",
        provider="lambda",
        region="asia-northeast-1",
        line_type="cn2-gia",
    )
    for step in range(days * 24 * 60 // every_min):
        begin = START_US + step * every_min * MINUTE_US
        hour_utc = (begin // (3600 * US)) % 24
        peak = 12 <= hour_utc < 15  # 20:00-23:00 in Shanghai
        for office in OFFICES:
            extra = (100.0 if office.name == "beijing" else 60.0) if peak else 0.0
            results = []
            for i, target in enumerate(targets):
                rtt = 60.0 + 25 * i + extra + rng.normal(0, 3, 10)
                lost = rng.random(10) < (0.03 if peak else 0.002)
                samples = tuple(
                    Sample(j, begin + j * US, None, ErrorKind.TIMEOUT)
                    if lost[j]
                    else Sample(j, begin + j * US, float(rtt[j]))
                    for j in range(10)
                )
                results.append(ProbeResult(target, begin, begin + 10 * US, samples))
            if begin % (3600 * US) == 0:
                rate = (30.0 if office.name == "beijing" else 45.0) if peak else 90.0
                results.append(
                    ProbeResult(
                        lambda_download,
                        begin,
                        begin + 9 * US,
                        metrics={"throughput_mbps": rate, "bytes": int(rate * 1e6 / 8 * 9), "seconds": 9.0},
                    )
                )
                results.append(
                    _load_test(
                        lambda_load, begin + 20 * US, 60.0 + extra, 60.0 + extra + (200 if peak else 30)
                    )
                )
            save_round(
                store,
                results,
                started_us=begin,
                finished_us=begin + 50 * US,
                source="schedule",
                plan=f"eval-{NAME}",
                vantage=office.name,
            )
    for n, office in enumerate(OFFICES):
        path = CN2_PATH if office.name == "shanghai" else PATH_163
        for k in range(2):
            result = trace_result(targets[0], START_US + (k * 24 + 13) * 3600 * US + n * US, path)
            save_round(
                store,
                [result],
                started_us=result.started_at_us,
                finished_us=result.finished_at_us,
                source="schedule",
                plan=f"eval-{NAME}",
                vantage=office.name,
            )


def _load_test(target: Target, started_us: int, idle_ms: float, loaded_ms: float) -> ProbeResult:
    samples = [Sample(i, started_us + i * 100_000, idle_ms, None, "idle") for i in range(20)]
    samples += [
        Sample(20 + i, started_us + (20 + i) * 100_000, loaded_ms + (i % 3), None, "download")
        for i in range(40)
    ]
    metrics = dict(figures(samples)) | {"download_mbps": 40.0, "throughput_mbps": 40.0}
    return ProbeResult(target, started_us, started_us + 6 * US, samples=tuple(samples), metrics=metrics)
