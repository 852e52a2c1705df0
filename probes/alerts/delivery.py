"""Sending one message to one notifier (an alert's events, `send`; a scheduled report's note, `send_note`): an HTTP POST (httpx, with the notifier's timeout) for the webhook
kinds, SMTP (the standard library's smtplib and email: STARTTLS by default, certificates verified, a login
only over TLS) for email. Blocking by design: it runs in the alert worker's thread, never on the event loop.

Every failure becomes `DeliveryError`, its text free of the notifier's secrets (URLs carry tokens): each
secret masked in every form a library may quote it, and any URL's path and query masked too."""

from __future__ import annotations

import re
import smtplib
import ssl
import time
from collections.abc import Sequence
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, quote, quote_plus, urlsplit

import httpx

from probes.alerts import formats, messages
from probes.alerts.rules import Notifier, Secrets
from probes.errors import DeliveryError
from probes.i18n import _

USER_AGENT = "linkvet-alerts"


_URL = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://[^/\s'\"?#]+)[^\s'\"]*")


def redact(text: str, secrets: Secrets) -> str:
    """`text` with every secret masked, in whatever form a library quoted it (as given, escaped as Python
    writes it, percent-encoded), and the path and query of any URL in it (where bots keep their token)."""
    pieces = set(secrets.values())
    if secrets.url:  # a bot's token is a part of its URL: a library may quote the part alone
        try:
            parts = urlsplit(secrets.url)
            pieces |= {parts.path, parts.query, parts.fragment, parts.password or ""}
            pieces |= set(parts.path.split("/")) | {value for _key, value in parse_qsl(parts.query)}
        except ValueError:
            pass
    forms: set[str] = set()
    for value in pieces:
        forms |= {value, repr(value)[1:-1], quote(value, safe=""), quote(value), quote_plus(value)}
        forms |= set(value.splitlines())
    # a form of under 4 characters is not masked: it would mask every such letter of the message
    text = _URL.sub(lambda m: m.group(1) + "/***", text)
    for form in sorted((f for f in forms if len(f) >= 4), key=len, reverse=True):
        text = text.replace(form, "***")
    return text


def send(notifier: Notifier, secrets: Secrets, events: Sequence[dict[str, Any]]) -> None:
    """Deliver `events` as one message; DeliveryError (redacted) when it was not accepted. Whatever the
    HTTP or SMTP library raises becomes a DeliveryError: nothing escapes to the alert worker."""
    try:
        if notifier.type == "email":
            _mail(notifier, secrets, events)
        else:
            _post(notifier, secrets, events)
    except DeliveryError as exc:
        raise DeliveryError(redact(str(exc), secrets)) from None
    except httpx.TimeoutException:
        raise DeliveryError(_("no answer within {seconds:g} s").format(seconds=notifier.timeout_s)) from None
    except Exception as exc:  # a library's failure on a message we sent: said, never raised on
        reason = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        raise DeliveryError(redact(reason, secrets)[:300]) from None


def request_for(notifier: Notifier, secrets: Secrets, events: Sequence[dict[str, Any]]) -> formats.Request:
    url = secrets.url or notifier.url
    if url is None:
        raise DeliveryError(_("notifier {name} has no URL").format(name=notifier.name))
    now = time.time()
    if notifier.type == "slack":
        return formats.slack(url, events)
    if notifier.type == "wecom":
        return formats.wecom(url, events)
    if notifier.type == "dingtalk":
        return formats.dingtalk(url, events, secrets.secret, int(now * 1000))
    if notifier.type == "feishu":
        return formats.feishu(url, events, secrets.secret, int(now))
    request = formats.webhook(url, events, secrets.secret)
    if secrets.token:
        request.headers["Authorization"] = f"Bearer {secrets.token}"
    return request


def _post(notifier: Notifier, secrets: Secrets, events: Sequence[dict[str, Any]]) -> None:
    _deliver(notifier, request_for(notifier, secrets, events))


def email_message(notifier: Notifier, events: Sequence[dict[str, Any]]) -> EmailMessage:
    message = EmailMessage()
    message["Subject"] = messages.title(events)
    message["From"] = notifier.sender or ""
    message["To"] = ", ".join(notifier.to)
    message["Date"] = formatdate(usegmt=True)
    message["Message-ID"] = make_msgid(domain="linkvet.invalid")
    message.set_content("\n".join(e["text"] for e in events) + "\n")
    return message


def _mail(notifier: Notifier, secrets: Secrets, events: Sequence[dict[str, Any]]) -> None:
    _smtp_send(notifier, secrets, email_message(notifier, events))


def send_note(
    notifier: Notifier, secrets: Secrets, title: str, text: str, attachment: Path | None = None
) -> None:
    """Deliver one message that is no alert (a scheduled report): a webhook gets `text` (Markdown) in its own
    body, an e-mail gets it as the body with `attachment` attached (a PDF as application/pdf); DeliveryError
    (redacted) when it was not accepted."""
    try:
        if notifier.type == "email":
            _mail_note(notifier, secrets, title, text, attachment)
            return
        url = secrets.url or notifier.url
        if url is None:
            raise DeliveryError(_("notifier {name} has no URL").format(name=notifier.name))
        request = formats.note(notifier.type, url, title, text, secrets.secret, time.time())
        if notifier.type == "webhook" and secrets.token:
            request.headers["Authorization"] = f"Bearer {secrets.token}"
        _deliver(notifier, request)
    except DeliveryError as exc:
        raise DeliveryError(redact(str(exc), secrets)) from None
    except (httpx.HTTPError, smtplib.SMTPException, OSError, ValueError) as exc:
        reason = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        raise DeliveryError(redact(reason, secrets)) from None


def _deliver(notifier: Notifier, request: formats.Request) -> None:
    headers = {"Content-Type": "application/json; charset=utf-8", "User-Agent": USER_AGENT, **request.headers}
    with httpx.Client(timeout=notifier.timeout_s, follow_redirects=False) as client:
        response = client.post(request.url, content=request.body, headers=headers)
    if not 200 <= response.status_code < 300:
        raise DeliveryError(f"HTTP {response.status_code} {response.reason_phrase}".strip())
    refused = formats.refusal(notifier.type, response.content)
    if refused is not None:
        raise DeliveryError(
            _("the {type} bot refused the message: {reason}").format(type=notifier.type, reason=refused)
        )


def _mail_note(notifier: Notifier, secrets: Secrets, title: str, text: str, attachment: Path | None) -> None:
    message = EmailMessage()
    message["Subject"] = title
    message["From"] = notifier.sender or ""
    message["To"] = ", ".join(notifier.to)
    message["Date"] = formatdate(usegmt=True)
    message["Message-ID"] = make_msgid(domain="linkvet.invalid")
    message.set_content(text + "\n")
    if attachment is not None:
        kind = ("application", "pdf") if attachment.suffix.lower() == ".pdf" else ("text", "html")
        data = attachment.read_bytes()
        if kind[0] == "text":
            message.add_attachment(data.decode("utf-8"), subtype="html", filename=attachment.name)
        else:
            message.add_attachment(data, maintype=kind[0], subtype=kind[1], filename=attachment.name)
    _smtp_send(notifier, secrets, message)


def _smtp_send(notifier: Notifier, secrets: Secrets, message: EmailMessage) -> None:
    assert notifier.smtp_host is not None and notifier.smtp_port is not None
    context = ssl.create_default_context(cafile=notifier.ca_file)
    smtp: smtplib.SMTP
    if notifier.tls == "tls":
        smtp = smtplib.SMTP_SSL(
            notifier.smtp_host, notifier.smtp_port, timeout=notifier.timeout_s, context=context
        )
    else:
        smtp = smtplib.SMTP(notifier.smtp_host, notifier.smtp_port, timeout=notifier.timeout_s)
    with smtp:
        smtp.ehlo()
        if notifier.tls == "starttls":
            smtp.starttls(context=context)
            smtp.ehlo()
        if secrets.username and secrets.password:
            smtp.login(secrets.username, secrets.password)
        smtp.send_message(message)
