"""The evaluation's use-cases, for `linkvet eval …`, the window and the agents: evaluations kept in the result
store (so every office of a team store sees the same one), created, changed, listed, exported and imported.
No Qt.

    new_evaluation(db, name, needs_path, offices, peak_windows, decide_by)
    add_candidate(db, name, provider, region, …)   a provider or region not in the catalogs is created in the
                                                   user's catalogs with its id and name only
    create_evaluation(db, name, needs, candidates=[NewCandidate…], …)  the window's guide: all of it at once
    add_endpoints(db, name, label, endpoints)      more test addresses for a candidate (a vendor's test URL)
    remove_candidate(db, name, label) / remove_evaluation(db, name)   no measurement is deleted
    list_evaluations(db) / load_evaluation(db, name)
    export_evaluation(db, name, out) / import_evaluation(db, path)

Every change is checked before anything is written (a candidate twice, an unknown id named with the nearest
ones, a bad endpoint) and written as one replacement of the evaluation's document.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from catalogs.errors import EvaluationError
from catalogs.evaluation.candidates import check_candidate
from catalogs.evaluation.model import (
    Candidate,
    Evaluation,
    Office,
    check_decide_by,
    check_endpoints,
    check_name,
    check_offices,
    document_version,
    parse_evaluation,
    read_evaluation_file,
    to_toml,
)
from catalogs.loader import CatalogSet
from catalogs.needs import NeedsProfile, load_needs
from desktop.i18n import _
from desktop.usecases.errors import InputError
from desktop.usecases.files import write_text
from desktop.usecases.identity import who
from probes.peak import DEFAULT_PEAK_WINDOWS, PeakWindow
from probes.store_location import StoreLocation

if TYPE_CHECKING:
    from desktop.usecases.overlay_home import OverlayHome
    from probes.store import Store
    from probes.store.documents import EvaluationDocument

ADDED_BY_USER = (
    "added by the user"  # the source of a provider or region `eval add` creates (data: not translated)
)


@dataclass(frozen=True, slots=True)
class EvaluationInfo:
    name: str
    candidates: int
    offices: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Added:
    """What `add_candidate` did: the evaluation now, the candidate (new, or one it had with more test
    endpoints now), and what it created in the user's catalogs."""

    evaluation: Evaluation
    created: tuple[str, ...]  # "provider vendorb", "region vendorb/sha-1"
    catalog_file: Path | str | None  # the user's overlay file, or the team store
    candidate: Candidate
    new_endpoints: tuple[str, ...] = ()  # the endpoints given to a candidate it had already


def _open(db: StoreLocation | None) -> Store:
    from probes.store import Store

    return Store(db)


def list_evaluations(db: StoreLocation | None) -> list[EvaluationInfo]:
    from probes.store_location import exists, location_or_default

    if not exists(location_or_default(db)):
        return []
    with _open(db) as store:
        return [
            EvaluationInfo(e.name, len(e.candidates), tuple(o.name for o in e.offices))
            for e in (_parsed(store, document) for document in store.evaluations())
        ]


def load_evaluation(db: StoreLocation | None, name: str) -> Evaluation:
    with _open(db) as store:
        return _read(store, name)


def _parsed(store: Store, document: EvaluationDocument) -> Evaluation:
    return parse_evaluation(document.body, f"{store.path} (evaluation {document.name})")


def _read(store: Store, name: str) -> Evaluation:
    document = store.evaluation(name)
    if document is None:
        known = [d.name for d in store.evaluations()]
        raise InputError(
            _(
                "no evaluation {name!r} in the store {store} (it has: {known}); `linkvet eval new` creates one"
            ).format(name=name[:80], store=store.path, known=", ".join(known) or "-")
        )
    return _parsed(store, document)


def save_evaluation(store: Store, evaluation: Evaluation) -> None:
    store.put_evaluation(
        evaluation.name, to_toml(evaluation), format=document_version(evaluation), updated_by=who()
    )


def new_evaluation(
    db: StoreLocation | None,
    name: str,
    needs_path: Path | NeedsProfile,
    *,
    offices: Sequence[Office] = (),
    peak_windows: Sequence[PeakWindow] = (),
    decide_by: str = "worst",
) -> Evaluation:
    """A new, empty evaluation (refused when one of that name is in the store). The needs: a needs file, or
    a profile (the window's needs form)."""
    check_name(name)
    needs = needs_path if isinstance(needs_path, NeedsProfile) else load_needs(needs_path)
    offices = check_offices(offices)
    evaluation = Evaluation(
        name,
        needs,
        offices,
        (),
        tuple(peak_windows) or DEFAULT_PEAK_WINDOWS,
        check_decide_by(decide_by, offices),
        needs_source=None if isinstance(needs_path, NeedsProfile) else str(needs_path),
    )
    with _open(db) as store:
        if store.evaluation(name) is not None:
            raise InputError(
                _("the store {store} has an evaluation {name!r} already").format(store=store.path, name=name)
            )
        save_evaluation(store, evaluation)
    return evaluation


def add_candidate(
    db: StoreLocation | None,
    name: str,
    catalogs: CatalogSet,
    *,
    provider: str,
    region: str,
    offering: str | None = None,
    endpoints: Sequence[str] = (),
    line_type: str | None = None,
    provider_name: str | None = None,
    region_name: str | None = None,
    today: str | None = None,
    catalog_folder: Path | None = None,
) -> Added:
    """Add a candidate; a provider or region the catalogs do not have is created in the user's catalogs with
    its id and name only (nothing else claimed; the source says who added it and when): in the team store
    when `db` is a PostgreSQL one (every office's agent then knows it), else in the user's folder. A
    candidate the evaluation has already gets the endpoints given that it does not have yet (the next step
    `eval show` names for a test URL); given nothing new, it is refused as a candidate twice."""
    check_name(provider, _("provider"))
    check_name(region, _("region"))
    endpoints = check_endpoints(list(endpoints), f"{provider}/{region}")
    candidate = Candidate(provider, region, offering, line_type, endpoints)
    with _open(db) as store:
        evaluation = _read(store, name)
        existing = next((c for c in evaluation.candidates if c.key == candidate.key), None)
        if existing is not None and line_type in (None, existing.line_type):
            more = tuple(e for e in endpoints if e not in existing.endpoints)
            if more:
                changed = evaluation.with_endpoints(existing.label, more)
                grown = changed.candidate(existing.label)
                assert grown is not None
                _endpoints_not_shared(changed, grown)
                save_evaluation(store, changed)
                return Added(changed, (), None, grown, more)
        # A candidate twice is refused before anything is written.
        changed = evaluation.with_candidate(candidate)
        _endpoints_not_shared(changed, candidate)
        from desktop.usecases.overlay_home import overlay_home

        home = overlay_home(catalog_folder, db=db)
        created, path = _create_in_catalogs(catalogs, candidate, provider_name, region_name, today, home)
        if created:
            from desktop.usecases.user_catalogs import reload

            catalogs = reload(folder=catalog_folder, db=db)
        check_candidate(candidate, catalogs)
        save_evaluation(store, changed)
    return Added(changed, tuple(created), path, candidate)


@dataclass(frozen=True, slots=True)
class NewCandidate:
    """A candidate as the window's guide collects it (`add_candidate`'s arguments)."""

    provider: str
    region: str
    offering: str | None = None
    endpoints: tuple[str, ...] = ()
    provider_name: str | None = None
    region_name: str | None = None


def create_evaluation(
    db: StoreLocation | None,
    name: str,
    needs: Path | NeedsProfile,
    catalogs: CatalogSet,
    *,
    candidates: Sequence[NewCandidate],
    offices: Sequence[Office] = (),
    peak_windows: Sequence[PeakWindow] = (),
    decide_by: str = "worst",
    catalog_folder: Path | None = None,
) -> tuple[Evaluation, tuple[str, ...]]:
    """A new evaluation with its candidates, and what was created in the user's catalogs (a vendor or region
    new to them). A candidate refused takes the evaluation away again (what was created in the catalogs
    stays: an id and a name)."""
    new_evaluation(db, name, needs, offices=offices, peak_windows=peak_windows, decide_by=decide_by)
    created: list[str] = []
    evaluation: Evaluation | None = None
    try:
        for candidate in candidates:
            added = add_candidate(
                db,
                name,
                catalogs,
                provider=candidate.provider,
                region=candidate.region,
                offering=candidate.offering,
                endpoints=candidate.endpoints,
                provider_name=candidate.provider_name,
                region_name=candidate.region_name,
                catalog_folder=catalog_folder,
            )
            evaluation = added.evaluation
            if added.created:
                from desktop.usecases.user_catalogs import reload

                created += added.created
                catalogs = reload(folder=catalog_folder)
    except BaseException:
        remove_evaluation(db, name)
        raise
    return evaluation or load_evaluation(db, name), tuple(created)


def _endpoints_not_shared(evaluation: Evaluation, candidate: Candidate) -> None:
    """An address measured for two candidates would be one series with two candidates' labels: refused."""
    from probes.target import parse_target

    mine = {parse_target(e).key for e in candidate.endpoints}
    for other in evaluation.candidates:
        if other.key == candidate.key:
            continue
        shared = mine & {parse_target(e).key for e in other.endpoints}
        if shared:
            raise EvaluationError(
                _("{endpoint} is an endpoint of {other} already").format(
                    endpoint=sorted(shared)[0].partition(":")[2], other=other.label
                )
            )


def _create_in_catalogs(
    catalogs: CatalogSet,
    candidate: Candidate,
    provider_name: str | None,
    region_name: str | None,
    today: str | None,
    folder: OverlayHome,
) -> tuple[list[str], Path | str | None]:
    from catalogs.overlay import OverlayFact
    from desktop.usecases.user_catalogs import apply_facts

    today = today or dt.date.today().isoformat()
    catalog = catalogs.provider(candidate.provider)
    facts: list[tuple[str, str]] = []
    created = []
    if catalog is None:
        facts.append(("provider.name", provider_name or candidate.provider))
        created.append(_("provider {provider}").format(provider=candidate.provider))
    if catalog is None or catalog.region(candidate.region) is None:
        if candidate.offering is not None:
            check_candidate(candidate, catalogs)  # an offering is never invented: the nearest are named
        facts.append((f"region[{candidate.region}].name", region_name or candidate.region))
        created.append(
            _("region {provider}/{region}").format(provider=candidate.provider, region=candidate.region)
        )
    if not facts:
        return [], None
    added = [
        OverlayFact(key=key, value=value, standing="claimed", source=ADDED_BY_USER, as_of=today)
        for key, value in facts
    ]
    path, _changes, errors = apply_facts(catalogs, candidate.provider, added, folder)
    if errors:
        raise errors[0]
    return created, path


def add_endpoints(db: StoreLocation | None, name: str, label: str, endpoints: Sequence[str]) -> Evaluation:
    """More test addresses for the candidate `provider/region[/offering]` (one it has already is refused)."""
    from dataclasses import replace

    with _open(db) as store:
        evaluation = _read(store, name)
        candidate = evaluation.candidate(label)
        if candidate is None:
            return evaluation.without_candidate(label)  # raises, naming the candidates there are
        changed_candidate = replace(
            candidate, endpoints=check_endpoints([*candidate.endpoints, *endpoints], label)
        )
        changed = replace(
            evaluation,
            candidates=tuple(
                changed_candidate if c.key == candidate.key else c for c in evaluation.candidates
            ),
        )
        _endpoints_not_shared(changed, changed_candidate)
        save_evaluation(store, changed)
    return changed


def remove_candidate(db: StoreLocation | None, name: str, label: str) -> Evaluation:
    """The candidate `provider/region[/offering]` taken out of the evaluation; its measurements stay."""
    with _open(db) as store:
        changed = _read(store, name).without_candidate(label)
        save_evaluation(store, changed)
    return changed


def remove_evaluation(db: StoreLocation | None, name: str) -> None:
    """The evaluation deleted from the store; its measurements stay."""
    with _open(db) as store:
        _read(store, name)
        store.delete_evaluation(name)


def export_evaluation(db: StoreLocation | None, name: str, out: Path) -> Path:
    return write_text(out, to_toml(load_evaluation(db, name)))


def import_evaluation(db: StoreLocation | None, path: Path, *, replace: bool = False) -> Evaluation:
    """An evaluation file into the store (refused when one of its name is there, unless `replace`)."""
    evaluation = read_evaluation_file(path)
    with _open(db) as store:
        if not replace and store.evaluation(evaluation.name) is not None:
            raise InputError(
                _("the store {store} has an evaluation {name!r} already (--replace replaces it)").format(
                    store=store.path, name=evaluation.name
                )
            )
        save_evaluation(store, evaluation)
    return evaluation


def ensure_example(db: StoreLocation | None) -> str:
    """The bundled example evaluation in the store (put there the first time); its name."""
    from catalogs.evaluation.model import EXAMPLE_EVALUATION

    example = read_evaluation_file(EXAMPLE_EVALUATION)
    with _open(db) as store:
        if store.evaluation(example.name) is None:
            save_evaluation(store, example)
    return example.name
