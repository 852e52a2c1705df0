"""Where a user's own facts about a provider (its overlay: vendor answers, verified facts, edits) are kept:

    FolderHome   the provider's overlay file in the user's catalog folder (`catalogs.user`): a SQLite store,
                 or no team, as always
    TeamHome     the team's store, when the store is PostgreSQL: every change is a record with its office,
                 who and when (`probes.store.vendor_facts`, read and written by `catalogs.team`), so every
                 office, every window and every report ranks on the same facts

Both answer the same three questions, so the use-cases that change facts (`desktop.usecases.user_catalogs`,
`questionnaire`, `accept_import`, `evaluation`) are written once: `current(provider)` (the overlay as it is
now), `write(overlay)` (keep this overlay: the file rewritten, or the store given the changes since
`current`) and `where(provider)` (what names it in messages). `overlay_home(where, db=, office=)` picks one:
what the caller gives, else the team store when the store (`--db`, else `LINKVET_DB`) is PostgreSQL, else the
folder. A team home records the changes relative to the overlay it read, so a change another office made
meanwhile is not undone.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from catalogs.errors import CatalogFileError
from catalogs.overlay import OverlayFile, render_overlay
from catalogs.team import (
    TEAM_FACT_FORMAT,
    TeamOverlay,
    changes_between,
    combined,
    parse_record,
    team_overlays,
)
from catalogs.user import overlay_path, read_overlay
from desktop.i18n import _
from desktop.usecases.files import write_text
from desktop.usecases.identity import default_office, who
from probes.errors import StoreError
from probes.store_location import StoreLocation, StoreUrl, location_or_default

if TYPE_CHECKING:
    from probes.store import Store

OVERLAY_HEADER = (
    "linkvet: your own facts about this provider, merged over its catalog by key (never edit the bundled files).\n"
    "Written by linkvet questionnaire import, linkvet accept import and the window; each fact keeps its source,\n"
    "as_of, standing and its earlier values. Edit by hand if you like: linkvet catalog validate checks it."
)


class OverlayHome(Protocol):
    def current(self, provider_id: str) -> OverlayFile:
        """The provider's overlay now (an empty one when it has none)."""
        ...

    def write(self, overlay: OverlayFile) -> Path | str:
        """Keep `overlay` as the provider's; where it went (`WriteError`/`StoreError` when it cannot)."""
        ...

    def where(self, provider_id: str) -> Path | str:
        """What names the provider's overlay in messages."""
        ...

    def to_validate(self, overlay: OverlayFile) -> tuple[OverlayFile, Path | None]:
        """What the catalogs would merge for this provider with `overlay` kept, and the file that names it."""
        ...


@dataclass
class FolderHome:
    """The overlay files of a user's catalog folder (None: `catalogs.user.user_catalog_dir()`)."""

    folder: Path | None = None

    def current(self, provider_id: str) -> OverlayFile:
        """A broken file raises `CatalogFileError` naming it: it is never silently replaced."""
        path = overlay_path(provider_id, self.folder)
        if not path.exists():
            return OverlayFile(provider=provider_id)
        overlay, _text, errors = read_overlay(path)
        if overlay is None:
            raise errors[0]
        return overlay

    def write(self, overlay: OverlayFile) -> Path:
        """Written atomically (`desktop.usecases.files`)."""
        return write_text(
            overlay_path(overlay.provider, self.folder), render_overlay(overlay, OVERLAY_HEADER)
        )

    def where(self, provider_id: str) -> Path:
        return overlay_path(provider_id, self.folder)

    def to_validate(self, overlay: OverlayFile) -> tuple[OverlayFile, Path | None]:
        return overlay, overlay_path(overlay.provider, self.folder)


@dataclass
class TeamHome:
    """The team's facts in a PostgreSQL store, recorded as `who` at `office` (None: not said)."""

    location: StoreUrl
    office: str | None = None
    recorded_by: str = field(default_factory=who)
    folder: Path | None = None  # the user's folder, whose overlay the team's facts are put over
    _read: dict[str, OverlayFile] = field(default_factory=dict, repr=False)

    @property
    def label(self) -> str:
        return team_label(self.location)

    def current(self, provider_id: str) -> OverlayFile:
        from probes.store import Store

        with Store(self.location) as store:
            overlays, _problems = read_team_overlays(store, provider_id)
        found = overlays.get(provider_id)
        overlay = found.overlay if found is not None else OverlayFile(provider=provider_id)
        self._read[provider_id] = overlay
        return overlay

    def write(self, overlay: OverlayFile) -> str:
        """The changes since `current` (read now if it was not), as records in one transaction."""
        from probes.store import Store, VendorFact
        from probes.timestamps import now_us

        before = self._read.get(overlay.provider)
        if before is None:
            before = self.current(overlay.provider)
        changes = changes_between(before, overlay)
        if changes:
            at = now_us()
            records = [
                VendorFact(
                    0,
                    overlay.provider,
                    kind,
                    key,
                    TEAM_FACT_FORMAT,
                    json.dumps(body, ensure_ascii=False, sort_keys=True),
                    self.office,
                    self.recorded_by,
                    at,
                )
                for kind, key, body in changes
            ]
            with Store(self.location) as store:
                store.add_vendor_facts(records)
        self._read[overlay.provider] = overlay
        return self.label

    def where(self, provider_id: str) -> str:
        return self.label

    def to_validate(self, overlay: OverlayFile) -> tuple[OverlayFile, Path | None]:
        folder = FolderHome(self.folder)
        try:
            mine = folder.current(overlay.provider)
        except Exception:  # a broken folder overlay is left out of the catalogs too
            mine = None
        path = folder.where(overlay.provider)
        return combined(mine, overlay), path if mine is not None and path.exists() else None


def read_team_overlays(
    store: Store, provider: str | None = None
) -> tuple[dict[str, TeamOverlay], list[CatalogFileError]]:
    """Each provider's team overlay from the store's records (one provider's when named), and the records
    that could not be read."""
    problems: list[CatalogFileError] = []
    records = []
    for stored in store.vendor_facts(provider=provider):
        try:
            records.append(
                parse_record(
                    stored.id,
                    stored.provider,
                    stored.kind,
                    stored.key,
                    stored.format,
                    stored.body,
                    stored.office,
                    stored.recorded_by,
                    stored.recorded_us,
                )
            )
        except CatalogFileError as exc:
            problems.append(exc)
    overlays, unreadable = team_overlays(records)
    return overlays, [*problems, *unreadable]


def team_label(location: StoreUrl) -> str:
    """What names a team store in a fact's provenance and in messages (its URL without the password)."""
    return _("the team store {store}").format(store=location)


def team_location(db: StoreLocation | None = None) -> StoreUrl | None:
    """The store (`db`, else `LINKVET_DB`) when it is a PostgreSQL one, else None (also when `LINKVET_DB`
    names no store: the commands that open it say so)."""
    try:
        location = location_or_default(db)
    except (StoreError, ValueError):
        return None
    return location if isinstance(location, StoreUrl) else None


def overlay_home(
    where: Path | OverlayHome | None = None,
    *,
    db: StoreLocation | None = None,
    office: str | None = None,
) -> OverlayHome:
    """`where` when given (a folder is its `FolderHome`); else the team store when the store is PostgreSQL
    (recorded from `office`, else `$LINKVET_OFFICE`), else the user's folder."""
    if isinstance(where, Path):
        return FolderHome(where)
    if where is not None:
        return where
    location = team_location(db)
    if location is not None:
        return TeamHome(location, office or default_office())
    return FolderHome()
