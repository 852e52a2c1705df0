"""The store a scheduler writes to, opened the way both faces open it (`linkvet schedule` and the desktop
app's scheduler): now where it can be; a PostgreSQL store whose server cannot be reached is opened to connect
at its first use instead, and the scheduler measures into the spool until the server is back. A SQLite
file, or a server that answers with a refusal (a wrong password, no such database), is refused at once as
for any other command. No Qt."""

from __future__ import annotations

from typing import TYPE_CHECKING

from desktop.i18n import _
from probes.errors import StoreUnreachableError
from probes.store_location import StoreLocation, StoreUrl, location_or_default

if TYPE_CHECKING:
    from probes.store import Store


def open_schedule_store(db: StoreLocation | None) -> tuple[Store, str | None]:
    """The store at `db` (the default store when None) and, when its server could not be reached, the
    sentence that tells the user the rounds wait in the spool until it is back (None when it was opened)."""
    from probes.paths import default_spool_path
    from probes.store import Store

    try:
        return Store(db), None
    except StoreUnreachableError as exc:
        location = location_or_default(db)
        if not isinstance(location, StoreUrl):
            raise
        said = _(
            "the store {store} cannot be reached ({reason}): measuring into the spool {spool} until it is back"
        ).format(store=location, reason=exc, spool=default_spool_path())
        return Store(location, connect_now=False), said
