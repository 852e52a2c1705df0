"""The acceptance report's format: a JSON object, versioned.

    format          "linkvet-acceptance-report"
    format_version  1
    tool            {name, version}
    host            {hostname, kernel, privileged}
    created_at      UTC, ISO 8601 with "Z"
    mode            "live" | "replay"; machine (in words); recorded_to
    read            [{reader, source, method, status ("read" | "not read"), path, reason}]
    facts           {gpus, topology, rdma, ethernet, nvme, fio, management, nccl, return_route, office}
                    — every raw figure, each section null when it could not be read
    claims          {provider, offering, region, catalog_file} or null (added with --provider/--offering)
    needs           {name, internode_gbit_s, …} or null (added with --needs)
    checks          [{fact, scope, claimed, measured, verdict, evidence, catalog_value, claim_source, …}]
    summary         {confirmed, contradicted, unverified}

`load_report` reads one back (for `linkvet accept import`): a file of another format, or of a newer
version, is a ReportFormatError.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from probes.accept.errors import ReadError, ReportFormatError
from probes.accept.machine import read_file
from probes.files.inputfile import parse_json
from probes.i18n import _

FORMAT = "linkvet-acceptance-report"
FORMAT_VERSION = 1
VERDICTS = ("confirmed", "contradicted", "unverified")


def load_report(path: Path) -> dict[str, Any]:
    text = read_file(path)
    data = parse_json(
        text,
        lambda message, line: ReadError(
            str(path), message, line=line, expected=_("a linkvet acceptance report")
        ),
    )
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        found = data.get("format") if isinstance(data, dict) else None
        raise ReportFormatError(
            _("{file}: not a linkvet acceptance report (format {format!r})").format(file=path, format=found)
        )
    version = data.get("format_version")
    if not isinstance(version, int) or version < 1:
        raise ReportFormatError(
            _("{file}: format_version {version!r} is not a version number").format(file=path, version=version)
        )
    if version > FORMAT_VERSION:
        raise ReportFormatError(
            _(
                "{file}: format_version {version} is newer than this linkvet understands ({known}); update linkvet"
            ).format(file=path, version=version, known=FORMAT_VERSION)
        )
    for field, expected in (("checks", list), ("host", dict), ("claims", dict), ("facts", dict)):
        if data.get(field) is not None and not isinstance(data[field], expected):
            raise ReportFormatError(
                _("{file}: {field}: expected {expected}, got {found}").format(
                    file=path,
                    field=field,
                    expected=_("a list") if expected is list else _("an object"),
                    found=type(data[field]).__name__,
                )
            )
    for index, check in enumerate(data.get("checks") or []):
        if not isinstance(check, dict) or check.get("verdict") not in VERDICTS:
            raise ReportFormatError(
                _("{file}: checks[{index}] has no verdict among {verdicts}").format(
                    file=path, index=index, verdicts=", ".join(VERDICTS)
                )
            )
    return data
