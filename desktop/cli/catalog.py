"""`linkvet catalog`: validate, list, show and import provider catalogs, and show a region's probe targets.
`list` and `show` say which file each fact came from (a bundled catalog, or your own overlay)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from catalogs.facts import standing_name
from catalogs.interconnects import fabric_name, intra_node_name
from catalogs.loader import CatalogSet, load_catalogs
from catalogs.targets import catalog_targets
from catalogs.team import TeamOverlay
from desktop.cli._common import add_db_option, path_given
from desktop.cli._format import table
from desktop.cli._safe_text import printable
from desktop.cli.errors import EXIT_OK, EXIT_USAGE, UsageError
from desktop.i18n import _
from desktop.usecases.offerings import gpu_filter, load_catalog_set, offering_rows
from probes.store_location import StoreLocation


def add_catalog_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--catalogs",
        type=Path,
        action="append",
        metavar="PATH",
        help=_(
            "catalog file or directory (repeatable; default: the bundled catalogs); your own catalogs "
            "(the user catalog folder) are merged over them"
        ),
    )
    parser.add_argument(
        "--no-user-catalogs",
        dest="user_catalogs",
        action="store_false",
        help=_(
            "leave out your own catalogs (vendor answers, verified facts) and read only --catalogs or the "
            "bundled ones"
        ),
    )


def add_team_options(parser: argparse.ArgumentParser, *, dest: str = "team_office") -> None:
    """`--db` (where the team's facts are, with a PostgreSQL store) and `--office` (where these facts are
    recorded from) for a command that writes facts about a vendor."""
    add_db_option(parser)
    parser.add_argument(
        "--office",
        dest=dest,
        metavar="NAME",
        help=_(
            "with a PostgreSQL store (--db, LINKVET_DB), the facts go to the team's store, recorded as from "
            "this office (default: $LINKVET_OFFICE); with a SQLite store they go to your own catalog folder"
        ),
    )


def load_or_warn(
    paths: list[Path] | None, include_user: bool = True, db: StoreLocation | None = None
) -> CatalogSet:
    """Load catalogs (with the user's merged over them, and the team's facts when the store `db`, else
    `LINKVET_DB`, is PostgreSQL); report broken files on stderr and go on with the others."""
    loaded = load_catalog_set(paths, include_user=include_user, db=db)
    for error in loaded.errors:
        print(printable("linkvet: " + _("skipped: {problem}").format(problem=error)), file=sys.stderr)
    if not loaded.providers:
        if loaded.errors:
            raise UsageError(_("no catalog could be loaded (see above)"))
        raise UsageError(_("no catalog could be loaded"))
    return loaded


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("catalog", help=_("validate, list and import provider GPU catalogs"))
    verbs = parser.add_subparsers(dest="verb", metavar="VERB", required=True)

    validate = verbs.add_parser("validate", help=_("check catalog files and report every problem"))
    validate.add_argument(
        "paths", nargs="*", type=Path, metavar="PATH", help=_("files or directories (default: bundled)")
    )
    validate.set_defaults(run=run_validate)

    listing = verbs.add_parser("list", help=_("list offerings"))
    listing.add_argument(
        "--gpu", metavar="MODEL", help=_("only offerings with this GPU (e.g. H100, A100-80GB)")
    )
    listing.add_argument("--provider", metavar="ID", help=_("only this provider"))
    listing.add_argument("--json", action="store_true", help=_("print JSON instead of a table"))
    add_catalog_option(listing)
    add_db_option(listing)
    listing.set_defaults(run=run_list)

    show = verbs.add_parser(
        "show", help=_("every fact of a provider (or one offering) with its source, standing and file")
    )
    show.add_argument("provider", metavar="PROVIDER", help=_("provider id"))
    show.add_argument("offering", nargs="?", metavar="OFFERING", help=_("only this offering"))
    show.add_argument("--json", action="store_true", help=_("print JSON instead of text"))
    add_catalog_option(show)
    add_db_option(show)
    show.set_defaults(run=run_show)

    targets = verbs.add_parser("targets", help=_("print the probe targets of catalog regions (JSON)"))
    targets.add_argument("--provider", metavar="ID", help=_("only this provider"))
    targets.add_argument("--region", metavar="ID", help=_("only this region"))
    add_catalog_option(targets)
    add_db_option(targets)
    targets.set_defaults(run=run_targets)

    from desktop.cli._catalog_team import add_team_verbs

    add_team_verbs(verbs)

    importer = verbs.add_parser(
        "import-skypilot", help=_("turn a SkyPilot-format CSV into a provider catalog")
    )
    importer.add_argument("file", type=Path, metavar="FILE", help=_("SkyPilot vms.csv (or an extract of it)"))
    importer.add_argument(
        "--out",
        type=path_given,
        default=Path("."),
        metavar="DIR|FILE.toml",
        help=_("a folder (written as PROVIDER.toml in it) or a .toml file (default: .)"),
    )
    importer.add_argument("--provider", metavar="ID", help=_("provider id (default: from the file name)"))
    importer.add_argument("--name", metavar="NAME", help=_("provider display name"))
    importer.add_argument(
        "--source", metavar="TEXT", help=_("where the CSV comes from (kept as every fact's source)")
    )
    importer.add_argument("--as-of", metavar="DATE", help=_("when the source said it (default: today)"))
    importer.add_argument("--force", action="store_true", help=_("overwrite an existing catalog file"))
    importer.add_argument(
        "--strict", action="store_true", help=_("fail the whole import on a row that cannot be understood")
    )
    importer.set_defaults(run=run_import)


def run_validate(args: argparse.Namespace) -> int:
    """Bundled and user catalogs by default; given files and folders otherwise, an overlay among them merged
    over the bundled catalog it belongs to."""
    from catalogs.loader import catalog_files
    from catalogs.user import load_with_user, with_files

    missing = [p for p in args.paths if not p.exists()]
    if missing:
        raise UsageError(_("no such file or directory: {path}").format(path=missing[0]))
    if args.paths:
        files = catalog_files(args.paths)
        loaded = with_files(load_catalogs(), files)
        wanted = {str(f) for f in files}
        shown = [c for c in loaded.providers if str(c.path) in wanted or str(c.overlay) in wanted]
        loaded = type(loaded)(
            tuple(shown), tuple(e for e in loaded.errors if str(e.path) in wanted), tuple(files)
        )
    else:
        loaded = load_with_user()
    for catalog in loaded.providers:
        shown_files = (
            f"{catalog.path} + {catalog.overlay}" if catalog.overlay is not None else f"{catalog.path}"
        )
        line = _("ok   {files}: {provider} — {regions} regions, {offerings} offerings").format(
            files=shown_files,
            provider=catalog.provider.id,
            regions=len(catalog.regions),
            offerings=len(catalog.offerings),
        )
        print(printable(line))
    for error in loaded.errors:
        print(printable(_("FAIL {problem}").format(problem=error)))
    broken = len({e.path for e in loaded.errors})
    print(
        _("{valid} catalog(s) valid, {broken} with problems ({problems} problem(s))").format(
            valid=len(loaded.providers), broken=broken, problems=len(loaded.errors)
        )
    )
    return EXIT_USAGE if loaded.errors else EXIT_OK


def run_list(args: argparse.Namespace) -> int:
    loaded = load_or_warn(args.catalogs, args.user_catalogs, args.db)
    if args.provider and loaded.provider(args.provider) is None:
        known = ", ".join(p.provider.id for p in loaded.providers)
        raise UsageError(
            _("no provider {provider!r} (known: {known})").format(provider=args.provider, known=known)
        )
    rows = offering_rows(loaded, gpu_filter(args.gpu), args.provider)
    if args.json:
        print(json.dumps(rows, indent=2, ensure_ascii=False))
        return EXIT_OK
    headers = [
        _("provider"),
        _("offering"),
        _("GPU"),
        _("n"),
        _("in node"),
        _("fabric"),
        _("regions"),
        _("$/GPU-h"),
        _("files"),
    ]
    cells = []
    contradicted = False
    for row in rows:
        marks = _Marks(row)
        intra = row.get("intra_node", {})
        intra_text = marks("intra_node.kind", intra_node_name(intra.get("kind", "?"))) + (
            " " + marks("intra_node.bandwidth_gbytes_s", f"{intra['bandwidth_gbytes_s']:g}")
            if "bandwidth_gbytes_s" in intra
            else ""
        )
        fabric = marks("inter_node.fabric", fabric_name(row.get("inter_node", {}).get("fabric", "?")))
        price = f"{row['min_gpu_hour']:.2f}" if row["min_gpu_hour"] is not None else "?"
        cells.append(
            [
                str(row["provider"]),
                str(row["id"]),
                marks("gpu", str(row.get("gpu", "?"))),
                marks("gpus_per_node", str(row.get("gpus_per_node", "?"))),
                intra_text,
                str(fabric),
                str(len(row.get("regions", []))),
                price,
                _files(row),
            ]
        )
        contradicted = contradicted or marks.used
    table(headers, cells, sys.stdout, right=(3, 6, 7))
    print(_("{count} offering(s); '?' = not stated by the source (unknown)").format(count=len(rows)))
    if contradicted:
        print(
            _(
                "{mark} = contradicted: a trial server showed otherwise (`linkvet catalog show PROVIDER OFFERING` "
                "says what and where)"
            ).format(mark=CONTRADICTED_MARK)
        )
    overlays = sorted({row["overlay"] for row in rows if row.get("overlay")})
    if overlays:
        print(
            _(
                "facts from your own catalogs ({files}): `linkvet catalog show PROVIDER OFFERING` says which"
            ).format(files=", ".join(overlays))
        )
    return EXIT_OK


CONTRADICTED_MARK = "✗"


class _Marks:
    """An offering's cell with ✗ after a value whose fact stands contradicted."""

    def __init__(self, row: dict[str, Any]) -> None:
        self.sources: dict[str, dict[str, Any]] = row.get("fact_sources", {})
        self.used = False

    def __call__(self, fact: str, text: str) -> str:
        source = self.sources.get(f"offering.{fact}")
        if source is not None and source.get("standing") == "contradicted":
            self.used = True
            return text + CONTRADICTED_MARK
        return text


def _files(row: dict[str, object]) -> str:
    """The catalog file of an offering and, when some of its facts come from the user's overlay, that too."""
    files = {str(source["file"]) for source in row["fact_sources"].values() if source.get("file")}  # type: ignore[attr-defined]
    base = str(row.get("file") or "")
    names = [Path(base).name] if base else []
    names += [f"+ {f}" for f in sorted(files) if f != base]
    return " ".join(names)


def run_show(args: argparse.Namespace) -> int:
    from desktop.usecases.catalog_facts import fact_lines

    loaded = load_or_warn(args.catalogs, args.user_catalogs, args.db)
    catalog = loaded.provider(args.provider)
    if catalog is None:
        known = ", ".join(p.provider.id for p in loaded.providers)
        raise UsageError(
            _("no provider {provider!r} (known: {known})").format(provider=args.provider, known=known)
        )
    if args.offering is not None and not any(o.id == args.offering for o in catalog.offerings):
        known = ", ".join(o.id for o in catalog.offerings) or _("none")
        raise UsageError(
            _("provider {provider!r} has no offering {offering!r} (offerings: {known})").format(
                provider=args.provider, offering=args.offering, known=known
            )
        )
    team = _team_of(args.db, catalog.provider.id) if catalog.team is not None else None
    lines = fact_lines(catalog, args.offering, team.overlay if team is not None else None)
    if args.json:
        print(json.dumps([line.as_dict() for line in lines], indent=1, ensure_ascii=False))
        return EXIT_OK
    print(_("{provider}: catalog {file}").format(provider=catalog.provider.name, file=catalog.path or "?"))
    if catalog.overlay is not None:
        print(_("your own facts: {file}").format(file=catalog.overlay))
    if catalog.team is not None:
        print(printable(_("your team's facts: {store}").format(store=catalog.team)))
    for line in lines:
        value = ", ".join(str(v) for v in line.value) if isinstance(line.value, tuple) else line.value
        standing = (
            "" if line.provenance.standing == "claimed" else f" [{standing_name(line.provenance.standing)}]"
        )
        print(f"{line.key} = {printable(value)}{standing}")
        print(f"    {printable(line.provenance.describe())} — {line.file or '?'}")
        record = team.recorded.get(line.key.split(" (", 1)[0]) if team is not None else None
        if record is not None and line.file == catalog.team:
            print(
                "    "
                + printable(
                    _("recorded at {office} by {user} on {day} (record {record})").format(
                        office=record.office or "-",
                        user=record.recorded_by,
                        day=record.recorded_on,
                        record=record.id,
                    )
                )
            )
        for earlier in line.history:
            print(
                "    "
                + _("earlier: {value} ({standing}, {source}, as of {as_of}; replaced {replaced})").format(
                    value=printable(earlier.value),
                    standing=earlier.standing,
                    source=printable(earlier.source),
                    as_of=earlier.as_of,
                    replaced=earlier.replaced_on,
                )
            )
    return EXIT_OK


def _team_of(db: StoreLocation | None, provider: str) -> TeamOverlay | None:
    from desktop.usecases.team_facts import team_overlays_of

    return team_overlays_of(db, provider).get(provider)


def run_targets(args: argparse.Namespace) -> int:
    loaded = load_or_warn(args.catalogs, args.user_catalogs, args.db)
    catalogs = loaded.providers
    if args.provider:
        catalogs = tuple(c for c in catalogs if c.provider.id == args.provider)
        if not catalogs:
            known = ", ".join(c.provider.id for c in loaded.providers)
            raise UsageError(
                _("no provider {provider!r} (known: {known})").format(provider=args.provider, known=known)
            )
    if args.region:
        with_region = [c for c in catalogs if c.region(args.region) is not None]
        if not with_region:
            known = ", ".join(sorted({r.id for c in catalogs for r in c.regions}))
            if known:
                raise UsageError(
                    _("no region {region!r} (known: {known})").format(region=args.region, known=known)
                )
            raise UsageError(_("no region {region!r}").format(region=args.region))
        catalogs = tuple(with_region)
    targets = catalog_targets(loaded, args.provider)
    if args.region:
        targets = [t for t in targets if t["region"] == args.region]
    for catalog in catalogs:
        empty = [
            r.id
            for r in catalog.regions
            if (args.region is None or r.id == args.region) and not any(t["region"] == r.id for t in targets)
        ]
        if empty and (args.region or args.provider):
            where = (
                f"{catalog.path}"
                if catalog.path
                else _("the {provider} catalog").format(provider=catalog.provider.id)
            )
            note = _(
                "note: the catalog lists no probe endpoints for {provider} region(s) {regions}; add them as "
                '[[regions.endpoints]] (kind = "ping" with host, "tcp" with host and port, "http_file" with '
                "url, …) in {file}"
            ).format(provider=catalog.provider.id, regions=", ".join(empty), file=where)
            print("linkvet: " + note, file=sys.stderr)
    print(json.dumps(targets, indent=2))
    return EXIT_OK


def run_import(args: argparse.Namespace) -> int:
    from desktop.usecases.skypilot_import import import_to_file

    if not args.file.exists():  # a folder, a FIFO or a device: the reader says which
        raise UsageError(_("no such file: {file}").format(file=args.file))
    written = import_to_file(
        args.file,
        args.out,
        provider_id=args.provider,
        provider_name=args.name,
        source=args.source,
        as_of=args.as_of,
        strict=args.strict,
        force=args.force,
    )
    result, catalog = written.result, written.catalog
    for warning in result.warnings:
        print(_("note: {message}").format(message=printable(warning)), file=sys.stderr)
    for skipped in result.skipped[:20]:
        print(
            _("skipped: {file}:{line}: {reason}").format(
                file=printable(args.file.name), line=skipped.line, reason=printable(skipped.reason)
            ),
            file=sys.stderr,
        )
    if len(result.skipped) > 20:
        print(_("skipped: … and {more} more").format(more=len(result.skipped) - 20), file=sys.stderr)
    print(
        _("wrote {file}: {offerings} offerings in {regions} regions").format(
            file=written.target, offerings=len(catalog.offerings), regions=len(catalog.regions)
        )
    )
    print(
        _(
            "{read} rows read: {imported} imported ({corrected} corrected against the GPU reference, with a note), "
            "{skipped} skipped as not understood, {duplicates} duplicates, {not_offered} with price 0 (not "
            "offered), {no_gpu} without a GPU"
        ).format(
            read=result.rows_read,
            imported=result.rows_used,
            corrected=result.rows_corrected,
            skipped=len(result.skipped),
            duplicates=result.duplicates,
            not_offered=result.not_offered,
            no_gpu=result.no_gpu,
        )
    )
    return EXIT_OK
