"""The use-cases both faces run, in one Qt-free place: the CLI (`desktop.cli`) and the desktop application
(`desktop.app`) parse, show and report; what they do is here, so `linkvet score` and the scorecard, or
`linkvet export` and the Export screen, cannot drift apart. Imports no Qt and neither face.

    desktop/usecases/measuring.py   measure targets now and keep the round (stored, else spooled, and said):
                                    `linkvet probe` and the window's Probe screen
    desktop/usecases/agent.py       the scheduling agent: a plan and a store become a scheduler wired with its
                                    spool, lock, alerts and metrics (`linkvet schedule`, the window's
                                    scheduler); `Agent.follow`, an office's agent with no plan file
                                    (`linkvet agent`); the plan's next rounds and its agent's status
    desktop/usecases/office_agent.py  what an office's agent measures: the store's evaluations that name the
                                    office, each one's plan merged into one, read again before each round;
                                    its health said in the store
    desktop/usecases/agent_alerts.py  the alert workers of the evaluations an office's agent follows
    desktop/usecases/agent_health.py  every office's agent of an evaluation, as its health says (`eval show`)
    desktop/usecases/overlay_home.py  where a user's facts about a vendor are kept: their catalog folder, or
                                    the team's PostgreSQL store (records with office, who and when)
    desktop/usecases/team_facts.py  the team's vendor facts read for the catalogs, the offices' conflicts, a
                                    choice between them, `linkvet catalog export`
    desktop/usecases/identity.py    who is doing something (`user@host`), and from which office
    desktop/usecases/links.py       measured line quality: the analysis's MeasuredLink → LinkSummary (field
                                    by field), from the store or a `--links` file; the catalogs' claims
                                    for the route checks
    desktop/usecases/ranking.py     rank offerings for a needs profile with the measured lines
    desktop/usecases/sizing.py      size a training job on a GPU of the reference
    desktop/usecases/export.py      build and write the comparison workbook (xlsx or csv); an evaluation's,
                                    opening with its Summary sheet (`linkvet export --eval`)
    desktop/usecases/report.py      the decision report (`linkvet report`, the Export screen): gathered from
                                    the store and the catalogs, HTML written, PDF printed by a child process;
                                    report_evidence.py the evidence bundle (zip with a SHA-256 manifest);
                                    report_schedule.py a plan's [report] written at its hour by the agent and
                                    sent through the plan's notifiers
    desktop/usecases/offerings.py   load the catalogs (bundled + the user's + the team's facts with a
                                    PostgreSQL store: `load_catalog_set`), one row per offering with each
                                    fact's source and file, a catalog region → targets
    desktop/usecases/catalog_facts.py  every fact of a provider with standing, source, file and history
    desktop/usecases/user_catalogs.py  the user's overlays written (atomically), and the offering form's
                                    use-cases: fields, values, check, save, create, delete, copy
    desktop/usecases/questionnaire.py  `linkvet questionnaire export|import` (the workbook itself:
                                    questionnaire_workbook.py)
    desktop/usecases/questionnaire_preview.py  what an import would change (new / same / conflict), before
                                    it is written; the window's Import… lets the user choose each conflict
    desktop/usecases/accept_import.py  `linkvet accept import`: a report's checks → verified facts
    desktop/usecases/skypilot_import.py  `linkvet catalog import-skypilot`: CSV → a catalog file
    desktop/usecases/files.py       writing a text file atomically (a full disk leaves no half file)
    desktop/usecases/accept.py      `linkvet accept`: read the server (probes.accept), check it against the
                                    catalog's claims (catalogs.acceptance) and the return route
    desktop/usecases/probe_list.py  the app's probe list (file), imported from and saved as plan files
    desktop/usecases/routes.py      traces stored and checked against the claimed line type (`linkvet
                                    trace`, the Routes screen); a region's route history and its changes
    desktop/usecases/errors.py      the errors raised here (the faces word every error in one place each)

What they build on: `probes` (targets, runner, store, analysis, plan files: `probes.schedule.plan` reads them,
`probes.schedule.plan_writer` writes them; the faces themselves never compose a run, a scheduler, the spool,
alerts or metrics: tests/test_layering.py), `catalogs` (catalogs, sizing, scoring) and `desktop.export` (the
workbook's sheets and its xlsx/csv writers). Modules import their heavy dependencies (the store, the
analysis) when a use-case runs, so a face that loads one does not pay for the others.
"""
