"""The async core acts the same way, and a dialog policy can be set for a whole session."""

from __future__ import annotations

import asyncio
from typing import Any

from conftest import StaticServer
from pagesight import DialogPolicy  # type: ignore[attr-defined, unused-ignore]
from pagesight.aio import AsyncBrowser
from support import one


def test_async_act_with_a_launch_dialog_policy(server: StaticServer) -> None:
    async def scenario() -> tuple[Any, Any, str, str]:
        launch: Any = AsyncBrowser.launch
        async with await launch(dialogs=DialogPolicy(confirm="accept")) as browser:
            page: Any = await browser.open(server.url("act-controlled.html"))
            box = one(await page.observe(), "Display name", "textbox")
            typed = await page.act(box.id, "input", text="Grace")
            name = await page.playwright.evaluate("window.state.name")
            await page.navigate(server.url("act-dialogs.html"))
            delete = one(await page.observe(), "Delete item", "button")
            confirmed = await page.act(delete.id, "click")
            status = await page.playwright.evaluate("document.getElementById('status').textContent")
            return typed, confirmed, name, status

    typed, confirmed, name, status = asyncio.run(scenario())
    assert typed.kinds == ("dom_change", "value_change")
    ((before, after),) = typed.values
    assert (before.value, after.value) == ("Ada", "Grace")
    assert name == "Grace"
    assert "dialog" in confirmed.kinds and confirmed.dialogs[0].accepted
    assert status == "confirmed"
