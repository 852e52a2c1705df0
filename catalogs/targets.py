"""Turn a catalog region into probe targets in one step.

Returns plain dicts (the measuring side turns them into its own target objects; `catalogs` never imports
`probes`), each with the labels that join measurements back to the catalog: `provider`, `region` and the
vendor's claimed `line_type`.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from catalogs.loader import CatalogSet
from catalogs.schema import Endpoint, Region

# endpoint kind → probe method; looking-glass pages are for people, not probes
METHOD_BY_KIND = {"ping": "icmp", "tcp": "tcp", "http": "http", "http_file": "download", "iperf3": "iperf3"}
IPERF3_DEFAULT_PORT = 5201  # iperf3's own default, used when the catalog gives no port
TargetDict = dict[str, str | int | None]


def _address(endpoint: Endpoint) -> tuple[str | None, int | None, str | None]:
    if endpoint.url is not None:
        parts = urlsplit(endpoint.url)
        url_port: int = parts.port or (443 if parts.scheme == "https" else 80)
        return parts.hostname, url_port, endpoint.url
    port = endpoint.port
    if endpoint.kind == "iperf3" and port is None:
        port = IPERF3_DEFAULT_PORT
    return endpoint.host, port, None


def region_targets(provider_id: str, region: Region) -> list[TargetDict]:
    """Probe targets for every probe-able endpoint of `region`, as plain dicts with the keys
    `name, host, port, url, method, provider, region, line_type`.

    `line_type` is the endpoint's own claimed line when it has one, else the region's first claimed line
    type (its primary claim), else "unknown". A region without endpoints gives an empty list."""
    targets: list[TargetDict] = []
    default_line = region.line_types[0] if region.line_types else "unknown"
    for endpoint in region.endpoints:
        method = METHOD_BY_KIND.get(endpoint.kind)
        if method is None:
            continue
        host, port, url = _address(endpoint)
        shown = host if url is None else url
        targets.append(
            {
                "name": f"{provider_id} {region.id} {method} {shown}",
                "host": host,
                "port": port,
                "url": url,
                "method": method,
                "provider": provider_id,
                "region": region.id,
                "line_type": endpoint.line_type or default_line,
            }
        )
    return targets


def catalog_targets(catalogs: CatalogSet, provider_id: str | None = None) -> list[TargetDict]:
    """`region_targets` for every region of every provider (or of one provider)."""
    targets: list[TargetDict] = []
    for catalog in catalogs.providers:
        if provider_id is None or catalog.provider.id == provider_id:
            for region in catalog.regions:
                targets.extend(region_targets(catalog.provider.id, region))
    return targets
