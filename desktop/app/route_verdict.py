"""The Routes screen's verdict panel: each trace's verdict with its rule and the rule's source, the deciding
hops with their prefixes' sources, the doubts, the verdict over several traces and the claim checks. The
sentences are the core's (`probes.routes`, as `TraceResult.as_dict()` and the child's report carry them);
the panel's own words are the window's language."""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

from PySide6.QtWidgets import QTextBrowser, QWidget

from probes.target import Target


class RouteVerdictView(QTextBrowser):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setOpenLinks(False)

    def show_run(
        self,
        targets: Sequence[Target],
        finished: Sequence[tuple[int, int, dict[str, Any]]],
        done: dict[str, Any] | None,
    ) -> None:
        """Per target its finished traces' verdicts (`TraceResult.as_dict()`), then the merged verdict and the
        claim checks of the child's final report (`done`, None while the run goes on)."""
        esc = html.escape
        words = {
            "error": esc(self.tr("Error")),
            "verdict": esc(self.tr("Verdict")),
            "source": esc(self.tr("source")),
            "rule": esc(self.tr("Rule")),
            "hop": esc(self.tr("hop {ttl}")),
            "evidence": esc(self.tr("Evidence")),
            "doubts": esc(self.tr("Doubts")),
            "merged": esc(self.tr("Over all traces")),
        }
        out: list[str] = []
        for number, target in enumerate(targets):
            mine = [d for n, _i, d in finished if n == number]
            if not mine:
                continue
            out.append(f"<h3>{esc(str(target.name or target.host))}</h3>")
            for trace in mine:
                if trace.get("error"):
                    out.append(f"<p><b>{words['error']}</b>: {esc(str(trace.get('message') or ''))}</p>")
                    continue
                verdict = trace.get("verdict")
                if verdict is None:
                    continue
                out.append(
                    f"<p><b>{words['verdict']}: {esc(verdict['class'])}</b> — "
                    f"{esc(verdict['explanation'])}</p>"
                )
                rule = esc(verdict["rule"]) + (
                    f" ({words['source']}: {esc(verdict['rule_source'])})" if verdict["rule_source"] else ""
                )
                out.append(f"<p>{words['rule']}: {rule}</p>")
                if verdict["evidence"]:
                    items = "".join(
                        f"<li>{words['hop'].format(ttl=e['ttl'])} {esc(e['address'])} {esc(e['label'])} "
                        f"AS{e['asn']} {esc(e['prefix'])} — {esc(e['source'])}</li>"
                        for e in verdict["evidence"]
                    )
                    out.append(f"<p>{words['evidence']}:</p><ul>{items}</ul>")
                if verdict["doubts"]:
                    items = "".join(f"<li>{esc(d)}</li>" for d in verdict["doubts"])
                    out.append(f"<p>{words['doubts']}:</p><ul>{items}</ul>")
                if trace.get("message"):
                    out.append(f"<p><i>{esc(str(trace['message']))}</i></p>")
            merged = (done or {}).get("merged") or []
            if number < len(merged) and merged[number] and merged[number]["traces"] > 1:
                summary = merged[number]
                out.append(f"<p><b>{words['merged']}</b>: {esc(summary['summary'])}</p>")
        report = done or {}
        for key, title in (
            ("claim", self.tr("Claim check")),
            ("stored_claim", self.tr("Claim check over the region's stored traces")),
        ):
            check = report.get(key)
            if check:
                flag = {True: self.tr("agrees"), False: self.tr("MISMATCH"), None: self.tr("not checkable")}[
                    check["agrees"]
                ]
                out.append(f"<p><b>{esc(title)} ({esc(flag)})</b>: {esc(check['evidence'])}</p>")
        self.setHtml("".join(out))
