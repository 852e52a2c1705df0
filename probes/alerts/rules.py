"""A plan's `[[alerts]]` rules and `[notifiers.NAME]` tables (read by `probes.schedule.plan.parse_plan`):

    [[alerts]]
    name = "sj-loss"                   # unique in the plan; shown in every notification
    when = "loss"                      # loss | p95 | throughput | route | no_data
    above = 2.0                        # loss: percent of attempts lost over the last `rounds` rounds
    rounds = 3                         # how many of the target's last rounds are judged together
    targets = ["sj-cn2"]               # optional: the plan's target names (else every target it can judge)
    notify = ["ops-webhook", "mail-oncall"]
    # offices = 2                      # optional: one alert when at least 2 offices (agents of this plan
    #                                  # name from different vantage points, one store) breach at once

    [[alerts]]
    name = "evening-p95"
    when = "p95"
    above_ms = 180                     # p95 RTT of the pooled replies of the last `rounds` rounds
    peak_only = true                   # judge only rounds inside the plan's peak windows (or `windows`)
    notify = ["ops-webhook"]

    # when = "throughput": below_mbps = 50 (mean of the last `rounds` transfers; direction = "upload" for
    #   iperf3's office → region figure); when = "route": expect = "cn2-gia" (fires when the last `rounds`
    #   traces all show another class; without `expect`, the class first seen is the expected one);
    #   when = "no_data": for = "30m" (no result without an error for that long)

    [notifiers.ops-webhook]
    type = "webhook"                   # webhook (linkvet's JSON), slack, wecom, dingtalk, feishu, email
    url_env = "LINKVET_OPS_WEBHOOK"    # the URL comes from the environment: bots' URLs carry their token
    secret_env = "LINKVET_OPS_SECRET"  # optional: webhook HMAC of the body; dingtalk/feishu signing secret
    max_messages = 10                  # rate limit: at most this many messages ...
    per = "1h"                         # ... in any such period (held notifications go out together)

    [notifiers.mail-oncall]
    type = "email"
    smtp_host = "smtp.example.com"
    smtp_port = 587
    tls = "starttls"                   # starttls (default), tls (implicit, port 465) or none (no login then)
    username_env = "LINKVET_SMTP_USER"
    password_env = "LINKVET_SMTP_PASSWORD"
    from = "linkvet@example.com"
    to = ["oncall@example.com"]

Secrets are only ever named (`*_env`), never written in the plan; `resolve_secrets` reads them from the
environment when the scheduler starts. A plain `url` is accepted for `type = "webhook"` only (a receiver
whose address is no secret). Errors name the file, line and field, as every plan error does.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from email.utils import parseaddr
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from pydantic import ConfigDict, Field, ValidationError, model_validator

from probes.errors import PeakWindowError, PlanError
from probes.files.filemodel import Cadence, FileModel
from probes.files.inputfile import explain, field_name, locate
from probes.i18n import _, ngettext
from probes.peak import PeakWindow
from probes.target import Method, Target

Kind = Literal["loss", "p95", "throughput", "route", "no_data"]
NotifierType = Literal["webhook", "slack", "wecom", "dingtalk", "feishu", "email"]
BOT_TYPES = frozenset({"slack", "wecom", "dingtalk", "feishu"})
# The methods whose results each kind judges.
KIND_METHODS: Mapping[str, frozenset[Method]] = {
    "loss": frozenset({Method.ICMP, Method.TCP}),
    "p95": frozenset({Method.ICMP, Method.TCP}),
    "throughput": frozenset({Method.DOWNLOAD, Method.IPERF3}),
    "route": frozenset({Method.TRACE}),
    "no_data": frozenset(Method),
}
_THRESHOLD_FIELD = {
    "loss": "above",
    "p95": "above_ms",
    "throughput": "below_mbps",
    "route": None,
    "no_data": None,
}
_DEFAULT_ROUNDS = {"loss": 3, "p95": 3, "throughput": 1, "route": 1, "no_data": 1}
EnvName = Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$", max_length=200)]
RuleName = Annotated[str, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.:-]*$", max_length=100)]


class _AliasedModel(FileModel):
    model_config = ConfigDict(populate_by_name=True)  # `for_` and its alias `for`


class RuleModel(_AliasedModel):
    name: RuleName
    when: Kind
    above: float | None = Field(default=None, ge=0, le=100)
    above_ms: float | None = Field(default=None, gt=0)
    below_mbps: float | None = Field(default=None, gt=0)
    direction: Literal["download", "upload"] | None = None
    rounds: int | None = Field(default=None, ge=1, le=1000)
    peak_only: bool = False
    windows: list[str] | None = None
    expect: str | None = Field(default=None, min_length=1)
    for_: Cadence | None = Field(default=None, alias="for")
    targets: list[str] | None = Field(default=None, min_length=1)
    methods: list[Method] | None = Field(default=None, min_length=1)
    provider: str | None = None
    region: str | None = None
    line_type: str | None = None
    offices: int | None = Field(default=None, ge=2, le=32)
    notify: list[str] = Field(min_length=1)

    @model_validator(mode="after")
    def _fits_its_kind(self) -> RuleModel:
        wanted = _THRESHOLD_FIELD[self.when]
        for name in ("above", "above_ms", "below_mbps"):
            given = getattr(self, name) is not None
            if name == wanted and not given:
                raise ValueError(_needs(self.when, name))
            if name != wanted and given:
                raise ValueError(_not_for(self.when, name))
        if self.when == "no_data" and self.for_ is None:
            raise ValueError(_needs(self.when, "for"))
        checks = (
            ("for", self.for_ is not None, self.when == "no_data"),
            ("expect", self.expect is not None, self.when == "route"),
            ("direction", self.direction is not None, self.when == "throughput"),
            ("peak_only", self.peak_only, self.when != "no_data"),
            ("windows", self.windows is not None, self.when != "no_data"),
        )
        for name, given, applies in checks:
            if given and not applies:
                raise ValueError(_not_for(self.when, name))
        for text in self.windows or []:
            try:
                PeakWindow.parse(text)
            except PeakWindowError as exc:
                raise ValueError(str(exc)) from None
        return self


class NotifierModel(_AliasedModel):
    type: NotifierType
    url: str | None = None
    url_env: EnvName | None = None
    secret_env: EnvName | None = None
    token_env: EnvName | None = None
    timeout: float = Field(default=10.0, gt=0, le=120)
    max_messages: int = Field(default=10, ge=1, le=10_000)
    per: Cadence = 3600.0
    attempts: int = Field(default=8, ge=1, le=100)
    smtp_host: str | None = Field(default=None, min_length=1)
    smtp_port: int | None = Field(default=None, ge=1, le=65535)
    tls: Literal["starttls", "tls", "none"] = "starttls"
    username_env: EnvName | None = None
    password_env: EnvName | None = None
    ca_file: str | None = None
    sender: str | None = Field(default=None, alias="from")
    to: list[str] | None = Field(default=None, min_length=1)

    @model_validator(mode="after")
    def _fits_its_type(self) -> NotifierModel:
        email_fields = ("smtp_host", "smtp_port", "username_env", "password_env", "ca_file", "sender", "to")
        if self.type == "email":
            for name in ("url", "url_env", "secret_env", "token_env"):
                if getattr(self, name) is not None:
                    raise ValueError(_field_not_for_type(self.type, name))
            if self.smtp_host is None or self.sender is None or self.to is None:
                raise ValueError(_("an email notifier needs `smtp_host`, `from` and `to`"))
            for text in (self.smtp_host, self.sender, *self.to, self.ca_file or ""):
                if _unprintable(text):
                    raise ValueError(_("a line break or a control character in an email setting"))
            for address in (self.sender, *self.to):
                if "@" not in parseaddr(address)[1]:
                    raise ValueError(_("{address!r} is not an email address").format(address=address))
            if (self.username_env is None) != (self.password_env is None):
                raise ValueError(_("give both `username_env` and `password_env`, or neither"))
            if self.tls == "none" and self.username_env is not None:
                raise ValueError(
                    _('`tls = "none"` would send the password in clear text: use starttls or tls')
                )
            return self
        for name in email_fields:
            if getattr(self, name) is not None:
                raise ValueError(_field_not_for_type(self.type, name))
        if self.url is not None and self.url_env is not None:
            raise ValueError(_("give `url` or `url_env`, not both"))
        if self.url is None and self.url_env is None:
            raise ValueError(_("give the address as `url_env` (the name of an environment variable)"))
        if self.url is not None:
            if self.type in BOT_TYPES:
                raise ValueError(
                    _("a {type} URL carries the bot's token: give it as `url_env`, not in the plan").format(
                        type=self.type
                    )
                )
            check_url(self.url)
        if self.token_env is not None and self.type != "webhook":
            raise ValueError(_field_not_for_type(self.type, "token_env"))
        if self.secret_env is not None and self.type in ("slack", "wecom"):
            raise ValueError(_field_not_for_type(self.type, "secret_env"))
        return self


class AlertingModel(_AliasedModel):
    alerts: list[RuleModel] = Field(default_factory=list)
    notifiers: dict[Annotated[str, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")], NotifierModel] = Field(
        default_factory=dict
    )


def _needs(kind: str, field: str) -> str:
    return _("a `{kind}` rule needs `{field}`").format(kind=kind, field=field)


def _not_for(kind: str, field: str) -> str:
    return _("`{field}` does not apply to a `{kind}` rule").format(kind=kind, field=field)


def _field_not_for_type(type: str, field: str) -> str:
    return _("`{field}` does not apply to a notifier of type {type}").format(type=type, field=field)


def _unprintable(value: str) -> bool:
    return any((c.isspace() and c != " ") or ord(c) < 32 or ord(c) == 127 for c in value)


def check_url(url: str) -> str:
    """An http(s) URL with a host and nothing a request line cannot carry (a space, a line break, a control
    character), else ValueError (its text never repeated: it may hold a token)."""
    if _unprintable(url) or " " in url:
        raise ValueError(_("a URL with a space, a line break or a control character"))
    try:
        parts = urlsplit(url)
        host = parts.hostname
        parts.port  # noqa: B018 - raises ValueError for a port that is not one
    except ValueError:
        host = None
        parts = None
    if parts is None or parts.scheme not in ("http", "https") or not host:
        raise ValueError(_("not an http:// or https:// URL"))
    return url


def check_header_value(value: str) -> str:
    """A value an HTTP header or an SMTP command can carry: printable ASCII (no line break, which would start a
    header or command of its own), else ValueError (its text never repeated)."""
    if not value.isascii() or _unprintable(value):
        raise ValueError(
            _("a line break, a control character or a non-ASCII character, which a header cannot carry")
        )
    return value


def mask_url(url: str) -> str:
    """A notifier's URL as it may be shown: scheme, host and port; the path and query (where bots keep their
    token) as `***`."""
    try:
        parts = urlsplit(url)
        netloc = parts.hostname or ""
        if parts.port is not None:
            netloc = f"{netloc}:{parts.port}"
    except ValueError:
        return "***"
    if not parts.scheme or not netloc:
        return "***"
    return f"{parts.scheme}://{netloc}/***"


@dataclass(frozen=True, slots=True)
class AlertRule:
    """One validated rule; `target_keys` are the keys of the plan's targets it judges."""

    name: str
    kind: str
    threshold: float | None  # loss percent, p95 ms or throughput Mbit/s; None for route and no_data
    rounds: int
    target_keys: frozenset[str]
    notify: tuple[str, ...]
    windows: tuple[PeakWindow, ...] = ()  # judged only in these (empty: always)
    direction: str = "download"
    expect: str | None = None
    for_s: float | None = None
    offices: int | None = None  # None: each office alerts on its own; N: one alert when N offices agree
    line: int | None = None


@dataclass(frozen=True, slots=True)
class Notifier:
    """One validated `[notifiers.NAME]` table: names of environment variables, never their values."""

    name: str
    type: str
    url: str | None = None
    url_env: str | None = None
    secret_env: str | None = None
    token_env: str | None = None
    timeout_s: float = 10.0
    max_messages: int = 10
    per_s: float = 3600.0
    attempts: int = 8
    smtp_host: str | None = None
    smtp_port: int | None = None
    tls: str = "starttls"
    username_env: str | None = None
    password_env: str | None = None
    ca_file: str | None = None
    sender: str | None = None
    to: tuple[str, ...] = ()
    line: int | None = None

    @property
    def env_names(self) -> tuple[str, ...]:
        names = (self.url_env, self.secret_env, self.token_env, self.username_env, self.password_env)
        return tuple(n for n in names if n is not None)


@dataclass(frozen=True, slots=True)
class Secrets:
    """A notifier's secrets, read from the environment (never logged, never stored)."""

    url: str | None = None
    secret: str | None = None
    token: str | None = None
    username: str | None = None
    password: str | None = None

    def values(self) -> tuple[str, ...]:
        return tuple(v for v in (self.url, self.secret, self.token, self.username, self.password) if v)


@dataclass(frozen=True)
class Alerting:
    """A plan's alert rules and the notifiers they name."""

    path: str
    rules: tuple[AlertRule, ...] = ()
    notifiers: Mapping[str, Notifier] = dataclass_field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.rules)


def parse_alerting(
    raw: Mapping[str, Any],
    text: str,
    path: str,
    targets: Sequence[Target],
    peak_windows: Sequence[PeakWindow],
) -> Alerting:
    """The plan's `alerts` and `notifiers` tables, checked against its targets; PlanError naming the file,
    line and field."""
    try:
        model = AlertingModel.model_validate(dict(raw))
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = tuple(first["loc"])
        raise PlanError(path, explain(first), line=locate(text, loc), field=field_name(loc)) from None
    notifiers = {
        name: _notifier(name, spec, locate(text, ("notifiers", name)))
        for name, spec in model.notifiers.items()
    }
    rules: list[AlertRule] = []
    seen: dict[str, int] = {}
    for index, spec in enumerate(model.alerts):
        where = ("alerts", index)
        if spec.name in seen:
            raise PlanError(
                path,
                _("the rule name {name!r} is already used by alerts[{index}]").format(
                    name=spec.name, index=seen[spec.name]
                ),
                line=locate(text, (*where, "name")),
                field=field_name((*where, "name")),
            )
        seen[spec.name] = index
        for position, name in enumerate(spec.notify):
            if name not in notifiers:
                raise PlanError(
                    path,
                    _("no notifier {name!r} (add a [notifiers.{name}] table; defined: {known})").format(
                        name=name, known=", ".join(sorted(notifiers)) or "-"
                    ),
                    line=locate(text, (*where, "notify")),
                    field=field_name((*where, "notify", position)),
                )
        rules.append(_rule(spec, index, text, path, targets, peak_windows))
    return Alerting(path, tuple(rules), notifiers)


def _rule(
    spec: RuleModel,
    index: int,
    text: str,
    path: str,
    targets: Sequence[Target],
    peak_windows: Sequence[PeakWindow],
) -> AlertRule:
    where: tuple[str | int, ...] = ("alerts", index)
    names = {t.name for t in targets}
    for position, name in enumerate(spec.targets or []):
        if name not in names:
            raise PlanError(
                path,
                _("the plan has no target named {name!r}").format(name=name),
                line=locate(text, (*where, "targets")),
                field=field_name((*where, "targets", position)),
            )
    methods = KIND_METHODS[spec.when] & set(spec.methods or Method)
    chosen = frozenset(t.key for t in targets if _selects(spec, t, methods))
    if not chosen:
        raise PlanError(
            path,
            _("the rule selects no target it can judge (a `{kind}` rule judges {methods} targets)").format(
                kind=spec.when, methods=", ".join(sorted(m.value for m in KIND_METHODS[spec.when]))
            ),
            line=locate(text, where),
            field=field_name(where),
        )
    windows: tuple[PeakWindow, ...] = ()
    if spec.windows is not None:
        windows = tuple(PeakWindow.parse(w) for w in spec.windows)
    elif spec.peak_only:
        windows = tuple(peak_windows)
        if not windows:
            raise PlanError(
                path,
                _("`peak_only` needs peak windows: the plan's [schedule] peak_windows is empty"),
                line=locate(text, (*where, "peak_only")),
                field=field_name((*where, "peak_only")),
            )
    threshold_field = _THRESHOLD_FIELD[spec.when]
    threshold = getattr(spec, threshold_field) if threshold_field else None
    return AlertRule(
        name=spec.name,
        kind=spec.when,
        threshold=None if threshold is None else float(threshold),
        rounds=spec.rounds or _DEFAULT_ROUNDS[spec.when],
        target_keys=chosen,
        notify=tuple(dict.fromkeys(spec.notify)),
        windows=windows,
        direction=spec.direction or "download",
        expect=spec.expect,
        for_s=spec.for_,
        offices=spec.offices,
        line=locate(text, where),
    )


def _selects(spec: RuleModel, target: Target, methods: frozenset[Method]) -> bool:
    return (
        target.method in methods
        and (spec.targets is None or target.name in spec.targets)
        and all(
            wanted is None or getattr(target, label) == wanted
            for label, wanted in (
                ("provider", spec.provider),
                ("region", spec.region),
                ("line_type", spec.line_type),
            )
        )
    )


def _notifier(name: str, spec: NotifierModel, line: int | None) -> Notifier:
    port = spec.smtp_port or {"starttls": 587, "tls": 465, "none": 25}[spec.tls]
    return Notifier(
        name=name,
        type=spec.type,
        url=spec.url,
        url_env=spec.url_env,
        secret_env=spec.secret_env,
        token_env=spec.token_env,
        timeout_s=spec.timeout,
        max_messages=spec.max_messages,
        per_s=spec.per,
        attempts=spec.attempts,
        smtp_host=spec.smtp_host,
        smtp_port=port if spec.type == "email" else None,
        tls=spec.tls,
        username_env=spec.username_env,
        password_env=spec.password_env,
        ca_file=spec.ca_file,
        sender=spec.sender,
        to=tuple(spec.to or ()),
        line=line,
    )


def resolve_secrets(alerting: Alerting, environ: Mapping[str, str] | None = None) -> dict[str, Secrets]:
    """Each notifier's secrets from the environment; PlanError naming the notifier's line and the variable
    when one is unset or empty (its value is never part of any message)."""
    env = os.environ if environ is None else environ
    out: dict[str, Secrets] = {}
    for notifier in alerting.notifiers.values():
        values: dict[str, str | None] = {}
        for field in ("url_env", "secret_env", "token_env", "username_env", "password_env"):
            variable = getattr(notifier, field)
            if variable is None:
                values[field] = None
                continue
            value = env.get(variable, "")
            if not value:
                raise PlanError(
                    alerting.path,
                    _("the environment variable {variable} is not set (notifier {notifier} reads it)").format(
                        variable=variable, notifier=notifier.name
                    ),
                    line=notifier.line,
                    field=f"notifiers.{notifier.name}.{field}",
                )
            values[field] = value
        url = values["url_env"] or notifier.url
        checks = {"url_env": check_url, "token_env": check_header_value, "username_env": check_header_value}
        for field in ("url_env", "secret_env", "token_env", "username_env", "password_env"):
            given = values[field]
            if given is None:
                continue
            try:
                checks.get(field, _no_line_break)(given)
            except ValueError as exc:
                raise PlanError(
                    alerting.path,
                    _("the environment variable {variable}: {reason}").format(
                        variable=getattr(notifier, field), reason=exc
                    ),
                    line=notifier.line,
                    field=f"notifiers.{notifier.name}.{field}",
                ) from None
        out[notifier.name] = Secrets(
            url=url,
            secret=values["secret_env"],
            token=values["token_env"],
            username=values["username_env"],
            password=values["password_env"],
        )
    return out


def _no_line_break(value: str) -> str:
    if _unprintable(value):
        raise ValueError(_("a line break or a control character"))
    return value


def describe_rule(rule: AlertRule) -> str:
    """One line for `linkvet schedule --check`."""
    n = rule.rounds
    fields = {"threshold": rule.threshold, "rounds": n, "direction": rule.direction}
    if rule.kind == "loss":
        what = ngettext(
            "loss above {threshold:g}% in 1 round", "loss above {threshold:g}% over {rounds} rounds", n
        )
    elif rule.kind == "p95":
        what = ngettext(
            "p95 RTT above {threshold:g} ms in 1 round",
            "p95 RTT above {threshold:g} ms over {rounds} rounds",
            n,
        )
    elif rule.kind == "throughput":
        what = ngettext(
            "{direction} throughput below {threshold:g} Mbit/s in 1 transfer",
            "{direction} throughput below {threshold:g} Mbit/s over {rounds} transfers",
            n,
        )
    elif rule.kind == "route":
        fields["expected"] = rule.expect or _("the first class seen")
        what = ngettext(
            "the route class differs from {expected} on 1 trace",
            "the route class differs from {expected} on {rounds} traces in a row",
            n,
        )
    else:
        assert rule.for_s is not None
        fields["seconds"] = rule.for_s
        what = _("no data for {seconds:g} s")
    what = what.format(**fields)
    if rule.windows:
        what = _("{condition}, only inside {windows}").format(
            condition=what, windows=", ".join(str(w) for w in rule.windows)
        )
    if rule.offices is not None:
        what = _("{condition}, from at least {offices} offices at once (one alert for them all)").format(
            condition=what, offices=rule.offices
        )
    return what
