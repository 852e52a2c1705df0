"""The evaluation's document: written and read back the same; names, offices, endpoints and candidates held to
what they may be, each refusal naming the file, line and field; the candidates checked against the catalogs
with the nearest ids named; the catalogs narrowed to exactly the candidates."""

from __future__ import annotations

from pathlib import Path

import pytest

from catalogs.errors import EvaluationError
from catalogs.evaluation.candidates import candidate_catalogs, candidate_endpoints, check_candidate
from catalogs.evaluation.model import (
    EXAMPLE_EVALUATION,
    Candidate,
    Evaluation,
    check_endpoints,
    parse_evaluation,
    parse_office,
    read_evaluation_file,
    to_toml,
)
from catalogs.needs import EXAMPLE_NEEDS, load_needs
from catalogs.user import load_with_user
from probes.peak import PeakWindow


@pytest.fixture(scope="module")
def catalogs():  # type: ignore[no-untyped-def]
    return load_with_user(include_user=False)


def _evaluation(*candidates: Candidate) -> Evaluation:
    return Evaluation(
        "q1-gpu",
        load_needs(EXAMPLE_NEEDS),
        (parse_office("shanghai:ct"), parse_office("beijing")),
        candidates,
        (PeakWindow.parse("20:00-20:15 Asia/Shanghai"),),
        "worst",
    )


def test_the_document_reads_back_as_the_same_evaluation() -> None:
    evaluation = _evaluation(
        Candidate(
            "raksmart", "san-jose", None, "cn2-gia", ("198.18.1.1", "https://lg.example.net/100MB.test")
        ),
        Candidate("lambda", "us-west-1", "gpu_8x_h100_sxm5", None, ("gpu.example.net:22",)),
    )
    text = to_toml(evaluation)
    assert 'format = "linkvet-evaluation"' in text and "format_version = 1" in text
    assert parse_evaluation(text, "x.toml") == evaluation


def test_the_bundled_example_is_three_candidates_on_loopback() -> None:
    example = read_evaluation_file(EXAMPLE_EVALUATION)
    assert len(example.candidates) == 3 and example.offices == ()
    assert all(e.startswith("127.") for c in example.candidates for e in c.endpoints)


@pytest.mark.parametrize(
    "endpoint",
    [
        "javascript:alert(1)",
        "file:///etc/passwd",
        "http://lg.example.net/\r\nX-Injected: 1",
        "lg example net",
        "ftp://lg.example.net/file",
        "",
        "[::1",
    ],
)
def test_an_endpoint_that_is_no_address_host_or_http_url_is_refused(endpoint: str) -> None:
    with pytest.raises(EvaluationError, match="raksmart/san-jose: endpoint"):
        check_endpoints([endpoint], "raksmart/san-jose")


def test_one_endpoint_spelt_two_ways_is_refused_as_a_repeat() -> None:
    with pytest.raises(EvaluationError, match=r"endpoint 'lg\.example\.net' is lg\.example\.net again"):
        check_endpoints(["127.0.0.1", "127.0.0.1:22", "LG.Example.NET.", "lg.example.net"], "a/b")


def test_the_same_candidate_twice_is_refused() -> None:
    evaluation = _evaluation(Candidate("raksmart", "san-jose"))
    with pytest.raises(EvaluationError, match="raksmart/san-jose is a candidate of q1-gpu already"):
        evaluation.with_candidate(Candidate("raksmart", "san-jose", None, None, ("198.18.1.2",)))


@pytest.mark.parametrize(
    ("change", "at", "field", "words"),
    [
        (('name = "q1-gpu"', 'name = "Q1 GPU"'), "name =", "name", "expected lower-case letters"),
        (('carrier = "ct"', 'carrier = "att"'), 'carrier = "att"', "offices[0]", "expected ct, cu or cm"),
        (('decide_by = "worst"', 'decide_by = "best"'), "decide_by", "decide_by", "expected worst, each or"),
        (
            ('"20:00-20:15 Asia/Shanghai"', '"20:00 Asia/Shanghai"'),
            '"20:00 Asia',
            "peak_windows[0]",
            "'HH:MM",
        ),
        (
            ('"198.18.1.1"', '"javascript:alert(1)"'),
            "endpoints =",
            "candidates[0].endpoints",
            "an http(s) URL",
        ),
        (
            ("format_version = 1\nname", "format_version = 9\nname"),
            "format_version",
            "format_version",
            "newer",
        ),
    ],
)
def test_a_bad_document_names_file_line_and_field(
    change: tuple[str, str], at: str, field: str, words: str
) -> None:
    text = to_toml(_evaluation(Candidate("raksmart", "san-jose", None, None, ("198.18.1.1",))))
    assert change[0] in text, text
    bad = text.replace(change[0], change[1], 1)
    with pytest.raises(EvaluationError) as caught:
        parse_evaluation(bad, Path("shared.toml"))
    assert caught.value.path == Path("shared.toml") and caught.value.field == field, str(caught.value)
    line = next(n for n, text in enumerate(bad.splitlines(), start=1) if at in text)
    assert caught.value.line == line and words in str(caught.value), (str(caught.value), bad)


def test_an_unknown_field_and_a_missing_needs_profile_are_refused() -> None:
    text = to_toml(_evaluation())
    with pytest.raises(EvaluationError, match="unknown field"):
        parse_evaluation("vendors = 3\n" + text)
    with pytest.raises(EvaluationError, match=r"needs: missing: the needs profile"):
        parse_evaluation(text[: text.index("[needs]")])


def test_unknown_catalog_ids_are_named_with_the_nearest(catalogs) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(EvaluationError, match=r"no provider 'raksmrt'.*nearest: raksmart"):
        check_candidate(Candidate("raksmrt", "san-jose"), catalogs)
    with pytest.raises(EvaluationError, match=r"raksmart has no region 'san-jse'.*nearest: san-jose"):
        check_candidate(Candidate("raksmart", "san-jse"), catalogs)
    with pytest.raises(
        EvaluationError, match=r"lambda has no offering 'gpu_8x_h100'.*nearest: gpu_8x_h100_sxm5"
    ):
        check_candidate(Candidate("lambda", "us-west-1", "gpu_8x_h100"), catalogs)


def test_the_catalogs_narrowed_to_the_candidates_hold_exactly_their_offerings(catalogs) -> None:  # type: ignore[no-untyped-def]
    evaluation = _evaluation(
        Candidate("lambda", "us-west-1", "gpu_8x_h100_sxm5"),
        Candidate("raksmart", "san-jose"),
    )
    narrowed = candidate_catalogs(evaluation, catalogs)
    found = sorted((p.provider.id, o.id, o.regions) for p, o in narrowed.offerings())
    raksmart = [o.id for o in catalogs.provider("raksmart").offerings]
    assert found == sorted(
        [("lambda", "gpu_8x_h100_sxm5", ("us-west-1",))]
        + [
            ("raksmart", o, next(x.regions for x in catalogs.provider("raksmart").offerings if x.id == o))
            for o in raksmart
        ]
    )
    assert [r.id for r in narrowed.provider("lambda").regions] == ["us-west-1"]


def test_a_candidates_endpoints_are_its_own_then_its_regions(catalogs) -> None:  # type: ignore[no-untyped-def]
    candidate = Candidate("raksmart", "san-jose", None, None, ("198.18.1.1",))
    endpoints = candidate_endpoints(candidate, catalogs)
    assert endpoints[0].address == "198.18.1.1" and endpoints[0].source == "evaluation"
    region = catalogs.provider("raksmart").region("san-jose")
    assert len(endpoints) == 1 + sum(1 for e in region.endpoints if e.kind != "looking_glass")
    assert all(e.source != "evaluation" for e in endpoints[1:])


def test_a_candidate_may_leave_out_its_regions_catalog_endpoints(catalogs) -> None:  # type: ignore[no-untyped-def]
    own = Candidate("raksmart", "san-jose", None, None, ("198.18.1.1",), catalog_endpoints=False)
    evaluation = _evaluation(own)
    assert parse_evaluation(to_toml(evaluation)) == evaluation
    assert [e.address for e in candidate_endpoints(own, catalogs)] == ["198.18.1.1"]
