"""Fakes of the model services pagesight talks to, shipped for tests — pagesight's and yours.

Each is a real HTTP server on 127.0.0.1 (port 0, a context manager with ``.base_url``) that
speaks the service's real API, plays a script, records what it was sent, and can fail the ways
the service fails; the real SDK clients are tested against them by base URL. Importing this
package starts nothing.

* :class:`FakeOpenAI` — OpenAI's chat completions (every OpenAI-compatible server);
* :class:`FakeAnthropic` — Anthropic's messages;
* script items: :class:`Reply`, :class:`Failure`, :class:`Hang` (or a function of the
  request body returning one);
* :mod:`pagesight.testing.decisions` — the Decisions API (``FakeDecisionsServer``, with its
  own script items).
"""

from pagesight.testing.fake_anthropic import FakeAnthropic
from pagesight.testing.fake_openai import FakeOpenAI
from pagesight.testing.script import Failure, Hang, Reply

__all__ = ["Failure", "FakeAnthropic", "FakeOpenAI", "Hang", "Reply"]
