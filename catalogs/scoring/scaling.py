"""From a criterion's own score to what it counts in the total: the one place these formulas are written.

Every criterion scores a candidate on a fixed scale (the checklist's params, the needs profile, physical and
published references), never relative to the other candidates: a candidate's score and bounds are the same
whatever else is ranked beside it. Only the rank and TOPSIS's closeness depend on the others.

- An unknown score counts as the checklist's `unknown_score`.
- Some scores depend on the plan's node shape, not only on the offering (`plan_shape`, `scaled`): the GPU link
  inside a node is worth what it joins (2 GPUs per node for a 32-GPU job join little), and the fabric between
  nodes weighs more the more nodes lean on it. A score s (or the unknown score) counts as m·s·r^(1−s), with m
  the share of a full node's GPUs the plan's nodes join (intra-node link) and r = 1/nodes (the fabric
  criteria of `[multi_node]`): a fabric scoring 1 keeps its 1, a weak or unknown one loses more per node.

The ranking applies these to its whole table at once (numpy); the explanation reads the table's numbers and
asks `scaling_reason` only for the words.
"""

from __future__ import annotations

import numpy as np

from catalogs.checklist import Checklist
from catalogs.i18n import _, clauses
from catalogs.scoring.candidates import CandidateFacts


def _intra_reach(facts: CandidateFacts, full_node: int) -> tuple[float, int, int] | None:
    """(share, GPUs per node used, GPUs a full node would join) for the intra-node link, when under 1."""
    planned, per_node = facts.planned_gpus, facts.gpus_per_node
    if not planned or planned <= 1 or not per_node or per_node <= 1:
        return None
    used, full = min(planned, per_node), min(planned, full_node)
    return (used / full, used, full) if used < full else None


def _spans_nodes(facts: CandidateFacts) -> int | None:
    """The number of nodes when the plan spans more than one and so leans on the fabric, else None."""
    nodes = facts.nodes
    return nodes if facts.needs_fabric and nodes and nodes > 1 else None


def plan_shape(facts: CandidateFacts, full_node_gpus: int) -> tuple[float, float]:
    """(m, r) of the candidate's plan, 1.0 where it does not scale: m for the intra-node link (the GPUs per
    node it joins / the GPUs a full node would join), r for the fabric criteria (1/nodes when the plan spans
    nodes)."""
    reach = _intra_reach(facts, full_node_gpus)
    nodes = _spans_nodes(facts)
    return (reach[0] if reach else 1.0), (1.0 / nodes if nodes else 1.0)


def scaled(score: np.ndarray, multiplier: np.ndarray, ratio: np.ndarray) -> np.ndarray:
    """m·s·r^(1−s), element by element: what a score s counts for the plan's node shape."""
    return np.asarray(multiplier * score * ratio ** (1.0 - score))


def scaling_reason(facts: CandidateFacts, criterion: str, checklist: Checklist) -> str:
    """Why the plan's node shape scales `criterion` for this candidate ("" when it does not)."""
    why = []
    if criterion == "intra_node":
        reach = _intra_reach(facts, checklist.multi_node.full_node_gpus)
        if reach is not None:
            _share, used, full = reach
            nodes = facts.nodes
            if nodes:
                text = _(
                    "it joins {used} GPUs per node of the {full} a full node would (the plan needs {nodes} nodes "
                    "of {used})"
                )
            else:
                text = _("it joins {used} GPUs per node of the {full} a full node would")
            why.append(text.format(used=used, full=full, nodes=nodes))
    nodes = _spans_nodes(facts)
    if criterion in checklist.multi_node.criteria and nodes:
        why.append(
            _(
                "the plan spans {nodes} nodes, and a weak or unknown fabric weighs more with every node"
            ).format(nodes=nodes)
        )
    return clauses(why)
