"""What the text layer sends a model for a page, beside what the DOM layer would.

    PYTHONPATH=src .venv/bin/python benchmarks/text_layer.py

For each saved real page of the corpus (served on 127.0.0.1), the tokens (cl100k) of:

* the page as the text layer sends it (the main text trafilatura extracts, inside the
  untrusted markers) and its whole request (system prompt, goal, text, its one tool);
* the page as the DOM layer sends it (the outline of ``page.observe()``) and the whole first
  request of a model planner (system prompt, goal, outline, every tool's schema).

A measurement: it prints the figures and the median ratios and exits 0 whatever they say.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import sys

import serve
from pagesight import Browser
from pagesight.agent.registry import ToolRegistry
from pagesight.planners.llm.context import Context, system_prompt
from pagesight.planners.llm.textlayer import ANSWER_TOOL, prompt, read_page
from pagesight.tokens import count_tokens

GOAL = "What is this article's main claim?"


def _schema_tokens(specs: object) -> int:
    return count_tokens(json.dumps(specs, ensure_ascii=False))


def main() -> int:
    if not serve.CORPUS.is_dir():
        print(f"no corpus at {serve.CORPUS}")
        return 0
    pages = sorted(serve.CORPUS.glob("*.html"))
    registry = ToolRegistry.discover()
    dom_tools = _schema_tokens([s.to_dict() for s in registry.specs()])
    text_tool = _schema_tokens(ANSWER_TOOL.to_dict())
    rows = []
    with serve.serve(serve.CORPUS) as base, Browser.launch(headless=True) as browser:
        for path in pages:
            url = f"{base}/{path.name}"
            text = asyncio.run(read_page(url))
            if text is None:
                print(f"{path.stem}: the text layer read nothing")
                continue
            messages = prompt(GOAL, text)
            text_page = count_tokens(messages[-1].content)
            text_request = sum(m.tokens for m in messages) + text_tool
            page = browser.open(url, timeout=15.0)
            outline = page.observe().text()
            page.close()
            context = Context(system=system_prompt(""))
            context.add(
                context.observation(f"goal: {GOAL}", outline, url=url, elements=0),
                observation=True,
            )
            dom_page = count_tokens(outline)
            dom_request = context.tokens + dom_tools
            rows.append((path.stem, text.extractor, text_page, text_request, dom_page, dom_request))
    print(
        f"{'page':<12} {'extractor':<12} {'text':>7} {'request':>8} {'outline':>8} {'request':>8}"
    )
    for name, extractor, tp, tr, dp, dr in rows:
        print(f"{name:<12} {extractor:<12} {tp:>7} {tr:>8} {dp:>8} {dr:>8}")
    page_ratio = statistics.median(r[2] / r[4] for r in rows)
    request_ratio = statistics.median(r[3] / r[5] for r in rows)
    print(
        f"median text/outline: {page_ratio:.2f}x the page's tokens, "
        f"{request_ratio:.2f}x the first request's ({len(rows)} pages)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
