"""What a target points at, read strictly and written one way: an IP address, a host name, `host:port`,
`[v6]:port` or an http(s) URL. Anything else is a `TargetError` saying what was expected — never a guess.

    normalise_host(text)     an IP address in its canonical form (`::1`, `192.0.2.1`), or a host name as
                             IDNA A-labels in lower case without a trailing dot (`xn--bcher-kva.example`;
                             ASCII labels may hold underscores, as resolvers allow: `gpu_box.lan`)
    normalise_url(text)      an http(s) URL with its scheme and host written that way
    split_host_port(text)    `host:port` / `[v6]:port` / `host` → (host, port or None)
    bracket(host)            `[v6]` for an IPv6 address, the host otherwise
    canonical_ipv4(text)     whether text is an IPv4 address written canonically (`normalise_host` returns it
                             as it is): a microsecond, where `ipaddress` takes ten (lists of thousands)

Two spellings of one endpoint (`127.000.000.001`, `2130706433` and `127.0.0.1`; `Example.COM.` and
`example.com`) must not become two targets, nor a typo a different host: a name whose last label is a number
is refused (it is an address some tools read in octal or as one integer), as are control characters,
spaces, an unclosed `[`, and text after `]`.
"""

from __future__ import annotations

import ipaddress
import re
import socket
import unicodedata
import urllib.parse
from dataclasses import dataclass

import idna

from probes.errors import TargetError
from probes.i18n import _

_PORT = re.compile(r"[0-9]{1,5}")
_DOTTED_NUMBERS = re.compile(r"[0-9]+(?:\.[0-9]+){3}")
# An ASCII label as resolvers take it: letters, digits, hyphens (not at either end) and underscores, which
# IDNA's STD3 rules refuse but DNS names carry (`gpu_box.lan`, Windows host names).
_ASCII_LABEL = re.compile(r"(?!-)[A-Za-z0-9_-]{1,63}(?<!-)")


def check_text(text: str) -> None:
    """Refuse text with a control character, a space or another invisible character in it."""
    # Every character that isspace() is not printable but the ASCII space: one pass in C for the usual text.
    if text.isprintable() and " " not in text:
        return
    for position, char in enumerate(text, start=1):
        if char.isspace() or not char.isprintable():
            name = unicodedata.name(char, f"U+{ord(char):04X}")
            raise TargetError(
                _("{text!r}: character {position} ({name}) cannot be part of a host, address or URL").format(
                    text=text, position=position, name=name
                )
            )


def canonical_ipv4(text: str) -> bool:
    """Whether `text` is an IPv4 address as `ipaddress` writes it (`192.0.2.1`; not `192.0.2.01`)."""
    try:
        return socket.inet_ntop(socket.AF_INET, socket.inet_pton(socket.AF_INET, text)) == text
    except (OSError, ValueError):  # not an IPv4 address; ValueError: a NUL in the text
        return False


def normalise_host(host: str) -> str:
    """The canonical form of an address or host name (see the module's docstring); TargetError if neither."""
    if canonical_ipv4(host):
        return host
    check_text(host)
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    if not host:
        raise TargetError(_("empty host name"))
    try:
        return str(ipaddress.ip_address(host))
    except ValueError:
        pass
    name = host[:-1] if host.endswith(".") and not host.endswith("..") else host
    last = name.rsplit(".", 1)[-1]
    if last.isdigit() or last.lower().startswith("0x") or ":" in name:
        if _DOTTED_NUMBERS.fullmatch(name) and all(int(part) <= 255 for part in name.split(".")):
            written = ".".join(str(int(part)) for part in name.split("."))
            raise TargetError(
                _(
                    "{host!r}: an IPv4 address with leading zeros is ambiguous (some tools read it as "
                    "octal); write {written}"
                ).format(host=host, written=written)
            )
        raise TargetError(
            _(
                "{host!r} is neither an IP address nor a host name (expected e.g. 192.0.2.1, 2001:db8::1 "
                "or gpu.example.com)"
            ).format(host=host)
        )
    labels = name.split(".")
    if len(name) > 253 or not all(labels):
        raise TargetError(
            _("{host!r} is not a valid host name ({reason})").format(host=host, reason=_("an empty label"))
        )
    encoded = []
    for label in labels:
        if _ASCII_LABEL.fullmatch(label):  # letters, digits, hyphens; underscores too, as resolvers allow
            encoded.append(label.lower())
            continue
        try:
            encoded.append(
                idna.encode(label, uts46=True, std3_rules=True, transitional=False).decode("ascii")
            )
        except (idna.IDNAError, UnicodeError) as exc:
            raise TargetError(
                _("{host!r} is not a valid host name ({reason})").format(host=host, reason=exc)
            ) from None
    return ".".join(encoded).lower()


def bracket(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def _port(text: str, whole: str) -> int:
    if not _PORT.fullmatch(text) or not 1 <= int(text) <= 65535:
        raise TargetError(_("{text!r}: port {port!r} is not a number 1-65535").format(text=whole, port=text))
    return int(text)


def split_host_port(text: str) -> tuple[str, int | None]:
    """(host, port) of `host`, `host:port`, `[v6]` or `[v6]:port`; an IPv6 address without brackets has no
    port. Refuses an unclosed bracket and anything after the closing one but `:port`."""
    if text.startswith("["):
        host, closed, rest = text[1:].partition("]")
        if not closed:
            raise TargetError(_("{text!r}: the [ of an IPv6 address is not closed").format(text=text))
        if rest and not rest.startswith(":"):
            raise TargetError(
                _("{text!r}: only :PORT may follow ] (e.g. [2001:db8::1]:22)").format(text=text)
            )
        return f"[{host}]", _port(rest[1:], text) if rest else None
    if "]" in text:
        raise TargetError(_("{text!r}: a ] without its [").format(text=text))
    if text.count(":") == 1:
        host, _colon, port_text = text.partition(":")
        return host, _port(port_text, text)
    return text, None


def normalise_url(url: str) -> str:
    """An http(s) URL with scheme and host in their canonical form; TargetError for anything else (no host,
    a port that is not 1-65535, text after an IPv6 address's ])."""
    check_text(url)
    try:
        parts = urllib.parse.urlsplit(url)
    except ValueError as exc:  # "Invalid IPv6 URL"
        raise TargetError(_("{url!r}: not a valid URL ({reason})").format(url=url, reason=exc)) from None
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https"):
        raise TargetError(_("{url!r}: expected an http:// or https:// URL").format(url=url))
    userinfo, _at, hostport = parts.netloc.rpartition("@")
    if not hostport:
        raise TargetError(_("{url!r}: the URL has no host").format(url=url))
    host, port = split_host_port(hostport)
    if host.startswith("["):
        host = urllib.parse.unquote(host)  # a zone id is written %25 in a URL
    host = normalise_host(host)
    netloc = (f"{userinfo}@" if _at else "") + bracket(host) + (f":{port}" if port is not None else "")
    if host.count("%"):
        netloc = netloc.replace("%", "%25", 1)
    return urllib.parse.urlunsplit((scheme, netloc, parts.path, parts.query, parts.fragment))


def url_host(url: str) -> str:
    """The host of a URL `normalise_url` has written."""
    host = urllib.parse.urlsplit(url).hostname or ""
    return normalise_host(urllib.parse.unquote(host))


# -- where a server of ours listens ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ListenAddress:
    host: str
    port: int

    @property
    def loopback(self) -> bool:
        if self.host == "localhost":
            return True
        try:
            return ipaddress.ip_address(self.host).is_loopback
        except ValueError:
            return False

    def __str__(self) -> str:
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"


def parse_listen(text: str) -> ListenAddress:
    """`HOST:PORT`, `[IPv6]:PORT` or `:PORT` (loopback); ValueError naming what was expected."""
    text = text.strip()
    host, sep, port_text = text.rpartition(":")
    if not sep:
        host, port_text = "", text
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    host = host or "127.0.0.1"
    if not port_text.isdigit() or not 0 <= int(port_text) <= 65535:
        raise ValueError(
            _("{text!r} is not an address to listen on (expected HOST:PORT, e.g. 127.0.0.1:9108)").format(
                text=text
            )
        )
    if host != "localhost":
        try:
            ipaddress.ip_address(host)
        except ValueError:
            raise ValueError(
                _(
                    "{host!r} is not an IP address (give the address to listen on, e.g. 127.0.0.1 or ::1)"
                ).format(host=host)
            ) from None
    return ListenAddress(host, int(port_text))
