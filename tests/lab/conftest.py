"""The emulated-link lab as a pytest fixture: one lab per session (office + two regions), torn down on
every exit path. Without root (or namespaces, TUN) the lab tests skip and say why."""

from __future__ import annotations

import shutil
from collections.abc import Iterator

import pytest

from tests.lab.netlab import Lab, install_sigterm_teardown, lab_unavailable_reason


@pytest.fixture(scope="session")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    reason = lab_unavailable_reason()
    if reason:
        pytest.skip(reason)
    install_sigterm_teardown()
    with Lab(tmp_path_factory.mktemp("lab"), regions=("r1", "r2")) as running:
        yield running


def needs(*tools: str) -> pytest.MarkDecorator:
    """Skip (saying which) when an anchor or peer program is not installed; `.ci/run` installs them all."""
    missing = [tool for tool in tools if shutil.which(tool) is None]
    return pytest.mark.skipif(
        bool(missing), reason=f"needs {', '.join(missing)} (apt-get install fping iputils-ping iperf3 curl)"
    )
