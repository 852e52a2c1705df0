"""The checklist's item titles as the window shows them: the core's own words (`Criterion.shown_title`,
the `catalogs` translation of `catalogs/checklist.toml`), so the window, the CLI and the workbook say the
same thing; a title of the user's own checklist reads as written."""

from catalogs.checklist import default_checklist


def criterion_title(criterion: str) -> str:
    """The checklist item's title in the current language; an id the checklist lacks shows as itself."""
    for c in default_checklist().criterion:
        if c.id == criterion:
            return c.shown_title
    return criterion
