"""Fakes of the model services pagesight talks to, shipped for tests — pagesight's and yours.

Each is a real HTTP server on 127.0.0.1 (port 0, a context manager with ``.base_url``) that
speaks the service's real API, plays a script, records what it was sent, and can fail the ways
the service fails; the real SDK clients are tested against them by base URL. Importing this
package starts nothing.

* :class:`FakeOpenAI` — OpenAI's chat completions (every OpenAI-compatible server);
* :class:`FakeAnthropic` — Anthropic's messages;
* :class:`ReferenceModel` — a deterministic model that does a task (its intents, read from a
  steps file) in whichever stack's format it is asked, for comparing stacks
  (:mod:`pagesight.testing.reference`);
* script items: :class:`Reply`, :class:`Failure`, :class:`Hang`, :class:`Drop` (or a
  function of the request body returning one);
* :mod:`pagesight.testing.decisions` — the Decisions API (``FakeDecisionsServer``: its
  answers by question name, its own ``Reply``; its failures are the :class:`Failure` and
  :class:`Hang` above, also made as ``RateLimit``, ``Fail``, ``Malformed``).

All three are one server, :class:`pagesight.testing.server.ScriptedServer`, which an API's
fake subclasses with its paths, key check, reply and error bodies. Beside them,
:mod:`pagesight.testing.fake_vlm` fakes a vision-language model (``FakeVlmServer``, a caption
computed from the screenshot it is sent; ``python -m pagesight.testing.fake_vlm`` serves one).
"""

from pagesight.testing.fake_anthropic import FakeAnthropic
from pagesight.testing.fake_openai import FakeOpenAI
from pagesight.testing.reference import ReferenceModel, read_intents
from pagesight.testing.script import Drop, Failure, Hang, Reply

__all__ = [
    "Drop",
    "Failure",
    "FakeAnthropic",
    "FakeOpenAI",
    "Hang",
    "ReferenceModel",
    "Reply",
    "read_intents",
]
