"""The tokens of a Decisions request (screenshot included), per step of the Orbit CRM task.

    .venv/bin/python benchmarks/decisions_tokens.py            # against the fake, anywhere
    PERPLEXITY_API_KEY=… .venv/bin/python benchmarks/decisions_tokens.py --live

The decisions planner runs the demo task (find Alice Chen, set her job title and location,
save) on a fresh Orbit CRM. Against :class:`~pagesight.testing.decisions.FakeDecisionsServer`
(answering as a capable model would, :mod:`pagesight.testing.decisions_demo`) each request is
taken apart: its screenshot's 32x32 tiles (the API bills about a token a tile), the cl100k
tokens of its text (goal, last action, legend, questions) and the input tokens the fake
reports for it (tiles + text + 100 for the request, Perplexity's measured rate). With
``--live`` the same task runs against the real API (``PERPLEXITY_API_KEY``,
``PERPLEXITY_BASE_URL``) and only the input tokens it reports are known.

To join with ``benchmarks/planners.py``: ``rows = asyncio.run(decisions_rows(live=...))``
gives one :class:`Row` a step; ``print(format_rows(rows))`` prints them as here.

A measurement: it prints figures and exits 0 whatever they are.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import tempfile
from dataclasses import dataclass
from pathlib import Path

from PIL import Image

from pagesight.aio import AsyncAgent, AsyncBrowser
from pagesight.demo import OrbitApp
from pagesight.observe.tokens import count_tokens
from pagesight.planners.decisions import DecisionsPlanner
from pagesight.planners.decisions.api import image_tiles
from pagesight.testing.decisions import DecisionsRequest, FakeDecisionsServer
from pagesight.testing.decisions_demo import ORBIT_GOAL, orbit_script

KEY = "benchmark-key"


@dataclass(frozen=True)
class Row:
    step: int
    action: str
    requests: int
    image_tiles: int | None
    """Tiles of the screenshots sent (None when live: the requests are not seen)."""
    text_tokens: int | None
    input_tokens: int
    """As the API (or the fake) reported them."""


async def decisions_rows(*, live: bool = False) -> list[Row]:
    """Run the Orbit task with the decisions planner; a Row a step."""
    with OrbitApp.start() as app, FakeDecisionsServer(orbit_script(), api_key=KEY) as fake:
        if live:
            planner = DecisionsPlanner.from_env()
        else:
            planner = DecisionsPlanner.from_env(api_key=KEY, base_url=fake.base_url)
        async with await AsyncBrowser.launch() as browser:
            with tempfile.TemporaryDirectory() as out:
                agent = AsyncAgent(browser, planner, max_steps=15, out=Path(out) / "run")
                result = await agent.run(app.url, goal=ORBIT_GOAL)
        sent = list(fake.requests)
    rows = []
    for step in result.steps:
        raw = step.decision.raw if isinstance(step.decision.raw, dict) else {}
        count = 1 + len(raw.get("split", ()))
        mine, sent = sent[:count], sent[count:]
        usage = step.decision.usage
        rows.append(
            Row(
                step=step.number,
                action=step.decision.label or type(step.decision).__name__,
                requests=count,
                image_tiles=None if live else sum(_tiles(r) for r in mine),
                text_tokens=None if live else sum(_text_tokens(r) for r in mine),
                input_tokens=usage.input_tokens if usage is not None else 0,
            )
        )
    return rows


def _tiles(request: DecisionsRequest) -> int:
    total = 0
    for data in request.images:
        with Image.open(io.BytesIO(data)) as image:
            total += image_tiles(*image.size)
    return total


def _text_tokens(request: DecisionsRequest) -> int:
    text = "\n".join(request.texts) + json.dumps(request.questions, ensure_ascii=False)
    return count_tokens(text)


def format_rows(rows: list[Row]) -> str:
    def shown(value: int | None) -> str:
        return "—" if value is None else str(value)

    lines = [f"{'step':>4}  {'requests':>8}  {'tiles':>6}  {'text':>6}  {'input':>6}  action"]
    for r in rows:
        lines.append(
            f"{r.step:>4}  {r.requests:>8}  {shown(r.image_tiles):>6}  "
            f"{shown(r.text_tokens):>6}  {r.input_tokens:>6}  {r.action[:60]}"
        )
    total = sum(r.input_tokens for r in rows)
    lines.append(f"total input tokens: {total} over {len(rows)} steps")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--live", action="store_true", help="ask the real Decisions API")
    args = parser.parse_args()
    print(format_rows(asyncio.run(decisions_rows(live=args.live))))


if __name__ == "__main__":
    main()
