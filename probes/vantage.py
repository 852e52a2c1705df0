"""Vantage points: where a round was measured from (an office, named by its plan or `--vantage`).

Rounds that named none were measured from `THIS_MACHINE`: one office of its own in the store, the analyses
and the faces (which show it as "this machine"), never a missing value beside the named ones.
"""

from __future__ import annotations

THIS_MACHINE = "this-machine"


def vantage_of(named: str | None) -> str:
    """The vantage point of a round that named `named` (None or empty: `THIS_MACHINE`)."""
    return named or THIS_MACHINE
