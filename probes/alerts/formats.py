"""The bodies each kind of webhook takes, and the signatures DingTalk and Feishu bots check (pure functions:
the HTTP exchange is `probes.alerts.delivery`'s). Each format as its vendor documents it:

- `webhook`: linkvet's own JSON, `{"format": "linkvet-alerts", "format_version": 1, "title", "text",
  "alerts": [event, …]}` (events: `probes.alerts.messages`); with a secret, the header
  `X-Linkvet-Signature: sha256=<hex HMAC-SHA256 of the body>` (GitHub's webhook signature scheme).
- Slack incoming webhooks: `{"text": …}` (mrkdwn), POSTed as JSON
  (https://api.slack.com/messaging/webhooks, "Sending messages using incoming webhooks").
- WeCom (企业微信) group bots: `{"msgtype": "markdown", "markdown": {"content": …}}`, content at most 4096
  bytes of UTF-8; the answer is `{"errcode": 0, "errmsg": "ok"}` (企业微信开发者中心, 群机器人配置说明,
  https://developer.work.weixin.qq.com/document/path/91770).
- DingTalk (钉钉) custom robots: `{"msgtype": "markdown", "markdown": {"title": …, "text": …}}`; signed
  ("加签"): `timestamp` in milliseconds, sign = urlencode(base64(HMAC-SHA256(key=secret,
  msg=f"{timestamp}\\n{secret}"))), both added to the webhook URL's query; answer `{"errcode": 0}`
  (https://open.dingtalk.com/document/robots/custom-robot-access,
  https://open.dingtalk.com/document/robots/customize-robot-security-settings).
- Feishu (飞书) custom bots: `{"msg_type": "text", "content": {"text": …}}`; signed (签名校验): `timestamp` in
  seconds, sign = base64(HMAC-SHA256(key=f"{timestamp}\\n{secret}", msg=b"")), both in the JSON body as
  strings; answer `{"code": 0}` (https://open.feishu.cn/document/client-docs/bot-v3/add-custom-bot).

A bot that answers HTTP 200 with a non-zero `errcode`/`code` has refused the message: that is a failed
delivery (retried), not a success.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote_plus, urlsplit, urlunsplit

from probes.alerts import messages

WEBHOOK_FORMAT = "linkvet-alerts"
WEBHOOK_FORMAT_VERSION = 1
WECOM_MAX_BYTES = 4096
SIGNATURE_HEADER = "X-Linkvet-Signature"


@dataclass(frozen=True, slots=True)
class Request:
    """One HTTP POST: where, the JSON body's bytes, extra headers."""

    url: str
    body: bytes
    headers: dict[str, str] = field(default_factory=dict)


def _json(payload: dict[str, Any]) -> bytes:
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode()


def _text(events: Sequence[dict[str, Any]]) -> str:
    return "\n".join(e["text"] for e in events)


def _truncate_utf8(text: str, limit: int) -> str:
    data = text.encode()
    if len(data) <= limit:
        return text
    return data[: limit - 3].decode(errors="ignore") + "…"


def webhook(url: str, events: Sequence[dict[str, Any]], secret: str | None = None) -> Request:
    body = _json(
        {
            "format": WEBHOOK_FORMAT,
            "format_version": WEBHOOK_FORMAT_VERSION,
            "title": messages.title(events),
            "text": _text(events),
            "alerts": list(events),
        }
    )
    headers = {}
    if secret:
        digest = hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
        headers[SIGNATURE_HEADER] = f"sha256={digest}"
    return Request(url, body, headers)


def slack(url: str, events: Sequence[dict[str, Any]]) -> Request:
    return Request(url, _json({"text": f"*{messages.title(events)}*\n{_text(events)}"}))


def wecom(url: str, events: Sequence[dict[str, Any]]) -> Request:
    lines = [f"**{messages.title(events)}**"]
    for e in events:
        color = "warning" if e["status"] == messages.FIRING else "info"
        lines.append(f'> <font color="{color}">{e["text"]}</font>')
    content = _truncate_utf8("\n".join(lines), WECOM_MAX_BYTES)
    return Request(url, _json({"msgtype": "markdown", "markdown": {"content": content}}))


def dingtalk_sign(secret: str, timestamp_ms: int) -> str:
    """DingTalk's `sign` query value for `timestamp_ms` (already URL-encoded, as their docs give it)."""
    string_to_sign = f"{timestamp_ms}\n{secret}".encode()
    digest = hmac.new(secret.encode(), string_to_sign, hashlib.sha256).digest()
    return quote_plus(base64.b64encode(digest).decode())


def dingtalk(url: str, events: Sequence[dict[str, Any]], secret: str | None, timestamp_ms: int) -> Request:
    title = messages.title(events)
    text = f"#### {title}\n\n" + "\n\n".join(f"- {e['text']}" for e in events)
    if secret:
        parts = urlsplit(url)
        query = f"{parts.query}&" if parts.query else ""
        query += f"timestamp={timestamp_ms}&sign={dingtalk_sign(secret, timestamp_ms)}"
        url = urlunsplit(parts._replace(query=query))
    return Request(url, _json({"msgtype": "markdown", "markdown": {"title": title, "text": text}}))


def feishu_sign(secret: str, timestamp_s: int) -> str:
    """Feishu's `sign` for `timestamp_s`: the HMAC's key is "timestamp\\nsecret" and its message empty."""
    key = f"{timestamp_s}\n{secret}".encode()
    return base64.b64encode(hmac.new(key, b"", hashlib.sha256).digest()).decode()


def feishu(url: str, events: Sequence[dict[str, Any]], secret: str | None, timestamp_s: int) -> Request:
    payload: dict[str, Any] = {}
    if secret:
        payload = {"timestamp": str(timestamp_s), "sign": feishu_sign(secret, timestamp_s)}
    payload |= {"msg_type": "text", "content": {"text": f"{messages.title(events)}\n{_text(events)}"}}
    return Request(url, _json(payload))


def refusal(kind: str, answer: bytes) -> str | None:
    """Why a bot that answered 2xx refused the message (its error code and message), or None if it took it."""
    if kind not in ("wecom", "dingtalk", "feishu"):
        return None
    try:
        parsed = json.loads(answer or b"{}")
    except ValueError:
        return "the answer is not JSON"
    if not isinstance(parsed, dict):
        return "the answer is not a JSON object"
    code = parsed.get("errcode", parsed.get("code", parsed.get("StatusCode", 0)))
    if code in (0, None):
        return None
    message = parsed.get("errmsg", parsed.get("msg", parsed.get("StatusMessage", "")))
    return f"code {code}: {str(message)[:200]}"


NOTE_FORMAT = "linkvet-report"


def note(kind: str, url: str, title: str, text: str, secret: str | None, now_s: float) -> Request:
    """One message that is no alert (a scheduled report's summary, Markdown), in the body each kind of webhook
    takes: Slack's mrkdwn text, WeCom's and DingTalk's markdown, Feishu's text, linkvet's own JSON
    (`{"format": "linkvet-report", "format_version": 1, "title", "text"}`, signed like an alert)."""
    if kind == "slack":
        return Request(url, _json({"text": f"*{title}*\n{text}"}))
    if kind == "wecom":
        content = _truncate_utf8(f"**{title}**\n{text}", WECOM_MAX_BYTES)
        return Request(url, _json({"msgtype": "markdown", "markdown": {"content": content}}))
    if kind == "dingtalk":
        signed = url
        if secret:
            parts = urlsplit(url)
            query = f"{parts.query}&" if parts.query else ""
            stamp = int(now_s * 1000)
            query += f"timestamp={stamp}&sign={dingtalk_sign(secret, stamp)}"
            signed = urlunsplit(parts._replace(query=query))
        markdown = {"msgtype": "markdown", "markdown": {"title": title, "text": f"#### {title}\n\n{text}"}}
        return Request(signed, _json(markdown))
    if kind == "feishu":
        payload: dict[str, Any] = {}
        if secret:
            payload = {"timestamp": str(int(now_s)), "sign": feishu_sign(secret, int(now_s))}
        payload |= {"msg_type": "text", "content": {"text": f"{title}\n{text}"}}
        return Request(url, _json(payload))
    body = _json(
        {"format": NOTE_FORMAT, "format_version": WEBHOOK_FORMAT_VERSION, "title": title, "text": text}
    )
    headers = {}
    if secret:
        headers[SIGNATURE_HEADER] = "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
    return Request(url, body, headers)
