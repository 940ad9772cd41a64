"""The fakes of pagesight.testing share one server (ScriptedServer); what each API's fake
decides for itself is kept apart: past the script's end a chat fake answers with a text reply
and the Decisions fake with a loud 500; a script's function that raises is a 400 in a chat
fake (never retried) and a 500 in the Decisions fake; every answer carries a request id; a
body that is not JSON is refused before the script plays, and listed as refused; a Drop
closes the connection with no answer, and the next request is served as scripted."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from pagesight.errors import DecisionsError
from pagesight.planners.decisions import DecisionsClient, Question
from pagesight.testing import Drop, FakeAnthropic, FakeOpenAI, Reply
from pagesight.testing.decisions import DecisionsRequest, FakeDecisionsServer, Hang

KEY = "test-key"
CHAT = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}


def _broken(body: Any) -> Reply:
    raise LookupError("no such element")


def test_a_chat_fake_past_its_script_replies_in_text_and_a_raising_script_is_a_400() -> None:
    with FakeOpenAI([Reply(text="one"), _broken]) as fake:
        url = f"{fake.base_url}/chat/completions"
        first, broken, past = (httpx.post(url, json=CHAT) for _ in range(3))
        not_json = httpx.post(url, content=b"{not json")
    assert first.json()["choices"][0]["message"]["content"] == "one"
    assert broken.status_code == 400
    assert broken.json()["error"]["message"] == "the script raised LookupError: no such element"
    assert [type(e) for e in fake.errors] == [LookupError]
    assert past.json()["choices"][0]["message"]["content"] == "(the script has no more replies)"
    assert not_json.status_code == 400 and fake.refused == [(400, "the request body is not JSON")]
    assert len(fake.requests) == 3
    ids = [r.headers["x-request-id"] for r in (first, broken, past, not_json)]
    assert ids == ["fake-0001", "fake-0002", "fake-0003", "fake-0004"]


def test_a_drop_closes_the_connection_without_an_answer_and_the_script_goes_on() -> None:
    with FakeOpenAI([Drop(), Reply(text="after")]) as fake:
        url = f"{fake.base_url}/chat/completions"
        with pytest.raises(httpx.RemoteProtocolError, match="without sending a response"):
            httpx.post(url, json=CHAT)
        after = httpx.post(url, json=CHAT)
    assert after.json()["choices"][0]["message"]["content"] == "after"
    assert fake.requests == [CHAT, CHAT] and len(fake.usages) == 1  # the drop sent no reply


def test_an_anthropic_fake_with_a_wrong_key_still_records_what_was_sent() -> None:
    with FakeAnthropic([Reply(text="never")], api_key=KEY) as fake:
        answer = httpx.post(f"{fake.base_url}/v1/messages", json=CHAT, headers={"x-api-key": "x"})
    assert answer.status_code == 401
    assert answer.json()["error"] == {"type": "authentication_error", "message": "invalid api key"}
    assert fake.requests == [CHAT] and fake.refused == []


def _decisions_broken(request: DecisionsRequest) -> Any:
    raise LookupError("no badge named 'Save'")


def test_the_decisions_fake_past_its_script_and_with_a_raising_script_answers_500() -> None:
    questions = {"ok": Question(type="noul", instructions="Is it fine?")}
    with FakeDecisionsServer([{"ok": 0.9}, _decisions_broken, {"nope": 1}], api_key=KEY) as fake:
        body = DecisionsClient(api_key=KEY, base_url=fake.base_url).body(["goal"], questions)
        url, auth = f"{fake.base_url}/v1/decisions", {"Authorization": f"Bearer {KEY}"}
        good, broken, wrong, past = (httpx.post(url, json=body, headers=auth) for _ in range(4))
    assert good.json()["answers"]["ok"] == {"type": "noul", "noul": 0.9}
    assert fake.usages == [(good.json()["usage"]["input_tokens"], 0)]
    assert broken.status_code == 500
    assert "the script raised LookupError: no badge named 'Save'" in broken.text
    assert wrong.status_code == 500 and "the fake's script is wrong" in wrong.text
    assert past.status_code == 500
    assert past.json()["error"] == {
        "message": "the fake's script has no more replies",
        "type": "server_error",
    }
    assert [r.id for r in fake.requests] == ["fake-0001", "fake-0002", "fake-0003", "fake-0004"]
    assert past.headers["x-request-id"] == "fake-0004"


def test_a_fake_started_again_after_closing_still_hangs_when_its_script_says_so() -> None:
    # A fake used by two tests in turn (a module fixture restarted, or two ``with`` blocks):
    # closing it ends the hangs of its first use, and must not end those of the next.
    questions = {"ok": Question(type="noul", instructions="Is it fine?")}
    fake = FakeDecisionsServer([{"ok": 0.9}, Hang(seconds=None)], api_key=KEY)
    with fake:
        client = DecisionsClient(api_key=KEY, base_url=fake.base_url, timeout=0.3, retries=0)
        assert asyncio.run(client.decide(["goal"], questions)).request_id == "fake-0001"
    with fake, pytest.raises(DecisionsError) as err:
        client = DecisionsClient(api_key=KEY, base_url=fake.base_url, timeout=0.3, retries=0)
        asyncio.run(client.decide(["goal"], questions))
    assert "did not answer within 0.3 s" in str(err.value)  # not the 504 a closing fake sends
    assert err.value.status is None
