"""DecisionsClient against the fake Decisions API (a real HTTP server on 127.0.0.1): every
answer's shape is checked, and anything else is a typed error with the request id; 429 and
5xx are retried honouring Retry-After, a Retry-After over 30 s is an error at once, 400 and
401 are never retried, a server that does not answer times out."""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Callable
from typing import Any

import pytest

from pagesight.errors import (
    DecisionsAnswerInvalid,
    DecisionsError,
    DecisionsRateLimited,
    InvalidOption,
)
from pagesight.planners.decisions import DecisionsClient, Question, Reply
from pagesight.testing.decisions import (
    DecisionsRequest,
    Fail,
    FakeDecisionsServer,
    Hang,
    Item,
    Malformed,
    RateLimit,
    reply_body,
)

KEY = "test-key"
QUESTIONS = {
    "ok": Question(type="noul", instructions="Is it fine?"),
    "pick": Question(type="choice", instructions="Which?", options={"a": "A", "b": "B"}),
    "level": Question(type="score", instructions="How much?", levels=("0", "1", "2", "3")),
}
GOOD = {"ok": 0.25, "pick": {"a": 0.8, "b": 0.2}, "level": [0.1, 0.2, 0.3, 0.4]}


def ask(fake: FakeDecisionsServer, **options: Any) -> Reply:
    client = DecisionsClient(api_key=KEY, base_url=fake.base_url, backoff=0, **options)
    return asyncio.run(client.decide(["goal: test"], QUESTIONS))


def test_a_good_reply_gives_typed_answers_and_the_token_count() -> None:
    with FakeDecisionsServer([{**GOOD, "ok": 0.123456789012345678}], api_key=KEY) as fake:
        reply = ask(fake)
    ok, pick, level = reply.answers["ok"], reply.answers["pick"], reply.answers["level"]
    assert ok.p == 0.123456789012345678  # type: ignore[union-attr]
    assert pick.choice == "a" and pick.probabilities == {"a": 0.8, "b": 0.2}  # type: ignore[union-attr]
    assert level.probabilities == (0.1, 0.2, 0.3, 0.4)  # type: ignore[union-attr]
    assert reply.input_tokens > 100 and reply.request_id == fake.requests[0].id
    sent = fake.requests[0]
    assert sent.headers["authorization"] == f"Bearer {KEY}"
    assert sent.body["model"] == "pplx-decider-v1.1-27b"
    assert sent.questions["level"]["criteria"] == ["0", "1", "2", "3"]


def spoil(change: Callable[[dict[str, Any]], None]) -> Callable[[DecisionsRequest], Item]:
    """A script item: the good reply to the request, spoilt by ``change``."""

    def item(request: DecisionsRequest) -> Item:
        body = copy.deepcopy(reply_body(request, GOOD))
        change(body)
        return Malformed(json=body)

    return item


def _set(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def change(body: dict[str, Any]) -> None:
        *head, last = path.split(".")
        node = body
        for key in head:
            node = node[key]
        if value is DELETE:
            del node[last]
        else:
            node[last] = value

    return change


DELETE = object()
SPOILT = {
    "noul above 1": (_set("answers.ok.noul", 1.3), "ok"),
    "noul not a number": (_set("answers.ok.noul", "likely"), "ok"),
    "noul a bool": (_set("answers.ok.noul", True), "ok"),
    "no answer": (_set("answers.ok", DELETE), "ok"),
    "another type": (_set("answers.ok", {"type": "choice", "choice": "a"}), "ok"),
    "a choice not offered": (_set("answers.pick.choice", "c"), "pick"),
    "a probability for no option": (_set("answers.pick.probabilities.c", 0.0), "pick"),
    "probabilities not summing to 1": (_set("answers.pick.probabilities.a", 0.3), "pick"),
    "a negative probability": (_set("answers.level.probabilities.0", -0.1), "level"),
    "a score past the levels": (_set("answers.level.score", 3.5), "level"),
    "no probabilities": (_set("answers.level.probabilities", DELETE), "level"),
    "no token count": (_set("usage", DELETE), None),
    "a token count as text": (_set("usage.input_tokens", "812"), None),
    "answers not an object": (_set("answers", ["ok"]), None),
}


@pytest.mark.parametrize("case", SPOILT)
def test_each_malformed_answer_is_a_typed_error_with_the_request_id(case: str) -> None:
    change, question = SPOILT[case]
    with FakeDecisionsServer([spoil(change)], api_key=KEY) as fake:
        with pytest.raises(DecisionsAnswerInvalid) as err:
            ask(fake)
        sent = fake.requests
    assert len(sent) == 1  # a wrong answer is not retried: asking again costs, and lies again
    assert err.value.request_id == sent[0].id
    assert err.value.question == question
    assert sent[0].id in str(err.value)


def test_a_body_that_is_not_json_is_a_typed_error_with_the_request_id() -> None:
    gateway = Malformed(body=b"<html>gateway</html>")
    with (
        FakeDecisionsServer([gateway], api_key=KEY) as fake,
        pytest.raises(DecisionsAnswerInvalid) as err,
    ):
        ask(fake)
    assert err.value.request_id == "fake-0001"
    assert "not JSON" in str(err.value) and "fake-0001" in str(err.value)


def test_a_429_is_retried_after_what_retry_after_asks_then_succeeds() -> None:
    with FakeDecisionsServer([RateLimit(retry_after=0.05), GOOD], api_key=KEY) as fake:
        reply = ask(fake)
    assert [r.id for r in fake.requests] == ["fake-0001", "fake-0002"]
    assert reply.request_id == "fake-0002"
    assert reply.answers["ok"].p == 0.25  # type: ignore[union-attr]


def test_a_5xx_is_retried_then_succeeds_and_gives_up_after_the_retries() -> None:
    with FakeDecisionsServer([Fail(status=500), Fail(status=503), GOOD], api_key=KEY) as fake:
        assert ask(fake).request_id == "fake-0003"
    with FakeDecisionsServer([Fail(status=500)] * 3, api_key=KEY) as fake:
        with pytest.raises(DecisionsError) as err:
            ask(fake)
        assert len(fake.requests) == 3  # the first try and two retries
    assert err.value.status == 500 and err.value.request_id == "fake-0003"
    assert "3 times" in str(err.value)


def test_a_retry_after_over_30_s_is_an_error_at_once() -> None:
    with FakeDecisionsServer([RateLimit(retry_after=31), GOOD], api_key=KEY) as fake:
        with pytest.raises(DecisionsRateLimited) as err:
            ask(fake)
        assert len(fake.requests) == 1  # it neither waited nor asked again
    assert err.value.retry_after == 31 and err.value.request_id == "fake-0001"
    assert "31 s" in str(err.value) and "30 s" in str(err.value)


def test_400_and_401_are_not_retried() -> None:
    with FakeDecisionsServer([Fail(status=400, message="bad question"), GOOD]) as fake:
        with pytest.raises(DecisionsError) as err:
            ask(fake)
        assert len(fake.requests) == 1
    assert err.value.status == 400 and "bad question" in str(err.value)
    with FakeDecisionsServer([GOOD, GOOD], api_key="another-key") as fake:
        with pytest.raises(DecisionsError) as err:
            ask(fake)
        assert fake.refused == [(401, "invalid API key")] and fake.requests == []
    assert err.value.status == 401 and "PERPLEXITY_API_KEY" in str(err.value)


def test_a_server_that_does_not_answer_times_out_after_the_retries() -> None:
    with FakeDecisionsServer([Hang(), Hang(), GOOD], api_key=KEY) as fake:
        assert ask(fake, timeout=0.3).request_id == "fake-0003"
    with FakeDecisionsServer([Hang()], api_key=KEY) as fake, pytest.raises(DecisionsError) as err:
        ask(fake, timeout=0.3, retries=0)
    assert "did not answer within 0.3 s" in str(err.value)


def test_the_fake_refuses_a_choice_of_more_than_255_options_as_the_api_does() -> None:
    many = {str(i): f"badge {i}" for i in range(256)}
    with FakeDecisionsServer([GOOD], api_key=KEY) as fake:
        client = DecisionsClient(api_key=KEY, base_url=fake.base_url)
        body = client.body(["goal"], QUESTIONS)
        body["questions"]["pick"]["criteria"] = many
        import httpx

        answer = httpx.post(
            f"{fake.base_url}/v1/decisions", json=body, headers={"Authorization": f"Bearer {KEY}"}
        )
    assert answer.status_code == 400 and "256 options" in answer.text
    with pytest.raises(InvalidOption) as err:
        Question(type="choice", instructions="?", options=many)
    assert err.value.option == "options"


def test_a_screenshot_with_more_tiles_than_the_api_reads_is_scaled_down() -> None:
    import io

    from PIL import Image

    from pagesight.planners.decisions.api import image_tiles
    from pagesight.planners.decisions.planner import fit_tiles

    def png(size: tuple[int, int]) -> bytes:
        out = io.BytesIO()
        Image.new("RGB", size, (200, 30, 30)).save(out, format="PNG")
        return out.getvalue()

    page = png((1280, 800))  # 1,000 tiles: sent as it is
    assert fit_tiles(page) == page
    retina = Image.open(io.BytesIO(fit_tiles(png((2560, 1600)))))  # 4,000 tiles at DPR 2
    assert image_tiles(*retina.size) <= 2048
    assert retina.size[0] / retina.size[1] == pytest.approx(1.6, abs=0.01)


def test_with_no_badge_on_screen_the_choices_are_not_asked() -> None:
    from pagesight.planners.decisions.request import page_questions

    assert set(page_questions([], ())) == {"blocked", "target_visible", "goal_reached", "risk"}
