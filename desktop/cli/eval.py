"""`linkvet eval`: the evaluation — the candidates a team chooses between, for its job, from its offices — kept
in the result store (`desktop.usecases.evaluation`), and what each office measures for it
(`desktop.usecases.evaluation_plan`)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from desktop.cli._common import add_db_option
from desktop.cli._format import table
from desktop.cli._safe_text import printable
from desktop.cli.catalog import add_catalog_option, load_or_warn
from desktop.cli.errors import EXIT_OK, UsageError
from desktop.i18n import _, ngettext


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "eval",
        help=_("the evaluation: candidates, offices, peak hours and what is still missing for a decision"),
        description=_(
            "An evaluation is the shortlist a team decides on: its job (a needs profile), its offices, its peak "
            "windows and its candidates (provider, region, offering) with their test endpoints. It lives in "
            "the result store, so every office of a shared store sees the same one."
        ),
    )
    verbs = parser.add_subparsers(dest="verb", metavar="VERB", required=True)

    new = verbs.add_parser("new", help=_("start an evaluation"))
    new.add_argument("name", metavar="NAME", help=_("its name (lower-case letters, digits, '.', '_', '-')"))
    new.add_argument(
        "--needs", type=Path, required=True, metavar="FILE", help=_("the training-needs profile")
    )
    new.add_argument(
        "--office",
        action="append",
        default=[],
        metavar="NAME[:CARRIER]",
        help=_("an office the team measures from, with its carrier where known: ct, cu or cm (repeatable)"),
    )
    new.add_argument(
        "--peak",
        action="append",
        default=[],
        metavar="WINDOW",
        help=_("a peak window, e.g. '20:00-23:00 Asia/Shanghai' (repeatable; default that one)"),
    )
    new.add_argument(
        "--decide-by",
        default="worst",
        metavar="worst|each|OFFICE",
        help=_("whose line decides: the worse office (default), each side by side, or one office"),
    )
    add_db_option(new)
    new.set_defaults(run=run_new)

    add = verbs.add_parser(
        "add",
        help=_(
            "add a candidate (a provider or region not in the catalogs is created), or test endpoints to one "
            "it has"
        ),
    )
    add.add_argument("name", metavar="NAME")
    add.add_argument("--provider", required=True, metavar="ID")
    add.add_argument("--region", required=True, metavar="ID")
    add.add_argument("--offering", metavar="ID", help=_("the offering, where the team has one in mind"))
    add.add_argument(
        "--test-ip",
        dest="endpoints",
        action="append",
        default=[],
        metavar="HOST|URL",
        help=_(
            "an address the line is measured to: an IP, a host name, host:port or an http(s) URL (repeatable)"
        ),
    )
    add.add_argument("--line-type", metavar="TYPE", help=_("the line the vendor sells for it (e.g. cn2-gia)"))
    add.add_argument("--provider-name", metavar="TEXT", help=_("the name of a provider this creates"))
    add.add_argument("--region-name", metavar="TEXT", help=_("the name of a region this creates"))
    add_db_option(add)
    add_catalog_option(add)
    add.set_defaults(run=run_add)

    listing = verbs.add_parser("list", help=_("the evaluations in the store"))
    listing.add_argument("--json", action="store_true")
    add_db_option(listing)
    listing.set_defaults(run=run_list)

    show = verbs.add_parser("show", help=_("an evaluation: its candidates and the evidence for each"))
    show.add_argument("name", metavar="NAME")
    show.add_argument("--json", action="store_true")
    add_db_option(show)
    add_catalog_option(show)
    show.set_defaults(run=run_show)

    remove = verbs.add_parser(
        "remove", help=_("take a candidate out, or delete the evaluation (no measurement is deleted)")
    )
    remove.add_argument("name", metavar="NAME")
    remove.add_argument("--candidate", metavar="PROVIDER/REGION[/OFFERING]")
    add_db_option(remove)
    remove.set_defaults(run=run_remove)

    export = verbs.add_parser("export", help=_("write the evaluation to a TOML file"))
    export.add_argument("name", metavar="NAME")
    export.add_argument("--out", type=Path, required=True, metavar="FILE.toml")
    add_db_option(export)
    export.set_defaults(run=run_export)

    imported = verbs.add_parser("import", help=_("read an evaluation from a TOML file into the store"))
    imported.add_argument("file", type=Path, metavar="FILE.toml")
    imported.add_argument("--replace", action="store_true", help=_("replace an evaluation of that name"))
    add_db_option(imported)
    imported.set_defaults(run=run_import)

    plan = verbs.add_parser("plan", help=_("what an office measures for the evaluation, as a plan"))
    plan.add_argument("name", metavar="NAME")
    plan.add_argument("--office", metavar="NAME", help=_("the office (default: this machine, no office)"))
    plan.add_argument("--out", type=Path, metavar="FILE", help=_("write the plan file (default: print it)"))
    add_db_option(plan)
    add_catalog_option(plan)
    plan.set_defaults(run=run_plan)


def run_new(args: argparse.Namespace) -> int:
    from catalogs.evaluation.model import parse_office
    from desktop.usecases.evaluation import new_evaluation
    from probes.peak import PeakWindow

    evaluation = new_evaluation(
        args.db,
        args.name,
        args.needs,
        offices=[parse_office(text) for text in args.office],
        peak_windows=[PeakWindow.parse(text) for text in args.peak],
        decide_by=args.decide_by,
    )
    print(
        _("evaluation {name} started: {offices}; peak {windows}").format(
            name=evaluation.name,
            offices=_offices(evaluation.offices),
            windows=", ".join(str(w) for w in evaluation.peak_windows),
        )
    )
    print(
        _("next: linkvet eval add {name} --provider ID --region ID --test-ip ADDRESS").format(
            name=evaluation.name
        )
    )
    return EXIT_OK


def _offices(offices: tuple[object, ...]) -> str:
    if not offices:
        return _("measured from this machine (no office named)")
    return ngettext("office {names}", "offices {names}", len(offices)).format(
        names=", ".join(f"{o.name}:{o.carrier}" if o.carrier else o.name for o in offices)  # type: ignore[attr-defined]
    )


def run_add(args: argparse.Namespace) -> int:
    from desktop.usecases.evaluation import add_candidate

    catalogs = load_or_warn(args.catalogs, args.user_catalogs, args.db)
    added = add_candidate(
        args.db,
        args.name,
        catalogs,
        provider=args.provider,
        region=args.region,
        offering=args.offering,
        endpoints=args.endpoints,
        line_type=args.line_type,
        provider_name=args.provider_name,
        region_name=args.region_name,
    )
    for what in added.created:
        print(
            printable(
                _(
                    "created {what} in your catalogs ({file}): its id and name only, nothing else claimed"
                ).format(what=what, file=added.catalog_file)
            )
        )
    candidate = added.candidate
    if added.new_endpoints:
        print(
            printable(
                ngettext(
                    "{count} test endpoint added to {candidate} of {name}: {endpoints}",
                    "{count} test endpoints added to {candidate} of {name}: {endpoints}",
                    len(added.new_endpoints),
                ).format(
                    count=len(added.new_endpoints),
                    candidate=candidate.label,
                    name=args.name,
                    endpoints=", ".join(added.new_endpoints),
                )
            )
        )
        return EXIT_OK
    print(
        printable(
            ngettext(
                "{candidate} added to {name} with {count} test endpoint",
                "{candidate} added to {name} with {count} test endpoints",
                len(candidate.endpoints),
            ).format(candidate=candidate.label, name=args.name, count=len(candidate.endpoints))
        )
    )
    return EXIT_OK


def run_list(args: argparse.Namespace) -> int:
    from desktop.usecases.evaluation import list_evaluations

    found = list_evaluations(args.db)
    if args.json:
        print(
            json.dumps(
                [{"name": e.name, "candidates": e.candidates, "offices": list(e.offices)} for e in found]
            )
        )
        return EXIT_OK
    if not found:
        print(_("no evaluation in the store yet: `linkvet eval new NAME --needs FILE` starts one"))
        return EXIT_OK
    rows = [[e.name, str(e.candidates), ", ".join(e.offices) or _("this machine")] for e in found]
    table([_("EVALUATION"), _("CANDIDATES"), _("OFFICES")], rows, sys.stdout)
    return EXIT_OK


def run_show(args: argparse.Namespace) -> int:
    from desktop.cli._evidence import print_evidence
    from desktop.usecases.evidence import evidence_table

    catalogs = load_or_warn(args.catalogs, args.user_catalogs, args.db)
    evidence = evidence_table(args.db, args.name, catalogs)
    if args.json:
        print(json.dumps(evidence.as_dict(), ensure_ascii=False, allow_nan=False))
        return EXIT_OK
    print_evidence(evidence, sys.stdout)
    return EXIT_OK


def run_remove(args: argparse.Namespace) -> int:
    from desktop.usecases.evaluation import remove_candidate, remove_evaluation

    if args.candidate:
        remove_candidate(args.db, args.name, args.candidate)
        print(
            _("{candidate} taken out of {name}; its measurements stay in the store").format(
                candidate=args.candidate, name=args.name
            )
        )
    else:
        remove_evaluation(args.db, args.name)
        print(_("evaluation {name} deleted; its measurements stay in the store").format(name=args.name))
    return EXIT_OK


def run_export(args: argparse.Namespace) -> int:
    from desktop.usecases.evaluation import export_evaluation

    if not str(args.out).strip():
        raise UsageError(_("--out: give a file name"))
    written = export_evaluation(args.db, args.name, args.out)
    print(_("evaluation {name} written to {file}").format(name=args.name, file=written))
    return EXIT_OK


def run_import(args: argparse.Namespace) -> int:
    from desktop.usecases.evaluation import import_evaluation

    evaluation = import_evaluation(args.db, args.file, replace=args.replace)
    print(
        ngettext(
            "evaluation {name} read from {file}: {count} candidate",
            "evaluation {name} read from {file}: {count} candidates",
            len(evaluation.candidates),
        ).format(name=evaluation.name, file=args.file, count=len(evaluation.candidates))
    )
    return EXIT_OK


def run_plan(args: argparse.Namespace) -> int:
    from desktop.usecases.evaluation import load_evaluation
    from desktop.usecases.evaluation_plan import plan_document
    from desktop.usecases.files import write_text
    from probes.schedule.plan import parse_plan

    evaluation = load_evaluation(args.db, args.name)
    if args.office is not None and evaluation.office(args.office) is None:
        raise UsageError(
            _("{name} has no office {office!r} (it has: {known})").format(
                name=args.name, office=args.office, known=", ".join(o.name for o in evaluation.offices) or "-"
            )
        )
    catalogs = load_or_warn(args.catalogs, args.user_catalogs, args.db)
    text = plan_document(evaluation, catalogs, args.office)
    plan = parse_plan(text, f"evaluation {evaluation.name}")
    if args.out is None:
        sys.stdout.write(text)
        return EXIT_OK
    write_text(args.out, text)
    print(
        ngettext(
            "plan of {name} written to {file}: {count} target; run it with linkvet schedule --plan {file}",
            "plan of {name} written to {file}: {count} targets; run it with linkvet schedule --plan {file}",
            len(plan.targets),
        ).format(name=evaluation.name, file=args.out, count=len(plan.targets))
    )
    return EXIT_OK
