"""Rebuild the bundled cloud catalogs (`catalogs/providers/*.toml`, except the hand-written ones) from
linkvet's reference data: SkyPilot-format CSVs, the public test endpoints table, and a few extra facts, each
with its source. Maintainers only: needs the reference data folder (default `/work/shared/data`).

    python catalogs/maintenance/build_bundled.py [DATA_DIR]

Hand-written catalogs (raksmart.toml) are not touched. Review the diff before committing.
"""

from __future__ import annotations

import csv
import re
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from catalogs.skypilot import catalog_to_toml, import_skypilot_csv

READ_ON = "2026-11-30"  # when the reference data was read; the SkyPilot commits' own dates are unknown
OUT = Path(__file__).resolve().parents[1] / "providers"

PROVIDERS = {
    # file: (provider id, name, catalog path, commit)
    "aws_gpu.csv": (
        "aws",
        "Amazon Web Services (EC2)",
        "catalogs/v8/aws/vms.csv",
        "00148f2af3672e2229b4f7bf8157d5a3f36e3c35",
    ),
    "gcp_gpu.csv": (
        "gcp",
        "Google Cloud (Compute Engine)",
        "catalogs/v8/gcp/vms.csv",
        "006059e0f18acb1341e22a27751e9f80df6ba92f",
    ),
    "lambda_gpu.csv": (
        "lambda",
        "Lambda",
        "catalogs/v8/lambda/vms.csv",
        "0f4070387edc953d7004cff197940e1918a1d6aa",
    ),
    "cudo_gpu.csv": (
        "cudo",
        "Cudo Compute",
        "catalogs/v8/cudo/vms.csv",
        "113567a74b2f208af08e0c9236e26cc354a2bf65",
    ),
    "do_gpu.csv": (
        "digitalocean",
        "DigitalOcean",
        "catalogs/v6/do/vms.csv",
        "1fbe7331dd1f13d70ac4f249bb7ee7a659fc6b6a",
    ),
    "fluidstack_gpu.csv": (
        "fluidstack",
        "Fluidstack",
        "catalogs/v6/fluidstack/vms.csv",
        "002403bca05e2ab5110637448f3b1654c983d5d5",
    ),
    "paperspace_gpu.csv": (
        "paperspace",
        "Paperspace",
        "catalogs/v6/paperspace/vms.csv",
        "e520054145d1bce6748bcf18c9a25ddd6ea9a348",
    ),
}

# endpoints.csv provider labels that belong to each catalog provider
ENDPOINT_LABELS = {
    "aws": ("AWS", "AWS (CloudHarmony probe)"),
    "gcp": ("Google Cloud (CloudHarmony probe)",),
    "digitalocean": ("DigitalOcean",),
}

# City (and country) read from the vendor's own region id, for providers whose ids spell it out.
CITY_FROM_ID: dict[str, dict[str, tuple[str | None, str]]] = {
    "cudo": {
        "ca-montreal-3": ("Montreal", "CA"),
        "no-kristiansand-1": ("Kristiansand", "NO"),
        "us-carlsbad-1": ("Carlsbad", "US"),
    },
    "fluidstack": {
        "utah_usa": (None, "US"),
        "arizona_usa": (None, "US"),
        "north_dakota_usa": (None, "US"),
        "canada": (None, "CA"),
        "finland": (None, "FI"),
    },
}

P4D_GIST = "https://gist.github.com/shashankprasanna/10ebe6dc1ba1d8d93db17da4e2cc890e"


def _endpoint_rows(data_dir: Path) -> list[dict[str, str]]:
    with (data_dir / "endpoints.csv").open(encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def _add_endpoints(provider_id: str, catalog: dict[str, Any], rows: list[dict[str, str]]) -> None:
    labels = ENDPOINT_LABELS.get(provider_id, ())
    by_region = {region["id"]: region for region in catalog["regions"]}
    for row in rows:
        if row["provider"] not in labels or row["source"].endswith("[traceroute target]"):
            continue
        region_id = row["region"].strip().lower()
        target = row["host_or_url"].strip()
        if not region_id:
            # pingbench rows name no region: match the region id spelled inside the host name
            region_id = next(
                (rid for rid in by_region if re.search(rf"(^|[.-]){re.escape(rid)}([.-]|$)", target)), ""
            )
        region = by_region.get(region_id)
        if region is None:
            continue
        source = "linkvet reference data endpoints.csv, from " + row["source"]
        dated = re.search(r"\((\d{4}-\d{2}-\d{2})\)", row["source"])
        as_of = dated.group(1) if dated else READ_ON  # the source's own date when it gives one
        if row["kind"] == "ping" and target.startswith("http"):
            endpoint = {"kind": "http", "url": target, "note": "HTTP /ping; awsping appends ?x=<random>"}
        elif row["kind"] == "ping":
            endpoint = {"kind": "ping", "host": target}
        elif row["kind"] == "http_file":
            note = "test file; the source is from 2020 and *.cloudharmony.net may no longer exist"
            endpoint = {"kind": "http_file", "url": target}
            if "cloudharmony" in target:
                endpoint["note"] = note
        else:
            continue
        endpoint["source"] = source
        endpoint["as_of"] = as_of
        existing = region.setdefault("endpoints", [])
        if not any(
            e.get("host") == endpoint.get("host") and e.get("url") == endpoint.get("url") for e in existing
        ):
            existing.append(endpoint)
        if row["city"] and "city" not in region:
            region["city"] = {"value": row["city"], "source": source, "as_of": as_of}
        if row["country"] and "country" not in region:
            region["country"] = {"value": row["country"], "source": source, "as_of": as_of}


def _extras(provider_id: str, catalog: dict[str, Any]) -> None:
    offerings = {o["id"]: o for o in catalog["offerings"]}
    if provider_id == "aws" and "p4d.24xlarge" in offerings:
        offerings["p4d.24xlarge"]["intra_node"] = {
            "kind": "nvlink",
            "bandwidth_gbytes_s": 600,
            "source": f"third-party gist of EC2 GPU instances ({P4D_GIST}): p4d.24xlarge 'NVLink gen 3 (600 GB/s)'",
            "as_of": READ_ON,
        }
    if provider_id == "gcp" and "h100-mega-x8" in offerings:
        offerings["h100-mega-x8"]["inter_node"] = {
            "fabric": "other",
            "note": "GPUDirect-TCPXO (GCP A3 Mega); bandwidth and RDMA not stated by the source",
            "source": "dstackai/dstack pull 3152 (docs/concepts/fleets.md): GPUDirect-TCPXO for A3 Mega; "
            "SkyPilot's H100-MEGA = a3-megagpu per linkvet's reference data README",
            "as_of": READ_ON,
        }
    if provider_id == "lambda":
        catalog["provider"]["website"] = "https://lambda.ai"
        catalog["offerings"].append(
            {
                "id": "1-click-cluster-h100-sxm",
                "name": "1-Click Cluster, H100 SXM",
                "gpu": "H100 SXM",
                "max_gpus": 2000,
                "intra_node": {
                    "kind": "nvlink",
                    "bandwidth_gbytes_s": 900,
                    "derived": True,
                    "source": "GPU reference 'H100 SXM' (NVLink 4, 900 GB/s per GPU); the GPU is named 'H100 SXM' "
                    "by the source",
                    "as_of": "2026-08-22",
                },
                "inter_node": {
                    "fabric": "infiniband",
                    "rdma": {
                        "value": True,
                        "source": "derived: InfiniBand carries RDMA natively",
                        "as_of": READ_ON,
                    },
                    "source": "KalarisLabs/research-agent-skills skills/lambda-labs-gpu-cloud/SKILL.md (third-party): "
                    "'1-Click Clusters: 16-512 GPU Slurm clusters with InfiniBand'; bandwidth not stated",
                    "as_of": READ_ON,
                },
                "notes": "Clusters of 16 to 2,000+ H100 SXM GPUs (api-evangelist/lambda-labs apis.yml, generated "
                "2026-08-28). GPUs per node, regions and price are not stated by these sources.",
                "source": "api-evangelist/lambda-labs apis.yml (third-party index of Lambda's offer): '1-Click "
                "Clusters of 16-2,000+ interconnected H100 SXM or B200 GPUs'",
                "as_of": "2026-08-28",
            }
        )
    for region in catalog["regions"]:
        city_country = CITY_FROM_ID.get(provider_id, {}).get(region.get("name", region["id"]).lower())
        if city_country is None:
            city_country = CITY_FROM_ID.get(provider_id, {}).get(region["id"])
        if city_country:
            city, country = city_country
            label = region.get("name", region["id"])
            source = f"read from the vendor's region id {label!r}"
            if city:
                region["city"] = {"value": city, "source": source, "as_of": READ_ON}
            region["country"] = {"value": country, "source": source, "as_of": READ_ON}


def build(data_dir: Path) -> None:
    rows = _endpoint_rows(data_dir)
    for filename, (provider_id, name, catalog_path, commit) in PROVIDERS.items():
        source = (
            f"skypilot-org/skypilot-catalog@{commit[:7]}:{catalog_path} (GPU rows, via linkvet reference data "
            f"skypilot/{filename}); prices are a point-in-time snapshot"
        )
        result = import_skypilot_csv(
            data_dir / "skypilot" / filename,
            provider_id=provider_id,
            provider_name=name,
            source=source,
            as_of=READ_ON,
        )
        _add_endpoints(provider_id, result.catalog, rows)
        _extras(provider_id, result.catalog)
        header = (
            f"{name}: GPU offerings from SkyPilot's public catalog ({catalog_path} at {commit[:7]}).\n"
            "Built by catalogs/maintenance/build_bundled.py from linkvet's reference data; edit freely (see README).\n"
            f"as_of {READ_ON} is when the data was read: the catalog commit's own date is unknown.\n"
            "Facts the sources do not state (fabric, storage, power, cooling, support, ...) are left out = unknown."
        )
        for warning in result.warnings:
            print(f"{provider_id}: {warning}")
        (OUT / f"{provider_id}.toml").write_text(catalog_to_toml(result.catalog, header), encoding="utf-8")
        print(
            f"wrote {provider_id}.toml: {len(result.catalog['offerings'])} offerings, {len(result.catalog['regions'])} regions"
        )


if __name__ == "__main__":
    build(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("/work/shared/data"))
