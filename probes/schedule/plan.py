"""Plan files: what `linkvet schedule` measures, how often, and when the peak hours are.

    version = 1
    name = "shanghai-office"            # optional; defaults to the file name
    vantage = "shanghai-office"         # optional; where the probes run from (recorded with every round)

    [schedule]
    every = "5m"                        # cadence outside peak windows
    peak_every = "1m"                   # denser cadence inside them
    peak_windows = ["20:00-23:00 Asia/Shanghai"]

    [defaults]                          # probe options for every method ...
    count = 10
    interval = 1.0                      # seconds between attempts to one target
    timeout = 2.0                       # seconds to wait for one reply
    [defaults.download]                 # ... and per method
    count = 1
    max_bytes = 20_000_000
    max_seconds = 10
    [defaults.responsiveness]           # latency under load: idle probes, then a capped download
    count = 1                           # tests per round
    idle_seconds = 5                    # probes before the load
    probe_interval = 0.1                # one latency probe every 0.1 s, idle and under load
    connections = 4                     # the default for responsiveness
    upload_url = "https://speed.example.net/upload"   # optional: also load the uplink (HTTP POST)

    [[targets]]
    name = "lambda-us-west"
    host = "speedtest.example.net"
    methods = ["icmp", "tcp"]
    port = 443
    provider = "lambda"
    region = "us-west-1"
    line_type = "standard"
    every = "1h"                        # optional: measure this target at most this often

Errors name the file, the line, the field and what was expected. `probes.schedule.plan_writer` writes this format
(the desktop app's probe list saved as a plan). `[[alerts]]` rules and `[notifiers.NAME]` tables are read by
`probes.alerts.rules` (see there) into `Plan.alerting`; a `[report]` table by `probes.schedule.reporting` into
`Plan.report` (the agent writes an evaluation's report at a weekday and hour).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from probes import limits
from probes.alerts.rules import Alerting, parse_alerting
from probes.errors import PeakWindowError, PlanError, TargetError
from probes.files import inputfile
from probes.files.filemodel import Cadence, FileModel
from probes.files.inputfile import explain, field_name, locate
from probes.i18n import _
from probes.peak import DEFAULT_PEAK_WINDOWS, PeakWindow, in_any
from probes.schedule.reporting import ReportSchedule, parse_report
from probes.target import DEFAULT_CONNECTIONS, URL_METHODS, Method, ProbeOptions, Target

PLAN_VERSION = 1
EXAMPLE_PLAN = Path(__file__).with_name("plans") / "example.toml"  # loopback targets: runs anywhere


def _within(limit: limits.Limit) -> AfterValidator:
    """A pydantic validator holding a field to the same limit as its flag (`probes.limits`)."""
    return AfterValidator(limit.check)


class OptionsModel(FileModel):
    count: Annotated[int, _within(limits.COUNT)] | None = None
    interval: Annotated[float, _within(limits.INTERVAL)] | None = None
    timeout: Annotated[float, _within(limits.TIMEOUT)] | None = None
    payload: Annotated[int, _within(limits.PAYLOAD)] | None = None
    max_redirects: Annotated[int, _within(limits.MAX_REDIRECTS)] | None = None
    verify_tls: bool | None = None
    max_bytes: Annotated[int, _within(limits.DOWNLOAD_BYTES)] | None = None
    max_seconds: Annotated[float, _within(limits.DOWNLOAD_SECONDS)] | None = None
    connections: Annotated[int, _within(limits.CONNECTIONS)] | None = None
    iperf3_seconds: Annotated[float, _within(limits.IPERF3_SECONDS)] | None = None
    iperf3_omit: Annotated[float, _within(limits.IPERF3_OMIT)] | None = None
    max_hops: Annotated[int, _within(limits.MAX_HOPS)] | None = None
    protocol: Literal["icmp", "udp", "tcp"] | None = None
    idle_seconds: Annotated[float, _within(limits.LOAD_IDLE)] | None = None
    probe_interval: Annotated[float, _within(limits.LOAD_PROBE_INTERVAL)] | None = None
    upload_url: str | None = Field(default=None, min_length=1)

    def apply(self, base: ProbeOptions) -> ProbeOptions:
        changes = {
            "count": self.count,
            "interval_s": self.interval,
            "timeout_s": self.timeout,
            "payload_bytes": self.payload,
            "http_max_redirects": self.max_redirects,
            "verify_tls": self.verify_tls,
            "download_max_bytes": self.max_bytes,
            "download_max_seconds": self.max_seconds,
            "download_connections": self.connections,
            "iperf3_seconds": self.iperf3_seconds,
            "iperf3_omit_s": self.iperf3_omit,
            "trace_max_hops": self.max_hops,
            "trace_protocol": self.protocol,
            "load_idle_s": self.idle_seconds,
            "load_probe_interval_s": self.probe_interval,
            "load_upload_url": self.upload_url,
        }
        fields = {k: v for k, v in changes.items() if v is not None}
        values = {name: getattr(base, name) for name in base.__dataclass_fields__}
        values.update(fields)
        return ProbeOptions(**values)


class DefaultsModel(OptionsModel):
    gap_ms: Annotated[float, _within(limits.GAP_MS)] | None = None
    concurrency: Annotated[int, _within(limits.CONCURRENCY)] | None = None
    icmp: OptionsModel | None = None
    tcp: OptionsModel | None = None
    http: OptionsModel | None = None
    download: OptionsModel | None = None
    iperf3: OptionsModel | None = None
    trace: OptionsModel | None = None
    responsiveness: OptionsModel | None = None


class ScheduleModel(FileModel):
    every: Cadence = 300.0
    peak_every: Cadence | None = None
    peak_windows: list[str] | None = None

    @field_validator("peak_every")
    @classmethod
    def _peak_is_denser(cls, value: float | None, info: ValidationInfo) -> float | None:
        every = info.data.get("every")
        if value is not None and every is not None and value > every:
            raise ValueError(
                _(
                    "peak_every ({peak}) is longer than every ({every}): the peak windows are measured "
                    "more often than the rest of the day, not less"
                ).format(peak=limits.format_duration(value), every=limits.format_duration(every))
            )
        return value

    @field_validator("peak_windows")
    @classmethod
    def _windows(cls, value: list[str] | None) -> list[str] | None:
        for text in value or []:
            try:
                PeakWindow.parse(text)
            except PeakWindowError as exc:
                raise ValueError(str(exc)) from None
        return value


class TargetModel(FileModel):
    name: str | None = Field(default=None, min_length=1)
    host: str | None = None
    url: str | None = None
    methods: list[Method] = Field(default_factory=lambda: [Method.ICMP], min_length=1)
    port: Annotated[int, _within(limits.PORT)] | None = None
    provider: str | None = None
    region: str | None = None
    line_type: str | None = None
    every: Cadence | None = None

    @model_validator(mode="after")
    def _has_address(self) -> TargetModel:
        if not self.host and not self.url:
            raise ValueError(_("a target needs `host` (for icmp/tcp/iperf3) or `url` (for http/download)"))
        return self


class PlanModel(FileModel):
    version: int
    name: str | None = None
    vantage: str | None = None
    schedule: ScheduleModel = Field(default_factory=ScheduleModel)
    defaults: DefaultsModel = Field(default_factory=DefaultsModel)
    targets: list[TargetModel] = Field(min_length=1)


@dataclass(frozen=True, slots=True)
class OwnCadence:
    """The cadence a target keeps in a merged plan (an office agent's plan of several evaluations, each with
    its own cadence and peak windows): at most every `every_s` outside its own peak windows, every
    `peak_every_s` inside them, on the merged plan's timetable."""

    every_s: float
    peak_every_s: float
    peak_windows: tuple[PeakWindow, ...]

    def at(self, moment: datetime) -> float:
        return self.peak_every_s if in_any(self.peak_windows, moment) else self.every_s


@dataclass(frozen=True, slots=True)
class PlannedTarget:
    target: Target
    every_s: float | None  # None: in every round
    own: OwnCadence | None = None  # in a merged plan: the cadence of the plan it came from


@dataclass(frozen=True)
class Plan:
    """A validated plan, ready for the scheduler."""

    path: str
    name: str
    vantage: str | None
    every_s: float
    peak_every_s: float
    peak_windows: tuple[PeakWindow, ...]
    targets: tuple[PlannedTarget, ...]
    options: dict[Method, ProbeOptions] = field(default_factory=dict)
    gap_ms: float = 1.0
    concurrency: int = 256
    alerting: Alerting | None = None  # the plan's [[alerts]] and [notifiers.*], when it has any
    report: ReportSchedule | None = None  # the plan's [report]: the agent writes an evaluation's report


def load_plan(path: str | Path) -> Plan:
    """Read and validate a plan file; raises PlanError naming file, line, field and what was expected."""
    path = Path(path)
    text = inputfile.read_text(path, _error(str(path)))
    return parse_plan(text, str(path))


def parse_plan(text: str, path: str = "<plan>") -> Plan:
    raw = inputfile.parse_toml(text, _error(path))
    version = raw.get("version")
    if isinstance(version, int) and not isinstance(version, bool) and version > PLAN_VERSION:
        raise PlanError(
            path,
            _(
                "plan format version {version} is newer than this linkvet understands ({known}); upgrade linkvet"
            ).format(version=version, known=PLAN_VERSION),
            line=locate(text, ("version",)),
            field="version",
        )
    # The alert tables have their own reader (probes.alerts.rules), which needs the plan's targets.
    alerting_raw: dict[str, Any] = {key: raw.pop(key) for key in ("alerts", "notifiers") if key in raw}
    report_raw = raw.pop("report", None)  # probes.schedule.reporting reads it, with the plan's notifiers
    try:
        model = PlanModel.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = tuple(first["loc"])
        raise PlanError(path, explain(first), line=locate(text, loc), field=field_name(loc)) from None
    if model.version != PLAN_VERSION:
        raise PlanError(
            path,
            _("unsupported plan format version {version} (expected {known})").format(
                version=model.version, known=PLAN_VERSION
            ),
            line=locate(text, ("version",)),
            field="version",
        )
    plan = _build(model, text, path)
    if alerting_raw:
        targets = [p.target for p in plan.targets]
        plan = replace(plan, alerting=parse_alerting(alerting_raw, text, path, targets, plan.peak_windows))
    if report_raw is not None:
        if not isinstance(report_raw, dict):
            raise PlanError(
                path, _("report: expected a table ([report])"), line=locate(text, ("report",)), field="report"
            )
        notifiers = plan.alerting.notifiers if plan.alerting is not None else {}
        zone = plan.peak_windows[0].tz if plan.peak_windows else "UTC"
        plan = replace(plan, report=parse_report(report_raw, text, path, notifiers, zone))
    return plan


def _error(path: str) -> inputfile.ErrorFactory:
    return lambda message, line: PlanError(path, message, line=line)


def _build(model: PlanModel, text: str, path: str) -> Plan:
    base = model.defaults.apply(ProbeOptions())
    options = {}
    for method in Method:
        override = getattr(model.defaults, method.value)
        start = base
        if method in DEFAULT_CONNECTIONS and model.defaults.connections is None:
            start = replace(base, download_connections=DEFAULT_CONNECTIONS[method])
        options[method] = override.apply(start) if override is not None else start
    targets: list[PlannedTarget] = []
    seen: dict[str, int] = {}
    named: dict[str, tuple[int, Target]] = {}  # a name → the first entry and target it names
    for index, spec in enumerate(model.targets):
        for method in spec.methods:
            loc: tuple[str | int, ...] = ("targets", index, "url" if method in URL_METHODS else "host")
            try:
                target = Target(
                    method=method,
                    host=None if method in URL_METHODS else (spec.host or _host_of(spec.url)),
                    url=spec.url if method in URL_METHODS else None,
                    port=spec.port,
                    name=_name(spec, method),
                    provider=spec.provider,
                    region=spec.region,
                    line_type=spec.line_type,
                )
            except TargetError as exc:
                raise PlanError(path, f"{exc}", line=locate(text, loc), field=field_name(loc)) from None
            if target.key in seen:
                raise PlanError(
                    path,
                    _("the same {method} target ({key}) is already target #{first}").format(
                        method=method, key=target.key, first=seen[target.key] + 1
                    ),
                    line=locate(text, ("targets", index)),
                    field=f"targets[{index}]",
                )
            seen[target.key] = index
            _one_host_per_name(named, index, target, text, path)
            targets.append(PlannedTarget(target, spec.every))
    windows = (
        tuple(PeakWindow.parse(w) for w in model.schedule.peak_windows)
        if model.schedule.peak_windows is not None
        else DEFAULT_PEAK_WINDOWS
    )
    return Plan(
        path=path,
        name=model.name or Path(path).stem,
        vantage=model.vantage,
        every_s=model.schedule.every,
        peak_every_s=model.schedule.peak_every or model.schedule.every,
        peak_windows=windows,
        targets=tuple(targets),
        options=options,
        gap_ms=model.defaults.gap_ms if model.defaults.gap_ms is not None else 1.0,
        concurrency=model.defaults.concurrency or 256,
    )


def _one_host_per_name(
    named: dict[str, tuple[int, Target]], index: int, target: Target, text: str, path: str
) -> None:
    """Refuse a name that another entry gives to another host (or another URL): `linkvet history NAME`
    would mix their measurements. Entries may share a name for the same endpoint measured two ways."""
    first = named.setdefault(target.name, (index, target))
    other_index, other = first
    if other_index == index:
        return
    urls = target.url is not None and other.url is not None
    if other.host != target.host or (urls and other.url != target.url):
        first_line = locate(text, ("targets", other_index))
        raise PlanError(
            path,
            _(
                "the name {name!r} is already target #{first} (line {first_line}), which measures "
                "{other}, not {this}: one name must mean one host, or `linkvet history` would mix them"
            ).format(
                name=target.name,
                first=other_index + 1,
                first_line=first_line,
                other=other.url or other.host,
                this=target.url or target.host,
            ),
            line=locate(text, ("targets", index)),
            field=f"targets[{index}].name",
        )


def _name(spec: TargetModel, method: Method) -> str:
    # One name for all of an entry's methods: `linkvet history NAME` shows them together, method by method.
    return spec.name or ""


def _host_of(url: str | None) -> str | None:
    if not url:
        return None
    from urllib.parse import urlsplit

    try:
        return urlsplit(url).hostname
    except ValueError:
        return None  # the URL itself is reported invalid where the target is built
