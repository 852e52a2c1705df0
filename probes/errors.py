"""Every exception the measuring engine raises, in one tree (all of them derive from `ProbesError`).

A probe that cannot reach its target does not raise: the failure is a data point (an `ErrorKind` on the
sample or the result). Exceptions are for input that cannot be measured or analysed at all and for the
environment:

    ProbesError
    ├── TargetError               a target that cannot be probed as given (bad port, bad URL, unknown method)
    ├── ResolveFailed             a host name did not resolve (the methods turn it into an `ErrorKind.DNS` result)
    ├── PlanError                 a plan file that cannot be used (names file, line, field, what was expected)
    ├── PeakWindowError           a peak window that cannot be understood ("20:00-23:00 Asia/Shanghai")
    ├── TimeZoneError             an unknown time zone name (analysis)
    ├── ScopeError                an analysis scope that cannot be analysed (unknown target, empty period)
    ├── StoreError                the result store cannot be opened or written
    │   ├── SchemaVersionError    the store was written by a newer linkvet
    │   ├── DamagedStoreError     the file is not a result store, or one with missing tables or columns,
    │   │                         damaged pages or rows that cannot be read (says what to do)
    │   ├── StoreUnreachableError a PostgreSQL store's server cannot be reached (down, no route, a
    │   │                         timeout): not refused by it; `linkvet schedule` measures into the spool
    │   ├── LockHeldError         a named lock in the store is held by another process (names it)
    │   └── UnstoredRoundsError   measured rounds are not in the store (kept in the spool, or lost)
    ├── IcmpNotPermitted          no ICMP socket can be opened here (says why and how to enable it)
    ├── DeliveryError             an alert notification was not accepted (caught by the alert worker:
    │                             logged, retried with backoff; its text never holds a secret)
    ├── ProbeBackendError         an unknown probe backend, or one that cannot run on this platform
    ├── RouteError                route classification (`probes.routes`)
    │   └── NetworkTableError     a network table file is unreadable or invalid (names file, entry, field)
    │       └── NetworkTableVersionError   the file was written for a newer linkvet
    └── AcceptError               the acceptance readers (`probes.accept`): input that is there but wrong
        ├── ReadError             a recorded or live output malformed, truncated or too large (file, line)
        ├── ReportFormatError     an acceptance report of another format, or a newer version
        ├── ImpossibleReading     a reading written as the tool writes it but impossible (a port rate no
        │                         port has): the reader keeps the fact as "could not judge", with why
        └── Unavailable           an input is not there (missing command or file, permission denied);
            │                     the readers catch it and report the fact as not read, with why
            └── OutsideReplay     a replay directory's name that leads outside it: not read

A fact `linkvet accept` cannot read at all (no nvidia-smi, no /sys/class/infiniband, permission denied) is not
an error: the reader says "not read" and why, and the report goes on.

PeakWindowError, TimeZoneError and ScopeError are also `ValueError`s (bad values given by the caller). A
wrong argument from the calling code itself (a percentile outside 0..100) is the built-in `ValueError`.
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path

from probes.i18n import _


class ProbesError(Exception):
    """Base class of the engine's exceptions."""


class TargetError(ProbesError):
    """A target that cannot be probed as given."""


class ResolveFailed(ProbesError):
    """The name did not resolve; `str()` says why in the resolver's words."""


class PlanError(ProbesError):
    """A plan file that cannot be used; `str()` names the file, line, field and what was expected."""

    def __init__(self, path: str, message: str, *, line: int | None = None, field: str | None = None) -> None:
        self.path = path
        self.line = line
        self.field = field
        self.reason = message
        where = path if line is None else f"{path}:{line}"
        what = f"{field}: {message}" if field else message
        super().__init__(f"{where}: {what}")


class PeakWindowError(ProbesError, ValueError):
    """A peak window that cannot be understood; the message says what was expected."""


class TimeZoneError(ProbesError, ValueError):
    """An unknown time zone name."""


class ScopeError(ProbesError, ValueError):
    """A scope that cannot be analysed as given (unknown target, bad period); the message says why."""


class StoreError(ProbesError):
    """The result store cannot be opened or written."""


class SchemaVersionError(StoreError):
    """The store's schema is newer than this linkvet understands."""


class DamagedStoreError(StoreError):
    """The store cannot be used as it is; `problem` says what is wrong, the message what to do. `path` is
    the store's file, or its URL (a PostgreSQL store, shown without its password)."""

    def __init__(self, path: Path | str | object, problem: str) -> None:
        self.path = path if not isinstance(path, str) or "://" in path else Path(path)
        self.problem = problem
        if "://" in str(path):
            message = _(
                "{store}: the result store is damaged: {problem}. linkvet cannot use it; have the database "
                "restored, or point --db at another database or schema (a new, empty store is created there)"
            ).format(store=path, problem=problem)
        else:
            message = _(
                "{path}: the result store is damaged: {problem}. linkvet cannot use it; move it aside (for "
                "example `mv {path} {path}.damaged`) and a new, empty store is created on the next run"
            ).format(path=path, problem=problem)
        super().__init__(message)


class StoreUnreachableError(StoreError):
    """A PostgreSQL store's server could not be reached (it is down, restarting, or the network is away);
    the server did not refuse anything (a wrong password or database is a plain StoreError)."""


class LockHeldError(StoreError):
    """Another process holds a lock in the store; `holder` describes it (pid, host, since when)."""

    def __init__(self, message: str, holder: object) -> None:
        super().__init__(message)
        self.holder = holder


class UnstoredRoundsError(StoreError):
    """Measured rounds that are not in the store: `spooled` wait in the spool, `lost` could not be kept."""

    def __init__(self, message: str, *, spooled: int, lost: int) -> None:
        super().__init__(message)
        self.spooled = spooled
        self.lost = lost


class IcmpNotPermitted(ProbesError):
    """Neither a raw nor an unprivileged ICMP socket can be opened."""


class DeliveryError(ProbesError):
    """A notification the webhook or mail server did not accept; `str()` says why, without secrets."""


class ProbeBackendError(ProbesError):
    """The probe backend asked for (LINKVET_PROBE_BACKEND, a setting) is unknown or cannot run here."""


class RouteError(ProbesError):
    """Base of the errors raised by `probes.routes`."""


class NetworkTableError(RouteError):
    """A network table file could not be read or holds an invalid entry."""

    def __init__(self, path: Path | str, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = Path(path)


class NetworkTableVersionError(NetworkTableError):
    """The table's `version` is newer than this linkvet understands."""


class ErrorKind(StrEnum):
    """Why one attempt, or a whole target, produced no measurement."""

    TIMEOUT = "timeout"  # no reply within the timeout: counted as loss
    LATE = "late"  # a reply came, but after the timeout: counted as loss, like a timeout
    # A TCP handshake that completed only after its SYN was sent again (the SYN or the SYN-ACK was lost):
    # loss on the line, counted as such; its late completion is kept as a figure, never as an RTT.
    RETRANSMITTED = "retransmitted"
    UNREACHABLE = "unreachable"  # an ICMP destination/host/network unreachable came back
    TTL_EXCEEDED = "ttl_exceeded"  # a router on the way dropped the packet (time exceeded)
    DNS = "dns"  # the name did not resolve
    REFUSED = "refused"  # connection refused where a refusal is a failure (HTTP, iperf3)
    CONNECT = "connect"  # another connection failure (reset, no route)
    TLS = "tls"  # certificate or handshake failure
    HTTP_STATUS = "http_status"  # the server answered with an error status
    PROTOCOL = "protocol"  # the peer spoke something unexpected
    TOO_MANY_REDIRECTS = "too_many_redirects"
    PERMISSION = "permission"  # the OS refused (ICMP socket, privileged port)
    TOOL_MISSING = "tool_missing"  # an external program (iperf3) is not installed
    TOOL_FAILED = "tool_failed"  # the external program ran and reported an error
    # This machine could not send the attempt (no route, bad scope id, no buffer space): an error of this
    # machine, not loss on the line, so the attempt counts as neither sent nor lost (`Sample.local_failure`).
    SEND_FAILED = "send_failed"
    DEADLINE = "deadline"  # the target ran past its overall time budget
    INVALID = "invalid"  # the target itself is invalid (bad port, bad URL)
    UNSUPPORTED = (
        "unsupported"  # the probe backend in use cannot measure this here (UDP traceroute on Windows)
    )
    INTERNAL = "internal"  # a fault in linkvet itself (logged with its traceback; please report it)


class AcceptError(ProbesError):
    """Base class of the acceptance readers' errors."""


class ReadError(AcceptError):
    """An output that is there but cannot be understood. `str()` is `FILE:LINE: message (expected …)`."""

    def __init__(
        self, path: str, message: str, *, line: int | None = None, expected: str | None = None
    ) -> None:
        self.path = path
        self.line = line
        self.reason = message
        self.expected = expected
        where = path if line is None else f"{path}:{line}"
        if expected:
            super().__init__(
                _("{where}: {problem} (expected {expected})").format(
                    where=where, problem=message, expected=expected
                )
            )
        else:
            super().__init__(f"{where}: {message}")


class ReportFormatError(AcceptError):
    """An acceptance report that is not one, or is newer than this linkvet understands."""


class ImpossibleReading(AcceptError):
    """An output written as the tool writes it, holding a value it cannot hold (a port rate no port has);
    `str()` says why. The reader keeps the fact with the value unknown and this reason ("could not judge")."""


class Unavailable(AcceptError):
    """The input is not there (missing command or file, permission denied); `str()` says why. Caught by the
    acceptance readers, which report the fact as not read."""


class OutsideReplay(Unavailable):
    """A replay directory's name that leads outside it (a link to /etc/passwd, `..`): not read."""
