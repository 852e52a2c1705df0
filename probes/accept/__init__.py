"""`linkvet accept`'s readers: what the rented GPU server itself says about its hardware and its return
route, read without root where the kernel allows it, and recorded or replayed for tests and support.

Imports neither Qt nor `catalogs`: the comparison with a vendor's claims lives in `catalogs.acceptance`.

Where things are:
    machine.py           where readers read from: LiveMachine (optionally recording), ReplayMachine; bounded reads
    gpus.py              GPUs: NVML (nvidia-ml-py, optional), `nvidia-smi -q -x`, `nvidia-smi nvlink -s`
    topology.py          `nvidia-smi topo -m` → GPU pairs and the node verdict (all NVLink, islands, PCIe only)
    fabric.py            InfiniBand / RoCE ports and Ethernet NIC speeds from sysfs
    storage.py           NVMe from /sys/block; fio (a bounded run or a user's JSON)
    management.py        BMC/IPMI presence and power supplies (`ipmitool`, SMBIOS type 38)
    nccl.py              all_reduce_perf logs and JSON, the peak bus bandwidth at ≥ 1 GiB; a bounded run
    nccl_reference.py    the reference table (nccl_reference.toml, each figure with its source) and the judgement
    return_route.py      traces to China carrier endpoints (carriers.toml) classified; the office round trip
    collect.py           run every reader → the report's facts and `read` list
    report.py            the report format (name, version) and `load_report`
    errors.py            the exception tree
"""

from probes.accept.collect import AcceptOptions, collect
from probes.accept.errors import AcceptError, ReadError, ReportFormatError
from probes.accept.report import FORMAT, FORMAT_VERSION, load_report

__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "AcceptError",
    "AcceptOptions",
    "ReadError",
    "ReportFormatError",
    "collect",
    "load_report",
]
