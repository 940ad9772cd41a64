"""A person before risky actions over MCP: a real ``python -m pagesight mcp`` subprocess
(HTTP, attached to the session's Chromium), driven by the SDK's own client. A client that
declares elicitation has its user asked — a 2026-07-28 client by an ``InputRequiredResult``
its ``call_tool`` answers and retries, an older one by ``elicitation/create`` during the
call — and the step runs on a yes only; a client that cannot be asked gets a tool error
telling the model to ask the user. What the page did is read back from ``window.log``."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp.client.session import ClientRequestContext
from mcp_types import ElicitRequestParams, ElicitResult, ErrorData

from conftest import StaticServer
from mcp_support import HttpServer, McpClient, ok, ref, text
from pagesight import Browser

PAGE = "confirm-risky.html"


@pytest.fixture(scope="module")
def served(browser: Browser) -> Iterator[HttpServer]:
    server = HttpServer("--cdp-url", browser.cdp_url)
    yield server
    server.close()


class User:
    """The person behind a client: answers each elicitation with ``go_ahead`` (``None``:
    closes the form, a decline), keeping each question."""

    def __init__(self) -> None:
        self.go_ahead: bool | None = True
        self.asked: list[str] = []

    async def __call__(
        self, context: ClientRequestContext, params: ElicitRequestParams
    ) -> ElicitResult | ErrorData:
        self.asked.append(params.message)
        if self.go_ahead is None:
            return ElicitResult(action="decline")
        return ElicitResult(action="accept", content={"go_ahead": self.go_ahead})


def _log(browser: Browser, url: str) -> list[Any]:
    """What the page did, read off the one tab showing ``url``."""
    tabs = [p for p in browser.pages if p.url == url]
    assert len(tabs) == 1, [p.url for p in browser.pages]
    logged: list[Any] = tabs[0].playwright.evaluate("window.log.splice(0)")
    return logged


@pytest.mark.parametrize("legacy", [False, True], ids=["2026-07-28", "2025 back-channel"])
def test_a_client_that_declares_elicitation_has_its_user_asked(
    served: HttpServer, browser: Browser, server: StaticServer, legacy: bool
) -> None:
    user = User()
    url = server.url(f"{PAGE}?client={'legacy' if legacy else 'modern'}")
    with McpClient(served.url, legacy=legacy, elicitation_callback=user) as client:
        page = ok(client.call("browser_navigate", {"url": url}))
        delete = ref(page, 'button "Delete account"')
        save = ref(page, 'button "Save profile"')

        done = client.call("browser_click", {"ref": delete, "element": "Delete account"})
        assert not done.is_error, text(done)
        assert len(user.asked) == 1
        assert user.asked[0].startswith(f'pagesight is about to click [{delete}] button "Delete')
        assert user.asked[0].endswith("its name says 'delete'. Go ahead?")
        assert _log(browser, url) == ["delete"]

        user.go_ahead = False  # the form answered "no"
        refused = client.call("browser_click", {"ref": delete})
        assert refused.is_error
        assert text(refused).startswith("error (declined_by_person): the person declined: click")
        user.go_ahead = None  # the form declined outright
        declined = client.call("browser_click", {"ref": delete})
        assert text(declined).startswith("error (declined_by_person): ")
        assert _log(browser, url) == []

        ok(client.call("browser_click", {"ref": save}))  # not risky: no one is asked
        assert len(user.asked) == 3
        assert _log(browser, url) == ["save"]

        # Two risky steps in one call: each asked once, both run on two yeses.
        user.go_ahead = True
        chinese = ref(page, 'button "删除联系人"')
        steps = [{"tool": "click", "arguments": {"ref": r}} for r in (delete, chinese)]
        ok(client.call("browser_batch", {"actions": steps}))
        assert [q.split(": ", 1)[0] for q in user.asked[3:]] == [
            f'pagesight is about to click [{delete}] button "Delete account"',
            f'pagesight is about to click [{chinese}] button "删除联系人"',
        ]
        assert _log(browser, url) == ["delete", "zh-delete"]
        ok(client.call("browser_close"))


def test_a_client_that_cannot_be_asked_gets_an_error_telling_the_model_to_ask(
    served: HttpServer, browser: Browser, server: StaticServer
) -> None:
    url = server.url(f"{PAGE}?client=none")
    with McpClient(served.url) as client:
        page = ok(client.call("browser_navigate", {"url": url}))
        refused = client.call("browser_click", {"ref": ref(page, 'button "删除联系人"')})
        assert refused.is_error
        said = text(refused)
        assert said.startswith("error (needs_person): a person must allow this: click [")
        assert "(its name says '删除')" in said
        assert "this MCP client cannot ask the user (it does not support elicitation): " in said
        assert "stop and ask the user" in said
        assert _log(browser, url) == []
        ok(client.call("browser_close"))


def test_the_servers_risk_rules_and_origin_lists_are_the_options_it_was_given(
    browser: Browser,
    server: StaticServer,
    server2: StaticServer,
    other_origin: StaticServer,
    tmp_path: Path,
) -> None:
    # --confirm-rules and the origin lists are the options `pagesight run` takes too: the
    # MCP server holds back what the rules file adds and refuses what the lists leave out.
    rules = tmp_path / "rules.json"
    rules.write_text('{"control_words": ["save"]}', encoding="utf-8")
    served = HttpServer(
        "--cdp-url", browser.cdp_url, "--confirm-rules", str(rules),
        "--allowed-origins", f"{server.origin};{server2.origin}",
        "--blocked-origins", server2.origin,
    )  # fmt: skip
    try:
        url = server.url(f"{PAGE}?client=rules")
        with McpClient(served.url) as client:
            page = ok(client.call("browser_navigate", {"url": url}))
            refused = client.call("browser_click", {"ref": ref(page, 'button "Save profile"')})
            assert refused.is_error
            assert text(refused).startswith("error (needs_person): ")
            assert "(its name says 'save')" in text(refused)
            assert _log(browser, url) == []
            blocked = client.call("browser_navigate", {"url": server2.url(PAGE)})
            assert blocked.is_error and f"{server2.origin} is a blocked origin" in text(blocked)
            away = client.call("browser_navigate", {"url": other_origin.url(PAGE)})
            assert away.is_error
            assert f"{other_origin.origin} is not an allowed origin" in text(away)
            ok(client.call("browser_close"))
    finally:
        served.close()


def test_a_target_whose_facts_cannot_be_read_is_held_back_over_mcp_too(
    served: HttpServer, browser: Browser, server: StaticServer
) -> None:
    # The form shadows form.elements with a field of that name: the gate cannot read the
    # button's facts, so it judges by the snapshot's name, as `pagesight run` does.
    url = server.url("confirm-unreadable.html?client=mcp")
    with McpClient(served.url) as client:
        page = ok(client.call("browser_navigate", {"url": url}))
        refused = client.call("browser_click", {"ref": ref(page, 'button "Delete team"')})
        assert refused.is_error
        assert text(refused).startswith("error (needs_person): a person must allow this: click [")
        assert "(its name says 'delete')" in text(refused)
        assert _log(browser, url) == []
        ok(client.call("browser_close"))
