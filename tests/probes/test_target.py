import json

import pytest

from probes.errors import TargetError
from probes.target import Method, ProbeOptions, Target, parse_target


@pytest.mark.parametrize(
    ("text", "method", "host", "port", "key"),
    [
        ("127.0.0.1", Method.ICMP, "127.0.0.1", None, "icmp:127.0.0.1"),
        ("Example.COM", Method.ICMP, "example.com", None, "icmp:example.com"),
        ("127.0.0.1:22", Method.TCP, "127.0.0.1", 22, "tcp:127.0.0.1:22"),
        ("[::1]:443", Method.TCP, "::1", 443, "tcp:[::1]:443"),
        ("::1", Method.ICMP, "::1", None, "icmp:::1"),
        ("0:0:0:0:0:0:0:1", Method.ICMP, "::1", None, "icmp:::1"),  # normalised before comparing
        ("Example.COM.", Method.ICMP, "example.com", None, "icmp:example.com"),
        ("Bücher.example", Method.ICMP, "xn--bcher-kva.example", None, "icmp:xn--bcher-kva.example"),
        ("[fe80::1%lo]:22", Method.TCP, "fe80::1%lo", 22, "tcp:[fe80::1%lo]:22"),
    ],
)
def test_parse_host_forms(text: str, method: Method, host: str, port: int | None, key: str) -> None:
    target = parse_target(text)
    assert (target.method, target.host, target.port, target.key) == (method, host, port, key)


def test_url_defaults_to_http_and_keeps_labels() -> None:
    target = parse_target("https://speed.example.net/100mb.bin", provider="lambda", region="us-west-1")
    assert target.method is Method.HTTP
    assert target.host == "speed.example.net"
    assert (target.provider, target.region) == ("lambda", "us-west-1")
    assert parse_target("https://x.example/", Method.ICMP).host == "x.example"


@pytest.mark.parametrize(
    ("text", "method", "port", "message"),
    [
        ("host:0", None, None, "not a number 1-65535"),
        ("host:http", None, None, "not a number"),
        ("127.0.0.1", Method.TCP, None, "needs a TCP port"),
        ("ftp://x.example/file", Method.HTTP, None, "http:// or https://"),
        ("http://", Method.HTTP, None, "no host"),
        ("a b", None, None, "cannot be part of a host"),
        # issue 12: each of these used to probe something else, silently
        ("[::1", None, None, "not closed"),
        ("[::1]junk", None, None, "only :PORT may follow"),
        ("http://[::1]junk/", None, None, "only :PORT may follow"),
        ("127.0.0.1\x00junk", None, None, "character 10 \\(U\\+0000\\)"),
        ("\ufeff127.0.0.1", None, None, "ZERO WIDTH NO-BREAK SPACE"),
        ("http://exa\nmple.com/", None, None, "LINE FEED|U\\+000A"),
        ("127.000.000.001", None, None, "leading zeros is ambiguous.*write 127.0.0.1"),
        ("2130706433", None, None, "neither an IP address nor a host name"),
        ("127.1", None, None, "neither an IP address nor a host name"),
        ("host:²", None, None, "not a number 1-65535"),
        ("host:" + "9" * 5000, None, None, "not a number 1-65535"),
        ("-gpu.lan", None, None, "not a valid host name"),
        ("gpu..lan", None, None, "not a valid host name"),
        ("x" * 64 + ".example", None, None, "not a valid host name"),
        ("example.com", Method.DOWNLOAD, None, "needs a URL"),
        ("127.0.0.1:22", None, 23, "disagrees"),
    ],
)
def test_bad_targets_say_what_is_wrong(
    text: str, method: Method | None, port: int | None, message: str
) -> None:
    with pytest.raises(TargetError, match=message):
        parse_target(text, method, port)


@pytest.mark.parametrize(
    ("text", "host"),
    [
        ("gpu_box.lan", "gpu_box.lan"),
        ("GPU-1.Example.COM.", "gpu-1.example.com"),
        ("bücher.example", "xn--bcher-kva.example"),
    ],
)
def test_host_names_resolvers_take_are_accepted_and_written_one_way(text: str, host: str) -> None:
    # Underscores are outside IDNA's STD3 rules but in real DNS names (Windows hosts, `gpu_box.lan`).
    assert parse_target(text).host == host


def test_unknown_method_lists_the_known_ones() -> None:
    with pytest.raises(TargetError, match="expected one of: icmp, tcp"):
        Target(method="ping", host="x")  # type: ignore[arg-type]


def test_options_reject_nonsense() -> None:
    with pytest.raises(TargetError, match="count"):
        ProbeOptions(count=0)
    with pytest.raises(TargetError, match="timeout"):
        ProbeOptions(timeout_s=0)


@pytest.mark.parametrize(
    "target",
    [
        Target(Method.ICMP, host="198.18.0.9", port=22, provider="acme", region="la", line_type="cn2-gia"),
        Target(Method.TCP, host="::1", port=443, name="v6 box"),
        Target(Method.DOWNLOAD, url="https://speed.example.net/1gb.bin", provider="acme"),
        Target(Method.TRACE, host="example.com"),
    ],
)
def test_the_plain_form_round_trips(target: Target) -> None:
    plain = target.as_dict()
    assert list(plain) == ["name", "method", "host", "port", "url", "provider", "region", "line_type"]
    assert plain["host"] == (None if target.url else target.host)  # a URL names its host itself
    assert Target.from_dict(plain) == target
    assert Target.from_dict(json.loads(json.dumps(plain))) == target


def test_the_plain_form_reads_missing_and_empty_fields_as_none() -> None:
    target = Target.from_dict({"method": "icmp", "host": "127.0.0.1", "provider": "", "name": ""})
    assert target == Target(Method.ICMP, host="127.0.0.1")
    assert target.name == "127.0.0.1"


@pytest.mark.parametrize(
    ("plain", "expected"),
    [
        (["icmp", "127.0.0.1"], "expected a table of target fields"),
        ({"host": "127.0.0.1"}, "unknown method None"),
        ({"method": "tcp", "host": "127.0.0.1", "port": "22"}, "is not a TCP port"),
        ({"method": "http", "host": "example.com"}, "needs a URL"),
    ],
)
def test_a_bad_plain_form_is_a_target_error(plain: object, expected: str) -> None:
    with pytest.raises(TargetError, match=expected):
        Target.from_dict(plain)  # type: ignore[arg-type]
