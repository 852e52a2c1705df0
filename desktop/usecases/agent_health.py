"""Every office's agent of an evaluation, as its health in the store says (`linkvet eval show`, its JSON, the
window): one entry per office of the evaluation (this machine where it names none), and any other agent that
said it measures for it, each with what it last said (`probes.store.AgentHealth`) and a state:

    measuring   it said so within `SILENT_AFTER` of the evaluation's off-peak cadence, nothing in its spool
    spooling    it said so recently, with rounds waiting in its spool (its store refused them, or was away)
    silent      its last word is older than that: the agent stopped, or its machine or line is down
    none        no agent of this office has said anything for this evaluation

An agent says its health before each round and after each stored one, so the cadence bounds its silence.
No Qt.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from catalogs.evaluation.model import Evaluation
from probes.timestamps import iso_utc
from probes.vantage import THIS_MACHINE

if TYPE_CHECKING:
    from probes.store import AgentHealth

AgentState = Literal["measuring", "spooling", "silent", "none"]
SILENT_AFTER = 3  # off-peak cadences without a word: silent
DEFAULT_EVERY_S = 300.0  # `desktop.usecases.evaluation_plan.EVERY`


@dataclass(frozen=True, slots=True)
class OfficeAgent:
    """An office and its agent's last word (None: none has reported for the evaluation)."""

    office: str
    carrier: str | None  # the evaluation's word on the office's carrier
    health: AgentHealth | None
    state: AgentState

    def as_dict(self) -> dict[str, Any]:
        h = self.health
        return {
            "office": self.office,
            "carrier": self.carrier,
            "state": self.state,
            "host": h.host if h else None,
            "pid": h.pid if h else None,
            "version": h.version if h else None,
            "agent_carrier": h.carrier if h else None,
            "last_round": iso_utc(h.last_round_us) if h and h.last_round_us else None,
            "spooled_rounds": h.spooled_rounds if h else None,
            "said": iso_utc(h.updated_us) if h else None,
        }


def state_of(health: AgentHealth | None, evaluation: Evaluation, now_us: int) -> AgentState:
    if health is None:
        return "none"
    every_s = evaluation.schedule.every_s or DEFAULT_EVERY_S
    if now_us - health.updated_us > SILENT_AFTER * every_s * 1e6:
        return "silent"
    return "spooling" if health.spooled_rounds else "measuring"


def office_agents(
    evaluation: Evaluation, said: Sequence[AgentHealth], now_us: int
) -> tuple[OfficeAgent, ...]:
    """The evaluation's offices (in its order) with their agents' health, then any other agent that reported
    for it (an office taken out since, an agent started with another name)."""
    by_office = {h.vantage: h for h in said if h.evaluation_or_plan == evaluation.name}
    offices = [(o.name, o.carrier) for o in evaluation.offices] or [(THIS_MACHINE, None)]
    out = [
        OfficeAgent(name, carrier, by_office.get(name), state_of(by_office.get(name), evaluation, now_us))
        for name, carrier in offices
    ]
    named = {name for name, _carrier in offices}
    out += [
        OfficeAgent(vantage, None, health, state_of(health, evaluation, now_us))
        for vantage, health in sorted(by_office.items())
        if vantage not in named
    ]
    return tuple(out)
