"""Alerts: a plan's `[[alerts]]` rules judged after every round, and the people they name told when an alert
fires and when it resolves (webhooks: linkvet's JSON, Slack, WeCom, DingTalk, Feishu; email over SMTP).

Where things are
    rules.py      the plan's `[[alerts]]` and `[notifiers.NAME]` tables: validated rules and notifiers;
                  secrets read from the environment (`resolve_secrets`)
"""
