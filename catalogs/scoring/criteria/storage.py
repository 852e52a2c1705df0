"""Storage: local NVMe for data and checkpoints, a shared (ideally parallel) file system, and the speed of
the storage/management network."""

from __future__ import annotations

from collections.abc import Mapping

from catalogs.scoring.candidates import CandidateFacts
from catalogs.scoring.judgement import Result
from catalogs.scoring.judgement import fmt as _fmt


def local_nvme(facts: CandidateFacts, params: Mapping[str, float], explain: bool) -> Result:
    storage = facts.offering.storage
    if storage is None or storage.local_nvme_tb is None:
        return None, "local NVMe not stated", None
    tb = storage.local_nvme_tb
    score = min(1.0, tb / params["good_tb"])
    if not explain:
        return score, "", None
    return score, f"{_fmt(tb)} TB local NVMe", facts.offering.fact("storage.local_nvme_tb")


def shared_storage(facts: CandidateFacts, params: Mapping[str, float], explain: bool) -> Result:
    storage = facts.offering.storage
    if storage is None or (storage.parallel_fs is None and storage.shared_fs is None):
        return None, "shared file system not stated", None
    if storage.parallel_fs:
        score, text = params["parallel"], f"parallel file system ({storage.shared_fs or 'named'})"
    elif storage.shared_fs is None or storage.shared_fs.lower() == "none":
        score, text = params["none"], "no shared file system"
    else:
        score, text = params["nas"], f"{storage.shared_fs} (not a parallel file system)"
    return (score, text, facts.offering.fact("storage.shared_fs")) if explain else (score, "", None)


def storage_network(facts: CandidateFacts, params: Mapping[str, float], explain: bool) -> Result:
    storage = facts.offering.storage
    if storage is None or storage.network_gbit_s is None:
        return None, "storage/management NIC speed not stated", None
    have = storage.network_gbit_s
    score = 1.0 if have >= params["min_gbit_s"] else have / params["min_gbit_s"]
    if not explain:
        return score, "", None
    return score, f"{_fmt(have)} Gbit/s storage/management NIC", facts.offering.fact("storage.network_gbit_s")
