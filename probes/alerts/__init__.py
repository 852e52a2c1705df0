"""Alerts: a plan's `[[alerts]]` rules judged after every round, and the people they name told when an alert
fires and when it resolves (webhooks: linkvet's JSON, Slack, WeCom, DingTalk, Feishu; email over SMTP).

Where things are
    rules.py      the plan's `[[alerts]]` and `[notifiers.NAME]` tables: validated rules and notifiers;
                  secrets read from the environment (`resolve_secrets`); `describe_rule` for --check
    judge.py      a rule on a target's last points (pure): loss, p95, throughput, route, no data
    history.py    the points and last data read back from the store when the scheduler starts
    engine.py     `AlertEngine` (judge, record state changes with their notifications, deliver what is due,
                  retries with backoff, the rate limit) and `AlertWorker` (the engine in its own thread, fed
                  by the scheduler's round hook)
    messages.py   the event (JSON-ready) and the sentences people read (gettext)
    formats.py    each webhook kind's body and signature, as its vendor documents it (sources cited there)
    delivery.py   one message to one notifier: HTTP (httpx) or SMTP (smtplib), errors without secrets

The states and the outbox are store tables (`probes.store.alerts`, SQL in `probes.store.sqlite.alerts`).
"""
