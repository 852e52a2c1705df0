"""Storage: local NVMe for data and checkpoints, a shared (ideally parallel) file system, and the speed of
the storage/management network."""

from __future__ import annotations

from collections.abc import Mapping

from catalogs.i18n import _
from catalogs.scoring.candidates import CandidateFacts
from catalogs.scoring.judgement import Result
from catalogs.scoring.judgement import fmt as _fmt


def local_nvme(facts: CandidateFacts, params: Mapping[str, float], explain: bool) -> Result:
    storage = facts.offering.storage
    if storage is None or storage.local_nvme_tb is None:
        return None, _("local NVMe not stated"), None
    tb = storage.local_nvme_tb
    score = min(1.0, tb / params["good_tb"])
    if not explain:
        return score, "", None
    return score, _("{tb} TB local NVMe").format(tb=_fmt(tb)), facts.offering.fact("storage.local_nvme_tb")


def shared_storage(facts: CandidateFacts, params: Mapping[str, float], explain: bool) -> Result:
    storage = facts.offering.storage
    if storage is None or (storage.parallel_fs is None and storage.shared_fs is None):
        return None, _("shared file system not stated"), None
    if storage.parallel_fs:
        score = params["parallel"]
        if storage.shared_fs:
            text = _("parallel file system ({name})").format(name=storage.shared_fs)
        else:
            text = _("parallel file system (not named)")
    elif storage.shared_fs is None or storage.shared_fs.lower() == "none":
        score, text = params["none"], _("no shared file system")
    else:
        score = params["nas"]
        text = _("{name} (not a parallel file system)").format(name=storage.shared_fs)
    return (score, text, facts.offering.fact("storage.shared_fs")) if explain else (score, "", None)


def storage_network(facts: CandidateFacts, params: Mapping[str, float], explain: bool) -> Result:
    storage = facts.offering.storage
    if storage is None or storage.network_gbit_s is None:
        return None, _("storage/management NIC speed not stated"), None
    have = storage.network_gbit_s
    score = 1.0 if have >= params["min_gbit_s"] else have / params["min_gbit_s"]
    if not explain:
        return score, "", None
    text = _("{gbit} Gbit/s storage/management NIC").format(gbit=_fmt(have))
    return score, text, facts.offering.fact("storage.network_gbit_s")
