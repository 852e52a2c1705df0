"""The exception tree of `catalogs`: every exception class catalogs defines derives from `CatalogError` and
is drawn in the tree at the top of `catalogs/errors.py`; a look-up by an unknown checklist id raises one."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

import catalogs
from catalogs import errors
from catalogs.checklist import default_checklist
from catalogs.errors import CatalogError, UnknownCriterionError
from catalogs.needs import NeedsProfile
from catalogs.scoring import rank_offerings
from tests.catalogs._builders import catalog, offering, region


def catalogs_exception_classes() -> set[type[BaseException]]:
    found: set[type[BaseException]] = set()
    for module_info in pkgutil.walk_packages(catalogs.__path__, "catalogs."):
        module = importlib.import_module(module_info.name)
        for _, value in inspect.getmembers(module, inspect.isclass):
            # `probes.files.textinput.InputRefused` is the shared reading checks' signal: `catalogs._toml`, the one
            # reading helper, turns it into the reader's own CatalogFileError (tests/test_textinput.py)
            if issubclass(value, BaseException) and value.__module__.startswith("catalogs"):
                found.add(value)
    return found


def test_every_exception_catalogs_defines_is_in_the_tree() -> None:
    classes = catalogs_exception_classes()
    assert CatalogError in classes and len(classes) > 10
    tree = (errors.__doc__ or "").split("Foreign exceptions")[0]
    for cls in classes:
        assert issubclass(cls, CatalogError), cls
        assert f" {cls.__name__} " in tree or f"    {cls.__name__}\n" in tree, (
            f"{cls.__name__} is not drawn in the tree"
        )


def test_an_unknown_checklist_id_raises_a_catalog_error_that_is_also_a_key_error() -> None:
    with pytest.raises(UnknownCriterionError, match="no checklist item 'speed'"):
        default_checklist().get("speed")
    needs = NeedsProfile.model_validate({"model": {"params": 7e9}})
    (entry,) = rank_offerings(needs, [catalog("acme", region("r1") + offering("o1", '["r1"]'))]).entries
    assert entry.judgement("price").criterion == "price"
    with pytest.raises(KeyError):  # a look-up by id (it used to leak a StopIteration)
        entry.judgement("speed")
