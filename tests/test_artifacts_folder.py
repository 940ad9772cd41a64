"""Playwright's artifacts folder (``pagesight-artifacts-*``, where downloads land first) is
removed when attaching fails, even when the driver then fails to stop: a CLI terminated
while its browser was starting once left it behind."""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from playwright.async_api import Error as PlaywrightError

import pagesight.browser.browser as browser_module
from pagesight.aio import AsyncBrowser


def test_an_attach_cut_short_leaves_no_artifacts_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def cut_short(*args: Any, **kwargs: Any) -> None:
        raise asyncio.CancelledError  # SIGTERM's cancellation, mid-connect

    async def stop() -> None:
        raise PlaywrightError("the driver went first")

    async def start_driver() -> tuple[Any, None]:
        chromium = SimpleNamespace(connect_over_cdp=cut_short)
        return SimpleNamespace(chromium=chromium, stop=stop), None

    monkeypatch.setattr(browser_module, "start_driver", start_driver)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    with pytest.raises((asyncio.CancelledError, PlaywrightError)):
        asyncio.run(AsyncBrowser.connect("http://127.0.0.1:9"))
    assert sorted(p.name for p in tmp_path.iterdir()) == []
