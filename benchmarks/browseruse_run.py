"""One task with browser-use, run in browser-use's own venv (benchmarks/.venv-browser-use; see
tasks_peers.py): its Agent, its ChatOpenAI at the reference model, ``use_vision=False``, its
browser Debian's Chromium. Prints one line of JSON: how the run ended, and the steps it took.

    .venv-browser-use/bin/python browseruse_run.py --base-url URL --task TEXT
        [--chromium PATH] [--max-steps N]

It imports browser_use, which pagesight's venv does not have (mypy takes it as untyped), and
nothing of pagesight.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time

# No telemetry, no cloud: nothing leaves 127.0.0.1 (set before browser_use is imported).
os.environ.setdefault("ANONYMIZED_TELEMETRY", "false")
os.environ.setdefault("BROWSER_USE_CLOUD_SYNC", "false")
os.environ.setdefault("BROWSER_USE_LOGGING_LEVEL", "warning")


async def main(options: argparse.Namespace) -> dict[str, object]:
    from browser_use import Agent, BrowserProfile, ChatOpenAI

    llm = ChatOpenAI(model="gpt-4.1-mini", base_url=options.base_url, api_key="reference")
    profile = BrowserProfile(
        executable_path=options.chromium,
        headless=True,
        chromium_sandbox=not (hasattr(os, "geteuid") and os.geteuid() == 0),
        user_data_dir=None,
        # Its default extensions are downloaded at launch: not from here (no network).
        enable_default_extensions=False,
    )
    agent = Agent(task=options.task, llm=llm, browser_profile=profile, use_vision=False)
    t0 = time.perf_counter()
    history = await agent.run(max_steps=options.max_steps)
    seconds = time.perf_counter() - t0
    return {
        "done": history.is_done(),
        "successful": history.is_successful(),
        "final": history.final_result(),
        "errors": [e for e in history.errors() if e],
        "steps": history.number_of_steps(),
        "seconds": seconds,
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--task", required=True)
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    parser.add_argument("--max-steps", type=int, default=30)
    result = asyncio.run(main(parser.parse_args()))
    print(json.dumps(result, default=str))
    sys.stdout.flush()
