"""The evaluation's evidence table in the terminal (`linkvet eval show`): one row per candidate with each kind
of evidence's state, then per candidate what each cell says and the commands that fill what is missing."""

from __future__ import annotations

from typing import TextIO

from desktop.cli._format import table
from desktop.cli._safe_text import printable
from desktop.i18n import _, ngettext, vantage_name
from desktop.usecases.evidence import KINDS, EvidenceTable
from probes.timestamps import iso_utc
from probes.vantage import THIS_MACHINE


def kind_title(kind: str) -> str:
    return {
        "line": _("line"),
        "load": _("under load"),
        "throughput": _("throughput"),
        "route_out": _("route out"),
        "route_back": _("route back"),
        "questionnaire": _("answers"),
        "acceptance": _("acceptance"),
        "price": _("price"),
    }[kind]


def state_word(state: str) -> str:
    return {
        "missing": _("missing"),
        "partial": _("partial"),
        "done": _("done"),
        "contradicted": _("contradicted"),
    }[state]


def print_evidence(evidence: EvidenceTable, out: TextIO) -> None:
    evaluation = evidence.evaluation
    offices = ", ".join(
        printable(vantage_name(o.name)) + (f" ({o.carrier})" if o.carrier else "") for o in evaluation.offices
    ) or printable(vantage_name(evidence.offices[0]))
    decide = {
        "worst": _("the worse office decides"),
        "each": _("each office side by side"),
    }.get(evaluation.decide_by, _("{office} decides").format(office=evaluation.decide_by))
    print(
        _("evaluation {name}: offices {offices} ({decide}); peak {windows}").format(
            name=evaluation.name,
            offices=offices,
            decide=decide,
            windows=", ".join(str(w) for w in evaluation.peak_windows),
        ),
        file=out,
    )
    print_agents(evidence, out)
    if not evidence.candidates:
        print(
            _("no candidate yet: linkvet eval add {name} --provider ID --region ID --test-ip ADDRESS").format(
                name=evaluation.name
            ),
            file=out,
        )
        return
    headers = [_("CANDIDATE"), *(kind_title(k).upper() for k in KINDS)]
    rows = [
        [printable(c.candidate.label), *(state_word(c.cells[k].state) for k in KINDS)]
        for c in evidence.candidates
    ]
    print(file=out)
    table(headers, rows, out)
    for row in evidence.candidates:
        print(file=out)
        print(printable(row.candidate.label), file=out)
        for kind in KINDS:
            cell = row.cells[kind]
            print(
                "  " + _("{kind}: {text}").format(kind=kind_title(kind), text=printable(cell.text)), file=out
            )
        steps = row.next
        if steps:
            print("  " + _("next:"), file=out)
            for step in steps:
                print(f"    {printable(step)}", file=out)


def agent_state_word(state: str) -> str:
    return {
        "measuring": _("measuring"),
        "spooling": _("measuring, rounds waiting in its spool"),
        "silent": _("silent"),
        "none": _("no agent"),
    }[state]


def print_agents(evidence: EvidenceTable, out: TextIO) -> None:
    """Every office's agent, as its health in the store says."""
    print(_("agents:"), file=out)
    for agent in evidence.agents:
        office = printable(vantage_name(agent.office)) + (f" ({agent.carrier})" if agent.carrier else "")
        h = agent.health
        if h is None:
            start = "linkvet agent" + (f" --vantage {agent.office}" if agent.office != THIS_MACHINE else "")
            print(
                "  "
                + _("{office}: no agent has reported (start `{command} --db STORE` there)").format(
                    office=office, command=start
                ),
                file=out,
            )
            continue
        last = iso_utc(h.last_round_us) if h.last_round_us else _("none yet")
        print(
            "  "
            + ngettext(
                "{office}: {state}; {host} (pid {pid}, linkvet {version}); last round {last}; {count} round "
                "in its spool; said {said}",
                "{office}: {state}; {host} (pid {pid}, linkvet {version}); last round {last}; {count} rounds "
                "in its spool; said {said}",
                h.spooled_rounds,
            ).format(
                office=office,
                state=agent_state_word(agent.state),
                host=printable(h.host),
                pid=h.pid or "-",
                version=printable(h.version or "?"),
                last=last,
                count=h.spooled_rounds,
                said=iso_utc(h.updated_us),
            ),
            file=out,
        )
        if h.carrier and agent.carrier and h.carrier != agent.carrier:
            print(
                "    "
                + _("the agent says its line is on {agent}, the evaluation says {evaluation}").format(
                    agent=h.carrier, evaluation=agent.carrier
                ),
                file=out,
            )
