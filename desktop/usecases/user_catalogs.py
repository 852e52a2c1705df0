"""The user's own catalogs, written: each provider's overlay in the user's catalog folder (`catalogs.user`;
never the bundled files), changed fact by fact with provenance and history (`catalogs.overlay.put_facts`),
validated by merging it over the catalog as the loader validates any catalog before anything is written,
and written atomically (a crash or a full disk leaves the previous file whole).

The editing use-cases the Catalog screen's forms call (Qt-free; every answer validated with the loader's
rules, field by field):

    offering_fields(catalog)                          every field the form shows (the questionnaire's questions)
    offering_values(catalog, offering_id)             the offering's current values and each one's provenance
    own_fields(catalog, offering_id)                  the paths whose value is the user's own fact
    check_offering(catalogs, provider, offering, values, source, as_of)   field problems, nothing written
    save_offering(catalogs, provider, offering, values, source, as_of, forget=…)   validated, then written
    check_new_offering(…)                             the same for a new offering, its id too
    create_offering(…)                                a new offering (an id not yet used)
    delete_offering(catalogs, provider, offering)     only one the user created (bundled: copy it instead)
    copy_offering(catalogs, provider, offering, new_id, source, as_of)    a bundled one into the overlay
    is_user_offering(catalogs, provider, offering)    whether Delete applies
    user_offerings(catalogs)                          every (provider, offering) Delete applies to
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from catalogs.errors import CatalogFileError
from catalogs.facts import Provenance
from catalogs.i18n import clauses
from catalogs.loader import CatalogSet, ProviderCatalog
from catalogs.overlay import (
    Change,
    FactKey,
    OverlayFact,
    OverlayFile,
    in_words,
    merge_overlay,
    offering_key,
    put_facts,
    without_facts,
)
from catalogs.questionnaire import Question, answer_value, known_now, offering_questions
from catalogs.user import load_with_user, raw_catalog, user_catalog_dir
from desktop.i18n import _
from desktop.usecases.errors import InputError
from desktop.usecases.overlay_home import OverlayHome, overlay_home
from probes.store_location import StoreLocation

Home = Path | OverlayHome | None  # where the user's facts are kept (`desktop.usecases.overlay_home`)


@dataclass(frozen=True, slots=True)
class FieldProblem:
    """A value the loader's rules refuse: the field (an offering path such as `inter_node.bandwidth_gbit_s`,
    or a whole key), what was given, the message and what was expected."""

    field: str
    given: Any
    message: str
    expected: str | None


class OfferingInvalid(InputError):
    """An offering's values do not validate; `problems` says which field and why."""

    def __init__(self, problems: list[FieldProblem]) -> None:
        self.problems = problems
        lines = [
            _("{field}: {message} (expected {expected})").format(
                field=p.field, message=p.message, expected=p.expected
            )
            if p.expected
            else _("{field}: {message}").format(field=p.field, message=p.message)
            for p in problems
        ]
        super().__init__(clauses(lines))


def user_folder() -> Path:
    """The user's catalog folder (`$LINKVET_CATALOG_DIR`, else `catalogs` in the user config directory)."""
    return user_catalog_dir()


def current_overlay(provider_id: str, folder: Home = None) -> OverlayFile:
    """The provider's overlay where the user's facts are kept (the folder's file, or the team store's
    records; an empty one when there is none yet); a broken file raises `CatalogFileError` naming it: it is
    never silently replaced."""
    return overlay_home(folder).current(provider_id)


def base_of(catalogs: CatalogSet, provider_id: str) -> tuple[ProviderCatalog | None, dict[str, Any] | None]:
    """The provider's catalog an overlay is merged over (None for a provider only the user's overlay
    defines) and its raw data."""
    catalog = catalogs.provider(provider_id)
    if catalog is None or (catalog.overlay is not None and catalog.path == catalog.overlay):
        return None, None
    if catalog.path is None and catalog.team is not None:  # a provider only the team's facts define
        return None, None
    return catalog, raw_catalog(catalog)


def validate_overlay(
    catalogs: CatalogSet, overlay: OverlayFile, path: Path | None = None, *, home: Home = None
) -> tuple[ProviderCatalog | None, list[CatalogFileError]]:
    """`overlay` (kept where `home` keeps the user's facts) merged over its provider's catalog and validated
    (nothing written); the problems' `field` is the fact key."""
    merged, file = overlay_home(home).to_validate(overlay)
    base, raw = base_of(catalogs, overlay.provider)
    return merge_overlay(base, raw, merged, path or file)


def write_overlay(overlay: OverlayFile, folder: Home = None) -> Path | str:
    """Keep the provider's overlay where the user's facts are kept: the folder's file, written atomically
    (`desktop.usecases.files`; `WriteError` naming the file and the system's reason when it cannot be), or
    the team store's records (`StoreError`); what names it."""
    return overlay_home(folder).write(overlay)


def apply_facts(
    catalogs: CatalogSet,
    provider_id: str,
    facts: Iterable[OverlayFact],
    folder: Home = None,
    *,
    write: bool = True,
    forget: Collection[str] = (),
) -> tuple[Path | str, list[Change], list[CatalogFileError]]:
    """Put `facts` into the provider's overlay (after taking out the facts whose keys are in `forget`),
    validate it over the catalog, and write it when valid and something changed. Returns what names the
    overlay (its file, or the team store), what changed and the problems (nothing is written when there are
    any)."""
    home = overlay_home(folder)
    overlay = home.current(provider_id)
    kept = overlay.model_copy(update={"facts": tuple(f for f in overlay.facts if f.key not in forget)})
    changed, changes = put_facts(kept, facts)
    _merged, errors = validate_overlay(catalogs, changed, home=home)
    if errors:
        return home.where(provider_id), changes, errors
    forgotten = len(kept.facts) < len(overlay.facts)
    if write and (forgotten or any(c.what in ("added", "changed") for c in changes)):
        home.write(changed)
    return home.where(provider_id), changes, []


def reload(
    paths: list[Path] | None = None, folder: Path | None = None, *, db: StoreLocation | None = None
) -> CatalogSet:
    """The catalogs again, with the user's folder (and the team's facts, with a PostgreSQL store) as they are
    now (after a change is written)."""
    if folder is not None:
        return load_with_user(paths, folder)
    from desktop.usecases.offerings import load_catalog_set

    return load_catalog_set(paths, db=db)


# -- the offering form -----------------------------------------------------------------------------------


def offering_fields(catalog: ProviderCatalog | None) -> list[Question]:
    """Every offering field the form shows (the questionnaire's offering questions, in their order), each
    with its kind, unit, allowed values and range."""
    return offering_questions([r.id for r in catalog.regions] if catalog is not None else [])


def offering_values(catalog: ProviderCatalog, offering_id: str) -> dict[str, tuple[Any, Provenance | None]]:
    """The offering's current value of every form field and where it comes from (None, None: unknown)."""
    return {q.path: known_now(catalog, q, offering_id) for q in offering_fields(catalog)}


def own_fields(catalog: ProviderCatalog, offering_id: str) -> set[str]:
    """The form paths whose current value is the user's own fact (written in the provider's overlay), the
    ones `forget` can take out again."""
    if catalog.overlay is None and catalog.team is None:
        return set()
    mine = {str(catalog.overlay) if catalog.overlay is not None else None, catalog.team} - {None}
    return {
        path
        for path, (value, provenance) in offering_values(catalog, offering_id).items()
        if value is not None
        and provenance is not None
        and (provenance.file in mine or catalog.path == catalog.overlay)
    }


def is_user_offering(catalogs: CatalogSet, provider_id: str, offering_id: str) -> bool:
    """Whether the offering exists only in the user's overlay (it can be deleted; a bundled one cannot)."""
    base, _raw = base_of(catalogs, provider_id)
    catalog = catalogs.provider(provider_id)
    in_catalog = catalog is not None and any(o.id == offering_id for o in catalog.offerings)
    in_base = base is not None and _in_file(base, offering_id)
    return in_catalog and not in_base


def user_offerings(catalogs: CatalogSet) -> set[tuple[str, str]]:
    """Every (provider, offering) that exists only in the user's catalogs (`is_user_offering` of each, each
    provider's catalog file read once)."""
    found = set()
    for catalog in catalogs.providers:
        base, raw = base_of(catalogs, catalog.provider.id)
        in_base = {o.get("id") for o in (raw or {}).get("offerings", [])} if base is not None else set()
        found |= {(catalog.provider.id, o.id) for o in catalog.offerings if o.id not in in_base}
    return found


def _in_file(catalog: ProviderCatalog, offering_id: str) -> bool:
    raw = raw_catalog(catalog)
    return any(o.get("id") == offering_id for o in raw.get("offerings", []))


# Where a refusal of the fact itself (not of its value) belongs in the form: the offering's id (its key), or
# the source and date given for what changed; each is reported once, under that field.
_FACT_PARTS = {"key": "id", "source": "source", "as_of": "as_of"}


def _facts_for(
    offering_id: str, values: Mapping[str, Any], source: str, as_of: str, fields: list[Question]
) -> tuple[list[OverlayFact], list[FieldProblem]]:
    by_path = {q.path: q for q in fields}
    facts, problems = [], []
    seen: set[str] = set()
    for path, given in values.items():
        question = by_path.get(path)
        if question is None:
            problems.append(FieldProblem(path, given, _("no such field"), ", ".join(sorted(by_path))))
            continue
        if given is None or given == "":
            continue
        try:
            facts.append(
                OverlayFact(
                    key=offering_key(offering_id, path),
                    value=answer_value(question, given),
                    source=source,
                    as_of=as_of,
                )
            )
        except ValidationError as exc:  # an id that is not one, an empty source, a date that is not one
            for error in exc.errors():
                part = _FACT_PARTS.get(str(error["loc"][0]) if error["loc"] else "")
                if part is None:
                    problems.append(FieldProblem(path, given, in_words(exc, OverlayFact), None))
                    break
                if part not in seen:
                    seen.add(part)
                    problems.append(_fact_part_problem(part, offering_id, source, as_of, error))
    return facts, problems


def _fact_part_problem(
    part: str, offering_id: str, source: str, as_of: str, error: Mapping[str, Any]
) -> FieldProblem:
    if part == "id":
        return FieldProblem(
            "id",
            offering_id,
            _("{offering!r} is not an offering id").format(offering=offering_id),
            _("lowercase letters, digits, '.', '_' or '-', starting with a letter or a digit"),
        )
    if part == "source":
        return FieldProblem("source", source, _("say where these values come from"), _("a source"))
    context = error.get("ctx") or {}
    return FieldProblem("as_of", as_of, str(error["msg"]), str(context.get("expected") or "") or None)


def check_offering(
    catalogs: CatalogSet,
    provider_id: str,
    offering_id: str,
    values: Mapping[str, Any],
    source: str,
    as_of: str | None = None,
    folder: Home = None,
    forget: Collection[str] = (),
) -> list[FieldProblem]:
    """The problems the loader's rules find in these values (field by field, as typed); nothing written.
    `values` maps form paths (`gpu`, `inter_node.fabric`, `price.gpu_hour`) to what was typed; `forget`
    names the paths of the user's own facts to take out (`own_fields`)."""
    as_of = as_of or dt.date.today().isoformat()
    catalog = catalogs.provider(provider_id)
    facts, problems = _facts_for(offering_id, values, source, as_of, offering_fields(catalog))
    if problems:
        return problems
    keys = {offering_key(offering_id, path) for path in forget}
    _path, _changes, errors = apply_facts(catalogs, provider_id, facts, folder, write=False, forget=keys)
    prefix = offering_key(offering_id, "")
    given = {f.key: values.get(f.key.removeprefix(prefix)) for f in facts}
    return [
        FieldProblem((e.field or "").removeprefix(prefix), given.get(e.field or ""), e.message, e.expected)
        for e in errors
    ]


def save_offering(
    catalogs: CatalogSet,
    provider_id: str,
    offering_id: str,
    values: Mapping[str, Any],
    source: str,
    as_of: str | None = None,
    folder: Home = None,
    forget: Collection[str] = (),
) -> Path | str:
    """Validate the values (`OfferingInvalid` with every field problem) and write them into the provider's
    overlay; the overlay's path. A value left empty keeps what the catalog says; the user's own facts at
    the paths in `forget` are taken out of the overlay (the bundled catalog's value, if any, stands again)."""
    problems = check_offering(catalogs, provider_id, offering_id, values, source, as_of, folder, forget)
    if problems:
        raise OfferingInvalid(problems)
    facts, _problems = _facts_for(
        offering_id,
        values,
        source,
        as_of or dt.date.today().isoformat(),
        offering_fields(catalogs.provider(provider_id)),
    )
    keys = {offering_key(offering_id, path) for path in forget}
    path, _changes, errors = apply_facts(catalogs, provider_id, facts, folder, forget=keys)
    if errors:  # the catalog changed under us
        raise OfferingInvalid([FieldProblem(e.field or "", None, e.message, e.expected) for e in errors])
    return path


def _taken(catalogs: CatalogSet, provider_id: str, offering_id: str) -> str | None:
    """Why `offering_id` cannot be a new offering of the provider (it has one of that id), or None."""
    catalog = catalogs.provider(provider_id)
    if catalog is not None and any(o.id == offering_id for o in catalog.offerings):
        return _("provider {provider} already has an offering {offering}").format(
            provider=provider_id, offering=offering_id
        )
    return None


def check_new_offering(
    catalogs: CatalogSet,
    provider_id: str,
    offering_id: str,
    values: Mapping[str, Any],
    source: str,
    as_of: str | None = None,
    folder: Home = None,
) -> list[FieldProblem]:
    """`check_offering` for an offering the catalogs do not have yet: also its id (field `id`: taken, or not
    an id) and that at least one fact is given (field ``)."""
    problems: list[FieldProblem] = []
    if FactKey.parse(offering_key(offering_id, "gpu")) is None:
        problems.append(_fact_part_problem("id", offering_id, source, as_of or "", {}))
    elif (taken := _taken(catalogs, provider_id, offering_id)) is not None:
        problems.append(FieldProblem("id", offering_id, taken, _("an id this provider does not use yet")))
    if problems:  # the values are still checked, as an offering of a free id
        offering_id = _free_id(catalogs, provider_id)
    problems += check_offering(catalogs, provider_id, offering_id, values, source, as_of, folder)
    if not problems and not any(v not in (None, "") for v in values.values()):
        problems.append(FieldProblem("", None, _needs_a_fact(), None))
    return problems


def _free_id(catalogs: CatalogSet, provider_id: str) -> str:
    """An offering id the provider does not use (to check values typed before the id is valid)."""
    number = 0
    while _taken(catalogs, provider_id, f"new-offering-{number}") is not None:
        number += 1
    return f"new-offering-{number}"


def _needs_a_fact() -> str:
    return _("a new offering needs at least one fact (for example its GPU)")


def create_offering(
    catalogs: CatalogSet,
    provider_id: str,
    offering_id: str,
    values: Mapping[str, Any],
    source: str,
    as_of: str | None = None,
    folder: Home = None,
) -> Path | str:
    """A new offering in the provider's overlay; `InputError` when the id is taken or not a catalog id."""
    taken = _taken(catalogs, provider_id, offering_id)
    if taken is not None:
        raise InputError(taken)
    if not any(v not in (None, "") for v in values.values()):
        raise InputError(_needs_a_fact())
    return save_offering(catalogs, provider_id, offering_id, values, source, as_of, folder)


def delete_offering(
    catalogs: CatalogSet, provider_id: str, offering_id: str, folder: Home = None
) -> Path | str:
    """Remove an offering the user created (every fact of it in the overlay); a bundled offering cannot be
    deleted (`InputError`: copy it to your catalogs instead)."""
    if not is_user_offering(catalogs, provider_id, offering_id):
        raise InputError(
            _(
                "{provider}/{offering} is not in your catalogs (a bundled offering is not deleted; copy it to your catalogs)"
            ).format(provider=provider_id, offering=offering_id)
        )
    home = overlay_home(folder)
    overlay = without_facts(home.current(provider_id), offering_key(offering_id, ""))
    return home.write(overlay)


def copy_offering(
    catalogs: CatalogSet,
    provider_id: str,
    offering_id: str,
    new_id: str,
    source: str | None = None,
    as_of: str | None = None,
    folder: Home = None,
) -> Path | str:
    """Copy an offering (a bundled one, typically) into the provider's overlay under `new_id`, each fact
    keeping its own source (or `source`, when given); the copy can then be edited and deleted."""
    catalog = catalogs.provider(provider_id)
    if catalog is None or not any(o.id == offering_id for o in catalog.offerings):
        raise InputError(
            _("no offering {provider}/{offering} to copy").format(provider=provider_id, offering=offering_id)
        )
    today = as_of or dt.date.today().isoformat()
    facts = []
    for field_path, (value, provenance) in offering_values(catalog, offering_id).items():
        if value is None:
            continue
        origin = provenance.describe() if provenance is not None else "?"
        facts.append(
            OverlayFact(
                key=offering_key(new_id, field_path),
                value=_plain(value),
                source=source or f"copied from {provider_id}/{offering_id}: {origin}",
                as_of=(provenance.as_of if provenance is not None and provenance.as_of else today),
            )
        )
    offering = next(o for o in catalog.offerings if o.id == offering_id)
    # its name too: the copy exists even when the offering states no fact the form asks about
    facts.append(
        OverlayFact(
            key=offering_key(new_id, "name"),
            value=_("{name} (my copy)").format(name=offering.name or offering_id),
            source=source or f"copied from {provider_id}/{offering_id}",
            as_of=today,
        )
    )
    if any(o.id == new_id for o in catalog.offerings):
        raise InputError(
            _("provider {provider} already has an offering {offering}").format(
                provider=provider_id, offering=new_id
            )
        )
    path, _changes, errors = apply_facts(catalogs, provider_id, facts, folder)
    if errors:
        raise OfferingInvalid([FieldProblem(e.field or "", None, e.message, e.expected) for e in errors])
    return path


def _plain(value: Any) -> Any:
    """A catalog value as overlay data (tuples as lists, endpoints as tables)."""
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json", exclude_none=True)
    return value
