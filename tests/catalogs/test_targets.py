"""A catalog region becomes probe targets in one step: plain dicts with the contract's labels."""

from __future__ import annotations

from catalogs.loader import load_catalogs
from catalogs.targets import catalog_targets, region_targets
from tests.catalogs._builders import catalog, region

ENDPOINTS = """
[[regions.endpoints]]
kind = "ping"
host = "198.18.0.10"
[[regions.endpoints]]
kind = "tcp"
host = "198.18.0.10"
port = 22
line_type = "bgp"
[[regions.endpoints]]
kind = "http_file"
url = "https://speed.example.test:8443/100mb.bin"
[[regions.endpoints]]
kind = "http"
url = "http://lg.example.test/ping"
[[regions.endpoints]]
kind = "looking_glass"
url = "https://lg.example.test/"
[[regions.endpoints]]
kind = "iperf3"
host = "198.18.0.11"
"""


def test_every_probe_able_endpoint_becomes_a_target() -> None:
    acme = catalog("acme", region("los-angeles", '["cn2-gia", "bgp"]', ENDPOINTS))
    targets = region_targets("acme", acme.regions[0])
    assert [t["method"] for t in targets] == ["icmp", "tcp", "download", "http", "iperf3"]  # no looking glass
    assert all(
        set(t) == {"name", "host", "port", "url", "method", "provider", "region", "line_type"}
        for t in targets
    )
    icmp, tcp, download, http, iperf3 = targets
    assert icmp == {
        "name": "acme los-angeles icmp 198.18.0.10",
        "host": "198.18.0.10",
        "port": None,
        "url": None,
        "method": "icmp",
        "provider": "acme",
        "region": "los-angeles",
        "line_type": "cn2-gia",
    }
    assert tcp["port"] == 22 and tcp["line_type"] == "bgp"  # the endpoint's own claim wins
    assert (download["host"], download["port"]) == ("speed.example.test", 8443)
    assert (http["host"], http["port"]) == ("lg.example.test", 80)
    assert iperf3["port"] == 5201


def test_region_without_claims_or_endpoints() -> None:
    acme = catalog(
        "acme", region("nowhere", "[]", '[[regions.endpoints]]\nkind = "ping"\nhost = "198.18.0.1"\n')
    )
    (target,) = region_targets("acme", acme.regions[0])
    assert target["line_type"] == "unknown"
    bare = catalog("acme", region("bare"))
    assert region_targets("acme", bare.regions[0]) == []


def test_bundled_regions_give_targets_with_sources_kept() -> None:
    loaded = load_catalogs()
    do = catalog_targets(loaded, "digitalocean")
    assert {(t["method"], t["host"]) for t in do} == {
        ("download", "speedtest-tor1.digitalocean.com"),
        ("icmp", "speedtest-tor1.digitalocean.com"),
    }
    aws = [t for t in catalog_targets(loaded, "aws") if t["region"] == "us-east-1"]
    assert {"icmp", "http", "download"} <= {t["method"] for t in aws}
    assert catalog_targets(loaded, "raksmart") == []  # no nameable RakSmart endpoint: none invented
