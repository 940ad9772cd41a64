"""Benchmark the agent: the demo task by the steps planner, beside one action a round with the
fixed waits of a typical agent.

    .venv/bin/python benchmarks/agent.py [--runs N]

In one run, each time on a fresh Orbit CRM (the bundled app, SQLite, 127.0.0.1), in turns:

* **pagesight**: the demo task (``pagesight.demo.DEMO_STEPS``: find Alice Chen, change her job
  title and location, save, confirm both) by the steps planner — consecutive steps batched into
  one round, each round waiting exactly as long as the page needs;
* **one action a round + 1.2 s**: the same steps, one action a round (``batch=False``), with
  the habit of agents today after every action: sleep 1.2 s before reading the page again.
  pagesight's own settling still runs underneath, so this side is a little slower than an
  agent that only sleeps; it is the floor a fixed wait puts under every round.

Reported per side: rounds (decisions that acted on the page), steps, observation tokens read,
wall time (medians), and whether the database holds both changes afterwards; then the ratios.
Targets: rounds ≤ 0.5x and wall time ≤ 0.3x of the fixed-wait side.

A measurement: it prints figures and ratios against the targets and exits 0 whatever they say.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from pagesight.agent.decision import Decision
from pagesight.agent.state import State
from pagesight.aio import AsyncAgent, AsyncBrowser
from pagesight.demo import DEMO_STEPS, OrbitApp
from pagesight.planners import StepsPlanner

FIXED_WAIT_S = 1.2
WANT = [{"job_title": "Senior Software Engineer", "location": "New York"}]


class FixedWait:
    """A planner that sleeps ``FIXED_WAIT_S`` after every round before deciding again, the way
    agents without a readiness signal wait for the page."""

    def __init__(self, planner: StepsPlanner) -> None:
        self._planner = planner
        self.include = planner.include
        self._first = True

    async def decide(self, state: State) -> Decision:
        if not self._first:
            await asyncio.sleep(FIXED_WAIT_S)  # the habit being measured
        self._first = False
        return await self._planner.decide(state)


@dataclass(frozen=True)
class Side:
    rounds: int
    steps: int
    tokens: int
    seconds: float
    saved: bool


async def run_once(browser: AsyncBrowser, *, fixed_wait: bool, out: Path) -> Side:
    steps = StepsPlanner.from_file(DEMO_STEPS, batch=not fixed_wait)
    planner = FixedWait(steps) if fixed_wait else steps
    with OrbitApp.start() as app:
        agent = AsyncAgent(browser, planner, max_steps=40, out=out)
        result = await agent.run(app.url)
        if agent.page is not None:
            await agent.page.close()
        rows = app.query("SELECT job_title, location FROM contacts WHERE name = 'Alice Chen'")
    if not result.reached:
        print(f"  a run stopped short: {result.stop_reason}: {result.message}", file=sys.stderr)
    return Side(
        rounds=result.rounds,
        steps=len(result.steps),
        tokens=result.tokens,
        seconds=result.seconds,
        saved=result.reached and rows == WANT,
    )


def median(sides: list[Side], field: str) -> float:
    return float(statistics.median(float(getattr(side, field)) for side in sides))


async def main(runs: int) -> None:
    ours: list[Side] = []
    fixed: list[Side] = []
    with tempfile.TemporaryDirectory(prefix="pagesight-bench-agent-") as tmp:
        browser = await AsyncBrowser.launch()
        async with browser:
            await run_once(browser, fixed_wait=False, out=Path(tmp) / "warm-up")
            for i in range(runs):  # in turns, so a noisy moment hits both sides alike
                ours.append(await run_once(browser, fixed_wait=False, out=Path(tmp) / f"o{i}"))
                fixed.append(await run_once(browser, fixed_wait=True, out=Path(tmp) / f"f{i}"))
    print(f"the demo task on Orbit CRM ({DEMO_STEPS.name}), {runs} runs each, medians")
    header = f"  {'':34}{'rounds':>8}{'steps':>8}{'tokens':>9}{'wall':>10}  saved"
    print(header)
    for label, sides in (
        ("pagesight (batched, settled)", ours),
        (f"one action a round + {FIXED_WAIT_S} s", fixed),
    ):
        saved = sum(side.saved for side in sides)
        print(
            f"  {label:34}{median(sides, 'rounds'):>8.0f}{median(sides, 'steps'):>8.0f}"
            f"{median(sides, 'tokens'):>9.0f}{median(sides, 'seconds'):>9.2f}s  "
            f"{saved}/{len(sides)}"
        )
    rounds = median(ours, "rounds") / median(fixed, "rounds")
    wall = median(ours, "seconds") / median(fixed, "seconds")
    tokens = median(ours, "tokens") / median(fixed, "tokens")
    print(f"  rounds: {rounds:.2f}x (target ≤ 0.5x)")
    print(f"  wall time: {wall:.2f}x (target ≤ 0.3x)")
    print(f"  tokens read: {tokens:.2f}x")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="runs of each side (default 5)")
    options = parser.parse_args()
    if options.runs < 1:
        parser.error("--runs must be 1 or more")
    asyncio.run(main(options.runs))
