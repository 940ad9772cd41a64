"""Fakes to test agents with, no network needed: scripted servers on 127.0.0.1 that speak
real APIs, so the real SDK clients are tested against them by base URL.

* :class:`FakeOpenAI` — OpenAI's chat completions (every OpenAI-compatible server);
* :class:`FakeAnthropic` — Anthropic's messages;
* script items: :class:`Reply`, :class:`Failure`, :class:`Hang` (or a function of the
  request body returning one).
"""

from pagesight.testing.fake_anthropic import FakeAnthropic
from pagesight.testing.fake_openai import FakeOpenAI
from pagesight.testing.script import Failure, Hang, Reply

__all__ = ["Failure", "FakeAnthropic", "FakeOpenAI", "Hang", "Reply"]
