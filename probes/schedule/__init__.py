"""Measuring on a schedule: plan files, the peak-aware scheduler behind `linkvet schedule`, and its metrics.

Where things are
    plan.py         plan files (`load_plan`, `parse_plan`): targets, cadences, peak windows, alert rules
    plan_writer.py  a list of targets on a cadence written as a plan file
    scheduler.py    `Scheduler`: rounds at a plan's cadence, denser inside its peak windows, each finished round
                    delivered to the store (through the spool when the store refuses it)
    metrics.py      Prometheus metrics of the rounds (`--metrics-listen`)
    plans/          the bundled example plan (loopback targets)

The alert rules a plan carries are read and judged in `probes.alerts`.
"""
