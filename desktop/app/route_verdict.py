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
        hop = self.tr("hop {ttl}")
        evidence = esc(self.tr("Evidence:"))
        doubts = esc(self.tr("Doubts:"))
        out: list[str] = []
        for number, target in enumerate(targets):
            mine = [d for n, _i, d in finished if n == number]
            if not mine:
                continue
            out.append(f"<h3>{esc(str(target.name or target.host))}</h3>")
            for trace in mine:
                if trace.get("error"):
                    text = self.tr("<b>Error</b>: {message}").format(
                        message=esc(str(trace.get("message") or ""))
                    )
                    out.append(f"<p>{text}</p>")
                    continue
                verdict = trace.get("verdict")
                if verdict is None:
                    continue
                text = self.tr("<b>Verdict: {line_class}</b> — {explanation}").format(
                    line_class=esc(verdict["class"]), explanation=esc(verdict["explanation"])
                )
                out.append(f"<p>{text}</p>")
                if verdict["rule_source"]:
                    rule = self.tr("Rule: {rule} (source: {source})").format(
                        rule=esc(verdict["rule"]), source=esc(verdict["rule_source"])
                    )
                else:
                    rule = self.tr("Rule: {rule}").format(rule=esc(verdict["rule"]))
                out.append(f"<p>{rule}</p>")
                if verdict["evidence"]:
                    items = "".join(
                        f"<li>{esc(hop.format(ttl=e['ttl']))} {esc(e['address'])} {esc(e['label'])} "
                        f"AS{e['asn']} {esc(e['prefix'])} — {esc(e['source'])}</li>"
                        for e in verdict["evidence"]
                    )
                    out.append(f"<p>{evidence}</p><ul>{items}</ul>")
                if verdict["doubts"]:
                    items = "".join(f"<li>{esc(d)}</li>" for d in verdict["doubts"])
                    out.append(f"<p>{doubts}</p><ul>{items}</ul>")
                if trace.get("message"):
                    out.append(f"<p><i>{esc(str(trace['message']))}</i></p>")
            merged = (done or {}).get("merged") or []
            if number < len(merged) and merged[number] and merged[number]["traces"] > 1:
                text = self.tr("<b>Over all traces</b>: {summary}").format(
                    summary=esc(merged[number]["summary"])
                )
                out.append(f"<p>{text}</p>")
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
                text = self.tr("<b>{check} ({verdict})</b>: {evidence}").format(
                    check=esc(title), verdict=esc(flag), evidence=esc(check["evidence"])
                )
                out.append(f"<p>{text}</p>")
        self.setHtml("".join(out))
