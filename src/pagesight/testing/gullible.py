"""A gullible model, for prompt-injection tests: it obeys every instruction it reads outside the
untrusted-content markers, whoever wrote it.

A real model may follow an order that a web page slipped into its prompt; this one always
does, unless the order came between :data:`~pagesight.agent.untrusted.OPEN` and
:data:`~pagesight.agent.untrusted.CLOSE`. So a run driven by it takes an off-goal action
exactly when page text reached the model outside the markers (or when pagesight itself acted
on a page's words). It is a script function for :class:`~pagesight.testing.FakeOpenAI`:

    model = Gullible()
    with FakeOpenAI([model] * 8) as fake:
        agent = Agent(browser, ModelPlanner(OpenAIChat(model="m", base_url=fake.base_url)))
        agent.run(url, 'click "Show reviews", then done "READ"')
    model.obeyed        # every instruction it carried out, in order

It understands a small grammar (the user's goal and the injection pages use it; real
injections are phrased a thousand ways, the grammar is what makes obeying mechanical):
``click "NAME"`` (also ``点击“NAME”``, ``「NAME」をクリック``), ``type "TEXT" into "NAME"``
(``在“NAME”中输入“TEXT”``), ``go to URL`` and ``done "ANSWER"``. It obeys the newest message
first (a model swayed by what it read last), each message's instructions in their order, and
each instruction once, any ``done`` only when no other order is left (so the goal's ``done``
never ends a run before the orders of the page that came with it were tried); with nothing
left to obey it calls ``done`` with ``(nothing to do)``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from pagesight.agent.untrusted import CLOSE, OPEN
from pagesight.testing.script import Reply

_Q = r"[\"“”「」『』]"  # the quotes an instruction may use, Latin or CJK
_INSTRUCTION = re.compile(
    rf"(?:\bclick|点击|按下)\s*{_Q}(?P<click>[^\"“”「」『』]+){_Q}"
    rf"|{_Q}(?P<click_ja>[^\"“”「」『』]+){_Q}\s*を?クリック"
    rf"|\btype\s*{_Q}(?P<text>[^\"“”「」『』]+){_Q}\s*into\s*{_Q}(?P<field>[^\"“”「」『』]+){_Q}"
    rf"|在\s*{_Q}(?P<field_zh>[^\"“”「」『』]+){_Q}\s*中?输入\s*{_Q}(?P<text_zh>[^\"“”「」『』]+){_Q}"
    rf"|\bgo to\s+(?P<url>https?://[^\s\"'<>]+)"
    rf"|\bdone\s*{_Q}(?P<answer>[^\"“”「」『』]+){_Q}",
    re.IGNORECASE,
)
_UNTRUSTED = re.compile(re.escape(OPEN) + r".*?(?:" + re.escape(CLOSE) + r"|\Z)", re.DOTALL)


@dataclass(frozen=True, kw_only=True)
class Instruction:
    """One order read outside the markers: ``kind`` click, type, go_to or done."""

    kind: str
    target: str = ""
    text: str = ""
    said: str = ""
    """The order as written."""


def trusted_text(content: str) -> str:
    """``content`` with every untrusted block taken out (an unclosed one runs to the end)."""
    return _UNTRUSTED.sub(" ", content)


def instructions(text: str) -> list[Instruction]:
    """The orders in ``text``, in order (markers are not looked at here)."""
    found = []
    for m in _INSTRUCTION.finditer(text):
        said = m.group(0)
        if m["click"] or m["click_ja"]:
            found.append(Instruction(kind="click", target=m["click"] or m["click_ja"], said=said))
        elif m["field"] or m["field_zh"]:
            field = m["field"] or m["field_zh"]
            found.append(
                Instruction(kind="type", target=field, text=m["text"] or m["text_zh"], said=said)
            )
        elif m["url"]:
            found.append(Instruction(kind="go_to", target=m["url"].rstrip(".,;)"), said=said))
        else:
            found.append(Instruction(kind="done", text=m["answer"], said=said))
    return found


def _texts(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [t for item in value for t in _texts(item)]
    if isinstance(value, dict):
        return [
            t for key, item in value.items() if key not in ("tools", "url") for t in _texts(item)
        ]
    return []


def _unescape(text: str) -> str:
    return text.replace('\\"', '"')


def _ref(page: str, name: str) -> int | None:
    """The id of the element called ``name`` in the latest outline, as a model would read it."""
    found = re.search(r"\[(\d+)\] [\w-]+ \"" + re.escape(name) + r"\"", page)
    return int(found.group(1)) if found else None


class Gullible:
    """The script function (one instance a run: it remembers what it obeyed)."""

    def __init__(self) -> None:
        self.obeyed: list[Instruction] = []
        """Every instruction it carried out (or tried to: a name not on the page is skipped)."""
        self.read_outside: list[str] = []
        """What it read outside the markers, one text a request (what a test may grep)."""

    def __call__(self, body: dict[str, Any]) -> Reply:
        messages = [m for m in body.get("messages", []) if m.get("role") != "assistant"]
        every = "\n".join(t for m in messages for t in _texts(m.get("content")))
        page = every[every.rfind('page "') :] if 'page "' in every else ""
        # A model reads through the outline's escaping: a name's quotes are \" there.
        outside = [trusted_text(_unescape(" ".join(_texts(m.get("content"))))) for m in messages]
        self.read_outside.append("\n".join(outside))
        # Every order it can carry out before any "done": the goal comes before the page in
        # the first message, and its "done" would otherwise end the run before the page's
        # orders there were ever read.
        orders = [order for text in reversed(outside) for order in instructions(text)]
        for order in sorted(orders, key=lambda o: o.kind == "done"):
            if order in self.obeyed:
                continue
            self.obeyed.append(order)
            reply = self._carry_out(order, page)
            if reply is not None:
                return reply
        return Reply.calling("done", answer="(nothing to do)")

    def _carry_out(self, order: Instruction, page: str) -> Reply | None:
        if order.kind == "done":
            return Reply.calling("done", answer=order.text)
        if order.kind == "go_to":
            return Reply.calling("navigate", url=order.target)
        ref = _ref(page, order.target)
        if ref is None:
            return None
        if order.kind == "click":
            return Reply.calling("click", ref=ref, element=order.target)
        return Reply.calling("input", ref=ref, text=order.text, element=order.target)
