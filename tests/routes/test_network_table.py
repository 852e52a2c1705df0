"""The network table: the bundled facts and their sources, CIDR matching (and where it differs from the
route-check tools' string prefixes), and user tables merged over the bundled one."""

from __future__ import annotations

from pathlib import Path

import pytest

from probes.routes import NetworkTableError, NetworkTableVersionError, bundled_table, load_network_table
from probes.routes.table import USER_TABLE_ENV, bundled_table_path, default_user_table_path


def test_every_bundled_fact_names_its_source() -> None:
    table = bundled_table()
    assert len(table.prefixes) >= 20
    for rule in table.prefixes:
        assert rule.source.strip(), rule.cidr
        assert "@" in rule.source, f"{rule.cidr}: source should name owner/repo@commit"
    for info in table.asns.values():
        assert info.source.strip(), info.asn


def test_bundled_table_covers_the_backbones_of_the_issue() -> None:
    asns = bundled_table().asns
    assert {4809, 4134, 9929, 10099, 4837, 58453, 9808, 58807, 23764} <= set(asns)
    assert asns[4809].backbone == "cn2"
    assert asns[4134].backbone == "163"
    assert asns[58807].backbone == "cmin2"
    assert "UNVERIFIED" in asns[10099].source  # the research could not confirm it: say so, bundle no prefix
    assert not [r for r in bundled_table().prefixes if r.asn == 10099]


@pytest.mark.parametrize(
    ("address", "asn", "cidr"),
    [
        ("59.43.0.1", 4809, "59.43.0.0/16"),
        ("59.43.255.254", 4809, "59.43.0.0/16"),
        ("202.97.33.5", 4134, "202.97.0.0/16"),
        ("218.105.7.1", 9929, "218.105.0.0/16"),
        ("210.51.1.1", 9929, "210.51.0.0/16"),
        ("219.158.113.2", 4837, "219.158.0.0/16"),
        ("223.120.19.5", 58807, "223.120.19.0/24"),
        ("223.120.140.9", 58807, "223.120.140.0/24"),
        ("223.120.2.2", 58453, "223.120.0.0/16"),
        ("223.118.1.1", 58453, "223.118.0.0/16"),
        ("69.194.3.4", 23764, "69.194.0.0/16"),
        ("2400:9380:9001::1", 4809, "2400:9380:9001::/48"),
        ("::ffff:59.43.2.2", 4809, "59.43.0.0/16"),  # an IPv4-mapped IPv6 hop is its IPv4 address
    ],
)
def test_lookup_finds_the_longest_matching_prefix(address: str, asn: int, cidr: str) -> None:
    match = bundled_table().lookup(address)
    assert match is not None
    assert (match.asn, match.prefix.cidr) == (asn, cidr)


@pytest.mark.parametrize(
    ("address", "expected"),
    [
        # Go's strings.HasPrefix("223.120.195.1", "223.120.19") is true (CMIN2 in the tools); as a CIDR
        # 223.120.195.1 is outside 223.120.19.0/24 and falls to the CMI /16.
        ("223.120.195.1", 58453),
        ("223.120.165.1", 58453),
        # strings.HasPrefix("203.225.1.1", "203.22") is true (CTGNet in oneclickvirt); not in 203.22.0.0/16.
        ("203.225.1.1", None),
        # grep '59\.43\.' on a report matches 159.43.1.1; the CIDR does not.
        ("159.43.1.1", None),
        ("10.218.105.1", None),
        ("8.8.8.8", None),
        ("not-an-address", None),
    ],
)
def test_cidr_matching_differs_from_string_prefixes_where_documented(
    address: str, expected: int | None
) -> None:
    match = bundled_table().lookup(address)
    assert (None if match is None else match.asn) == expected


def test_short_prefix_is_written_as_people_write_it() -> None:
    table = bundled_table()
    assert table.lookup("59.43.1.1").prefix.short == "59.43"  # type: ignore[union-attr]
    assert table.lookup("223.120.19.1").prefix.short == "223.120.19"  # type: ignore[union-attr]
    assert table.lookup("2400:9380:9001::1").prefix.short == "2400:9380:9001::/48"  # type: ignore[union-attr]


def _write(tmp_path: Path, text: str, name: str = "mine.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_user_table_adds_overrides_and_ignores(tmp_path: Path) -> None:
    user = _write(
        tmp_path,
        """
version = 1

[[asn]]
asn = 64512
backbone = "other"
name = "Office ISP metro"
label = "Metro"
source = "our NOC"

[[prefix]]                       # a new, more specific CN2 block inside nothing bundled
cidr = "10.43.0.0/16"
asn = 4809
source = "seen in our traces, 2026-11"

[[prefix]]                       # a /24 inside the bundled 163 /16 that is really our ISP
cidr = "202.97.200.0/24"
asn = 64512
source = "our NOC"

[[prefix]]                       # drop a bundled prefix
cidr = "203.22.0.0/16"
ignore = true

[[prefix]]                       # replace a bundled prefix's AS
cidr = "69.194.0.0/16"
asn = 4134
source = "corrected"
""",
    )
    table = load_network_table(user)
    assert table.lookup("10.43.9.9").asn == 4809  # type: ignore[union-attr]
    assert table.lookup("10.43.9.9").prefix.origin == str(user)  # type: ignore[union-attr]
    assert table.lookup("202.97.200.7").asn == 64512  # type: ignore[union-attr]
    assert table.lookup("202.97.201.7").asn == 4134  # type: ignore[union-attr]  # the rest of the /16
    assert table.lookup("203.22.1.1") is None
    assert table.lookup("69.194.1.1").asn == 4134  # type: ignore[union-attr]
    assert table.lookup("59.43.1.1").asn == 4809  # type: ignore[union-attr]  # bundled facts stay


def test_the_user_file_is_found_by_environment_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    user = _write(tmp_path, 'version = 1\n[[prefix]]\ncidr = "10.1.0.0/16"\nasn = 4134\nsource = "x"\n')
    monkeypatch.setenv(USER_TABLE_ENV, str(user))
    assert default_user_table_path() == user
    assert load_network_table().lookup("10.1.2.3").asn == 4134  # type: ignore[union-attr]
    assert load_network_table(use_user_file=False).lookup("10.1.2.3") is None


def test_a_missing_default_user_file_is_fine_but_a_named_one_is_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(USER_TABLE_ENV, raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "empty-config"))
    assert load_network_table().lookup("59.43.1.1") is not None
    with pytest.raises(NetworkTableError, match="no such file"):
        load_network_table(tmp_path / "absent.toml")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            'version = 1\n[[prefix]]\ncidr = "59.43.0.0/33"\nasn = 4809\nsource = "x"\n',
            r"prefix #1 \(line 2\): field 'cidr'",
        ),
        (
            'version = 1\n\n[[prefix]]\ncidr = "10.0.0.0/8"\nasn = 4809\nsource = "x"\n\n'
            '[[prefix]]\ncidr = "59.43.1.0/16"\nasn = 4809\nsource = "x"\n',
            r"prefix #2 \(line 8\): field 'cidr': .*host bits set \(did you mean 59\.43\.0\.0/16\?\)",
        ),
        (
            'version = 1\n[[prefix]]\ncdir = "10.0.0.0/8"\nasn = 4809\nsource = "x"\n',
            r"unknown field\(s\) cdir",
        ),
        (
            'version = 1\n[[prefix]]\ncidr = "10.0.0.0/8"\nasn = 4809\n',
            r"field 'source': expected a non-empty string",
        ),
        ('version = 1\n[[prefix]]\ncidr = "10.0.0.0/8"\nasn = "4809"\nsource = "x"\n', r"field 'asn'"),
        (
            'version = 1\n[[prefix]]\ncidr = "10.0.0.0/8"\nasn = 65000\nsource = "x"\n',
            r"AS65000 has no \[\[asn\]\] entry",
        ),
        (
            'version = 1\n[[asn]]\nasn = 1\nbackbone = "cn3"\nname = "n"\nlabel = "l"\nsource = "s"\n',
            r"asn #1 \(line 2\): field 'backbone': expected one of cn2, 163",
        ),
        (
            'version = 1\n[[prefix]]\ncidr = "10.0.0.0/8"\nasn = 4809\nsource = "x"\n'
            '[[prefix]]\ncidr = "10.0.0.0/8"\nasn = 4134\nsource = "y"\n',
            r"prefix #2 \(line 6\): 10\.0\.0\.0/8 is already listed by prefix #1",
        ),
        ("[[prefix]]\n", r"field 'version'"),
        ("version = 1\nprefixes = []\n", r"unknown top-level field\(s\) prefixes"),
        ("version = 1\n[[prefix]\n", r"not valid TOML: .*line 2"),
    ],
)
def test_bad_user_tables_are_refused_with_file_entry_line_and_field(
    tmp_path: Path, text: str, expected: str
) -> None:
    path = _write(tmp_path, text)
    with pytest.raises(NetworkTableError, match=expected) as info:
        load_network_table(path)
    assert str(info.value).startswith(str(path))


def test_a_table_from_a_newer_linkvet_is_refused(tmp_path: Path) -> None:
    with pytest.raises(NetworkTableVersionError, match="version 2 is newer"):
        load_network_table(_write(tmp_path, "version = 2\n"))


def test_the_bundled_table_ships_with_the_package() -> None:
    assert bundled_table_path().name == "networks.toml"
    assert bundled_table_path().is_file()
