"""The pydantic side of reading the files `probes` is handed: the base of every file's model (`FileModel`) and
the duration field the plans and alert rules share (`Cadence`). Kept apart from `probes.files.inputfile` (the reading
itself, and the words for pydantic's errors), which `probes.target` uses to read target lists: pydantic takes
60 ms and 8 MB to import, and a `linkvet probe --file` needs neither."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, BeforeValidator, ConfigDict

from probes import limits

__all__ = ["Cadence", "FileModel"]


class FileModel(BaseModel):
    """The base of every file's pydantic model: no unknown keys, frozen, no NaN or infinities."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


Cadence = Annotated[float, BeforeValidator(lambda value: limits.parse_duration(value, limits.CADENCE))]
