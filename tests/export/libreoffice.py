"""LibreOffice headless as a real spreadsheet client (skips with the reason when it is not installed)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest


def soffice() -> str:
    binary = shutil.which("soffice") or shutil.which("libreoffice")
    if binary is None:
        pytest.skip(
            "LibreOffice is not installed (apt-get install libreoffice-calc-nogui); .ci/run installs it"
        )
    return binary


def convert(
    source: Path, target_filter: str, out_dir: Path, profile: Path
) -> subprocess.CompletedProcess[str]:
    """`soffice --headless --convert-to FILTER`, with a private profile (a shared one would hand the job
    to another running LibreOffice, or block on its lock)."""
    return subprocess.run(
        [
            soffice(),
            f"-env:UserInstallation={profile.as_uri()}",
            "--headless",
            "--norestore",
            "--convert-to",
            target_filter,
            "--outdir",
            str(out_dir),
            str(source),
        ],
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )


# All sheets, comma separated, UTF-8, cell contents as stored (not as shown): LibreOffice 7.2+ writes one
# file per sheet, NAME-SHEET.csv.
ALL_SHEETS_CSV = "csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,false,false,false,-1"
