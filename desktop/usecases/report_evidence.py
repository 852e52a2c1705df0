"""The evidence bundle behind a report (`linkvet report --eval NAME --evidence FILE.zip`): what a team shows a
vendor in a dispute. One zip file:

    evaluation.toml         the evaluation as it stood (candidates, offices, peak windows, the job)
    samples.csv             every attempt: round, UTC time, office and its carrier, target, address, method,
                            provider, region, claimed line type, sequence, RTT (empty when lost), error
    results.csv             one row per measured target and round (downloads, load tests, their figures)
    traces.jsonl            every trace: round, UTC time, office, carrier, target, the hops that answered per
                            TTL, the route class and its evidence
    acceptance.json         the acceptance checks imported for the candidates (claimed, measured, verdict)
    questionnaire.json      the vendors' answers in the catalogs (fact, value, source, as of)
    manifest.json           the format and its version, the command that made it, when, from which store, and
                            each file's size and SHA-256

Samples are read per series, so a month of minute rounds goes through in slices rather than at once. No Qt.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import tempfile
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from desktop.i18n import _
from desktop.usecases.errors import WriteError
from probes.store_location import StoreLocation, exists, location_or_default

if TYPE_CHECKING:
    from catalogs.evaluation.model import Evaluation
    from catalogs.loader import CatalogSet
    from probes.store import Store

BUNDLE_FORMAT = "linkvet-evidence"
BUNDLE_VERSION = 1
SAMPLE_COLUMNS = (
    "round_id",
    "time_utc",
    "office",
    "carrier",
    "target",
    "address",
    "method",
    "provider",
    "region",
    "line_type",
    "seq",
    "rtt_ms",
    "error",
)
RESULT_COLUMNS = (
    "round_id",
    "time_utc",
    "office",
    "carrier",
    "target",
    "address",
    "method",
    "provider",
    "region",
    "line_type",
    "sent",
    "received",
    "rtt_median_ms",
    "throughput_mbps",
    "seconds",
)


@dataclass(frozen=True)
class EvidenceWritten:
    path: Path
    files: dict[str, str]  # name → SHA-256
    samples: int
    traces: int


def write_evidence(
    db: StoreLocation | None,
    name: str,
    out: Path,
    catalogs: CatalogSet,
    *,
    since_us: int | None = None,
    until_us: int | None = None,
    command: str = "",
    made_at: datetime | None = None,
) -> EvidenceWritten:
    """Write the evaluation's evidence bundle to `out` (first to a temporary file beside it, then renamed);
    `WriteError` when it cannot be written."""
    from catalogs.evaluation.model import to_toml
    from desktop.usecases.evaluation import load_evaluation

    evaluation = load_evaluation(db, name)
    location = location_or_default(db)
    made_at = made_at or datetime.now(UTC)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        handle, partial = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".zip", dir=out.parent)
        os.close(handle)
    except OSError as exc:
        raise WriteError(
            _("{file}: cannot write: {reason}").format(file=out, reason=exc.strerror or exc)
        ) from exc
    sums: dict[str, tuple[int, str]] = {}
    counts = {"samples": 0, "traces": 0}
    try:
        with zipfile.ZipFile(partial, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=6) as bundle:
            _put(bundle, sums, "evaluation.toml", to_toml(evaluation).encode())
            if exists(location):
                from probes.store import Store

                with Store(location, readonly=True) as store:
                    counts = _measurements(bundle, sums, store, evaluation, since_us, until_us)
            else:
                _put(bundle, sums, "samples.csv", _csv_header(SAMPLE_COLUMNS))
                _put(bundle, sums, "results.csv", _csv_header(RESULT_COLUMNS))
                _put(bundle, sums, "traces.jsonl", b"")
            _put(bundle, sums, "acceptance.json", _json(_acceptance(evaluation, catalogs)))
            _put(bundle, sums, "questionnaire.json", _json(_answers(evaluation, catalogs)))
            manifest = {
                "format": BUNDLE_FORMAT,
                "format_version": BUNDLE_VERSION,
                "evaluation": evaluation.name,
                "command": command,
                "made_at": made_at.astimezone(UTC).isoformat(timespec="seconds"),
                "store": str(location),
                "since_utc": _iso(since_us),
                "until_utc": _iso(until_us),
                "samples": counts["samples"],
                "traces": counts["traces"],
                "files": [{"name": n, "bytes": size, "sha256": digest} for n, (size, digest) in sums.items()],
            }
            bundle.writestr("manifest.json", _json(manifest))
        os.replace(partial, out)
    except OSError as exc:
        raise WriteError(
            _("{file}: cannot write: {reason}").format(file=out, reason=exc.strerror or exc)
        ) from exc
    finally:
        Path(partial).unlink(missing_ok=True)
    return EvidenceWritten(out, {n: d for n, (_s, d) in sums.items()}, counts["samples"], counts["traces"])


def _put(bundle: zipfile.ZipFile, sums: dict[str, tuple[int, str]], name: str, data: bytes) -> None:
    bundle.writestr(name, data)
    sums[name] = (len(data), hashlib.sha256(data).hexdigest())


class _Hashing(io.RawIOBase):
    """A writable stream into a zip member that keeps the SHA-256 and size of what went through."""

    def __init__(self, target: Any) -> None:
        self.target = target
        self.digest = hashlib.sha256()
        self.size = 0

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        chunk = bytes(data)
        self.digest.update(chunk)
        self.size += len(chunk)
        self.target.write(chunk)
        return len(chunk)


def _json(value: Any) -> bytes:
    return (json.dumps(value, indent=1, ensure_ascii=False, default=str) + "\n").encode()


def _csv_header(columns: tuple[str, ...]) -> bytes:
    return (",".join(columns) + "\r\n").encode()


def _iso(us: int | None) -> str | None:
    if us is None:
        return None
    return datetime.fromtimestamp(us / 1e6, tz=UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


def _measurements(
    bundle: zipfile.ZipFile,
    sums: dict[str, tuple[int, str]],
    store: Store,
    evaluation: Evaluation,
    since_us: int | None,
    until_us: int | None,
) -> dict[str, int]:
    carriers = {o.name: o.carrier or "" for o in evaluation.offices}
    regions = sorted({(c.provider, c.region) for c in evaluation.candidates})
    series = [s for provider, region in regions for s in store.series(provider=provider, region=region)]
    samples = 0
    info = zipfile.ZipInfo("samples.csv", date_time=datetime.now(UTC).timetuple()[:6])
    info.compress_type = zipfile.ZIP_DEFLATED
    with bundle.open(info, "w", force_zip64=True) as member:
        stream = _Hashing(member)
        text = io.TextIOWrapper(stream, encoding="utf-8", newline="")  # type: ignore[type-var]
        writer = csv.writer(text)
        writer.writerow(SAMPLE_COLUMNS)
        results_rows: list[list[Any]] = []
        for s in series:
            results = store.results_frame([s.id], since_us, until_us)
            rounds = dict(zip(results["result_id"].tolist(), results["round_id"].tolist(), strict=True))
            base = [
                s.vantage,
                carriers.get(s.vantage, ""),
                s.name,
                s.address,
                s.method,
                s.provider,
                s.region,
                s.line_type or "",
            ]
            for row in results.itertuples(index=False):
                results_rows.append(
                    [
                        row.round_id,
                        _iso(int(row.started_us)),
                        *base,
                        _plain(getattr(row, "sent", None)),
                        _plain(getattr(row, "received", None)),
                        _plain(getattr(row, "rtt_median_ms", None)),
                        _plain(getattr(row, "throughput_mbps", None)),
                        _plain(getattr(row, "seconds", None)),
                    ]
                )
            frame = store.samples_frame([s.id], since_us, until_us)
            for ts, seq, rtt, error, result in zip(
                frame["ts_us"].tolist(),
                frame["seq"].tolist(),
                frame["rtt_ms"].tolist(),
                frame["error"].tolist(),
                frame["result_id"].tolist(),
                strict=True,
            ):
                writer.writerow(
                    [
                        rounds.get(result, ""),
                        _iso(int(ts)),
                        *base[:2],
                        *base[2:],
                        seq,
                        "" if rtt != rtt else rtt,
                        error if isinstance(error, str) else "",
                    ]
                )
                samples += 1
        text.flush()
        text.detach()
    sums["samples.csv"] = (stream.size, stream.digest.hexdigest())
    out = io.StringIO(newline="")
    results_writer = csv.writer(out)
    results_writer.writerow(RESULT_COLUMNS)
    results_writer.writerows(results_rows)
    _put(bundle, sums, "results.csv", out.getvalue().encode())
    lines = []
    for provider, region in regions:
        for trace in store.traces(provider=provider, region=region, since_us=since_us, until_us=until_us):
            lines.append(
                json.dumps(
                    {
                        "result_id": trace.result_id,
                        "time_utc": _iso(trace.started_us),
                        "office": trace.vantage,
                        "carrier": carriers.get(trace.vantage, ""),
                        "target": trace.name,
                        "address": trace.address,
                        "provider": trace.provider,
                        "region": trace.region,
                        "line_type": trace.line_type,
                        "protocol": trace.protocol,
                        "reached": trace.reached,
                        "route_class": trace.route_class,
                        "route_evidence": trace.route_evidence,
                        "hops": [{"ttl": ttl, "addresses": list(addresses)} for ttl, addresses in trace.hops],
                    },
                    ensure_ascii=False,
                )
            )
    _put(bundle, sums, "traces.jsonl", ("\n".join(lines) + ("\n" if lines else "")).encode())
    return {"samples": samples, "traces": len(lines)}


def _plain(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, float) and value != value:
        return ""
    return value


def _candidate_checks(evaluation: Evaluation, catalogs: CatalogSet) -> Iterator[tuple[str, dict[str, Any]]]:
    from catalogs.evaluation.candidates import offerings_of

    for candidate in evaluation.candidates:
        catalog = catalogs.provider(candidate.provider)
        if catalog is None:
            continue
        offerings = {o.id for o in offerings_of(candidate, catalog)}
        for check in catalog.checks:
            if check.get("offering") in offerings or check.get("region") == candidate.region:
                yield candidate.label, dict(check)


def _acceptance(evaluation: Evaluation, catalogs: CatalogSet) -> list[dict[str, Any]]:
    return [{"candidate": label, **check} for label, check in _candidate_checks(evaluation, catalogs)]


def _answers(evaluation: Evaluation, catalogs: CatalogSet) -> list[dict[str, Any]]:
    from desktop.usecases.catalog_facts import fact_lines
    from desktop.usecases.questionnaire_answers import is_questionnaire_source

    found = []
    for provider in sorted({c.provider for c in evaluation.candidates}):
        catalog = catalogs.provider(provider)
        if catalog is None:
            continue
        for line in fact_lines(catalog):
            if is_questionnaire_source(line.provenance.source):
                found.append({"provider": provider, **line.as_dict()})
    return found
