"""``pagesight run``: a script of steps, or a goal given to a model — the cascade from the
command line. For a goal that only asks, the text layer first (the page fetched with httpx,
its text given to the model, no browser); when the text does not answer, or the goal changes
something, the browser run. Its errors are raised, as every command's, for :func:`pagesight.
cli.main` to print in one line."""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pagesight.agent.profiles import DEFAULT_PROFILE, Profile
from pagesight.cli.options import (
    SECRET_HELP,
    add_confirm_options,
    add_tools_option,
    check_headed,
    check_out,
    check_page,
    checked_secrets,
    confirm_rules,
    origin_list,
    parse_viewport,
    secret_option,
    terminal_confirmer,
)
from pagesight.errors import InvalidOption

if TYPE_CHECKING:  # the browser is imported only once the arguments are checked
    from rich.console import Console

    from pagesight import RunResult
    from pagesight.agent.planner import Planner
    from pagesight.agent.state import StepRecord, TextLayerResult
    from pagesight.guard.risk import Mode, RiskRules
    from pagesight.models.model import Model

DECISIONS = "decisions"
"""``--model decisions:MODEL``: the Decisions API's probability planner."""


def _price(value: str) -> tuple[float, float]:
    given, sep, taken = value.partition(",")
    try:
        prices = (float(given), float(taken)) if sep else None
    except ValueError:
        prices = None
    if prices is None or min(prices) < 0:
        raise argparse.ArgumentTypeError(
            f"expected two prices ≥ 0, input and output per million tokens, such as 0.4,1.6, "
            f"not {value!r}"
        )
    return prices


def add_run_options(commands: argparse._SubParsersAction[Any]) -> None:
    """The ``run`` command's parser."""
    run = commands.add_parser("run", help="run a task on a page: a script of steps, or a goal")
    run.add_argument("url", help="the page to start on: an http(s) URL or a local HTML file")
    task = run.add_mutually_exclusive_group(required=True)
    task.add_argument("--steps", metavar="FILE", help="a script of steps (or a run's steps.txt)")
    task.add_argument("--goal", metavar="TEXT", help="a goal for a model planner")
    run.add_argument(
        "--model",
        default=None,
        metavar="PROVIDER:MODEL",
        help="the model a --goal is given to: openai:gpt-4.1-mini, anthropic:claude-haiku-4-5, "
        "ollama:qwen2.5-vl:7b, openrouter:…, vllm:…, lmstudio:…, llamacpp:…, or "
        "decisions:pplx-decider-v1.1-27b (the Decisions API's probability planner)",
    )
    run.add_argument(
        "--api-key",
        default=None,
        help="the model's API key (else OPENAI_API_KEY, ANTHROPIC_API_KEY, OPENROUTER_API_KEY, "
        "PERPLEXITY_API_KEY…)",
    )
    run.add_argument(
        "--base-url",
        default=None,
        help="the model server's URL (else OPENAI_BASE_URL, ANTHROPIC_BASE_URL, OLLAMA_HOST, "
        "PERPLEXITY_BASE_URL…)",
    )
    run.add_argument(
        "--model-timeout",
        type=float,
        default=60.0,
        metavar="SECONDS",
        help="how long one model call may take (default 60)",
    )
    run.add_argument(
        "--price",
        type=_price,
        default=None,
        metavar="IN,OUT",
        help="the model's price in US dollars per million input and output tokens, to report "
        "the run's cost (known models are priced already)",
    )
    run.add_argument(
        "--no-text-layer",
        action="store_true",
        help="open the browser at once, even for a goal that only asks (by default such a "
        "goal is first answered, when it can be, from the page's text with no browser)",
    )
    run.add_argument(
        "--max-steps",
        type=int,
        default=None,
        help="decisions at most (default: 15, or twice the script's steps when more)",
    )
    run.add_argument("--headed", action="store_true", help="show the browser window")
    run.add_argument(
        "--out", metavar="DIR", default=None, help="the run's folder (runs/<UTC time>)"
    )
    run.add_argument(
        "--secret",
        type=secret_option,
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help=SECRET_HELP + " (a script's {{NAME}} may also come from the variable NAME)",
    )
    add_tools_option(run)
    add_confirm_options(run)
    run.add_argument("--cdp-url", default=None, help="attach to a running Chromium instead")
    run.add_argument(
        "--allowed-origins",
        default=None,
        metavar="LIST",
        help="origins the pages may load anything from, separated by ; or , "
        "(http://127.0.0.1:*, https://*.example.com); every other request is refused, and "
        "so are private-network addresses not named in it; the text layer is skipped",
    )
    run.add_argument(
        "--blocked-origins",
        default=None,
        metavar="LIST",
        help="origins refused whatever else is allowed, separated by ; or ,",
    )
    run.add_argument(
        "--allow-file-access",
        action="store_true",
        help="allow file:// pages while --allowed-origins is set (refused otherwise)",
    )
    run.add_argument("--viewport", type=parse_viewport, default=None, metavar="WxH")
    run.add_argument(
        "--timeout",
        type=float,
        default=30.0,
        metavar="SECONDS",
        help="how long the page may take to load and to answer each look at it (default 30)",
    )


@dataclass(frozen=True, kw_only=True)
class GoalPlanner:
    """The planner a ``--goal`` is given to, and the chat model behind it, which the text
    layer asks too (``None`` for the decisions planner, which answers no text)."""

    planner: Planner
    model: Model | None


def run(args: argparse.Namespace) -> int:
    """``pagesight run``: exit 0 when the goal was reached, 3 when the run ended on its own
    short of it, 1 on a browser or model failure, 2 on bad input or set-up (raised, like
    every command's) — a missing key or SDK before a browser starts."""
    from pagesight.planners import StepsPlanner

    if args.goal is None:
        for option in ("model", "api_key", "base_url", "price"):
            if getattr(args, option) is not None:
                raise InvalidOption(
                    option, "is for the model a --goal is given to; --steps needs none"
                )
        if args.no_text_layer:
            raise InvalidOption("no_text_layer", "is for a --goal; --steps has no text layer")
    if args.max_steps is not None and args.max_steps < 1:
        raise InvalidOption("max_steps", f"must be a positive number, not {args.max_steps}")
    if not args.timeout > 0:
        raise InvalidOption("timeout", f"must be a positive number of seconds, not {args.timeout}")
    if args.cdp_url and (args.headed or args.viewport):
        raise InvalidOption(
            "cdp_url", "an attached browser keeps its windows: no --headed or --viewport"
        )
    check_out(args.out)
    check_page(args.url, launching=not args.cdp_url)
    check_headed(args.headed)
    origins = _origin_options(args)
    rules = confirm_rules(args.confirm_rules)
    if args.steps is not None:
        check_not_replaying_into_itself(args.steps, args.out)
    given = checked_secrets(args.secret)
    planner: Planner
    text_layer: TextLayerResult | None = None
    if args.goal is not None:
        chosen = goal_planner(args)
        planner, secrets = chosen.planner, given
        max_steps = args.max_steps or 15
        # The text layer reads the page outside the browser, where the origin guard is not.
        guarded = origins["allowed_origins"] is not None or origins["blocked_origins"]
        if chosen.model is not None and not args.no_text_layer and not guarded:
            text_layer = _try_text_layer(args, chosen.model, secrets)
            if text_layer.run is not None:
                _print_result(text_layer.run, planner, secrets, steps=True)
                return 0
    else:
        steps = StepsPlanner.from_file(args.steps)
        planner, secrets = steps, steps.secrets(given)
        max_steps = args.max_steps or max(15, 2 * len(steps.steps) + 1)
    result = run_agent(
        args.url,
        planner,
        secrets,
        goal=args.goal,
        max_steps=max_steps,
        out=args.out,
        headed=args.headed,
        viewport=args.viewport,
        cdp_url=args.cdp_url,
        text_layer=text_layer,
        timeout=args.timeout,
        origins=origins,
        confirm=args.confirm,
        rules=rules,
        tools=args.tools,
    )
    return 0 if result.reached else 3


def _origin_options(args: argparse.Namespace) -> dict[str, Any]:
    """``--allowed-origins``, ``--blocked-origins`` and ``--allow-file-access`` as the
    browser's options, checked before it starts (InvalidOption naming a bad pattern)."""
    from pagesight.guard.origins import OriginPolicy

    options: dict[str, Any] = {
        "allowed_origins": origin_list("allowed_origins", args.allowed_origins),
        "blocked_origins": origin_list("blocked_origins", args.blocked_origins),
        "allow_file_access": True if args.allow_file_access else None,
    }
    OriginPolicy.of(
        options["allowed_origins"], options["allow_file_access"], options["blocked_origins"]
    )
    return options


def check_not_replaying_into_itself(steps: str, out: str | None) -> None:
    """A replay of ``runs/a/steps.txt`` with ``--out runs/a`` would write its own steps.txt
    over the script it reads: a replay stopped half way would leave half the script."""
    from pagesight.runs.folder import STEPS

    if out is None:
        return
    written = Path(out).expanduser() / STEPS
    if written.exists() and written.resolve() == Path(steps).expanduser().resolve():
        raise InvalidOption(
            "out",
            f"{out!r} holds the steps file replayed, which the run would overwrite; "
            "give another folder (or none: runs/<UTC time>)",
        )


def goal_planner(args: argparse.Namespace) -> GoalPlanner:
    """The planner a ``--goal`` is given to, its model resolved (key, URL, SDK) before a
    browser starts."""
    from pagesight.models import add_price, connect, resolve
    from pagesight.planners.llm.planner import ModelPlanner

    if args.model is None:
        raise InvalidOption(
            "model",
            "a --goal is given to a model: add --model PROVIDER:MODEL, such as "
            "openai:gpt-4.1-mini or ollama:qwen2.5-vl:7b",
        )
    if args.model_timeout <= 0:
        raise InvalidOption("model_timeout", f"must be a positive number, not {args.model_timeout}")
    provider, _, name = args.model.partition(":")
    if provider == DECISIONS:
        # A planner of its own, not a chat model behind ModelPlanner: picked by the
        # provider's name before `resolve` (which knows the chat providers only).
        return GoalPlanner(planner=_decisions_planner(args, name), model=None)
    spec = resolve(args.model, api_key=args.api_key, base_url=args.base_url)
    if args.price is not None:
        add_price(spec.name, input=args.price[0], output=args.price[1])
    model = connect(spec, timeout=args.model_timeout)
    return GoalPlanner(planner=ModelPlanner(model), model=model)


def _decisions_planner(args: argparse.Namespace, name: str) -> Planner:
    from pagesight.planners.decisions import DecisionsPlanner

    if args.price is not None:
        raise InvalidOption(
            "price", "prices a chat model's tokens; the decisions planner reports tokens only"
        )
    if not name:
        raise InvalidOption(
            "model", "name the decision model after the colon: decisions:pplx-decider-v1.1-27b"
        )
    try:
        return DecisionsPlanner.from_env(
            model=name, api_key=args.api_key, base_url=args.base_url, timeout=args.model_timeout
        )
    except InvalidOption as exc:
        if exc.option != "api_key":
            raise
        # Said as the other providers say it, with the option this command has.
        raise InvalidOption(
            "api_key",
            "the decisions planner needs an API key: set PERPLEXITY_API_KEY or pass --api-key",
        ) from exc


def _try_text_layer(
    args: argparse.Namespace, model: Model, secrets: Mapping[str, str]
) -> TextLayerResult:
    """The text layer, before any browser: in its own event loop, which ends before the
    browser's starts (the provider layer makes an SDK client per call, tied to no loop)."""
    from pagesight.agent.secrets import Secrets, mask_exception
    from pagesight.planners.llm.textlayer import run_text_layer

    try:
        found = asyncio.run(
            run_text_layer(args.url, args.goal, model, out=args.out, secrets=secrets)
        )
    except BaseException as exc:
        # A model's error may quote what it was sent (the goal, which may name a secret's
        # value): masked as the browser run masks its errors, before main() prints it.
        mask_exception(exc, Secrets(secrets))
        raise
    if found.tried and found.run is None:
        print(Secrets(secrets).mask(f"text layer: {found.reason}; opening the browser"))
    return found


def run_agent(
    url: str,
    planner: Planner,
    secrets: dict[str, str],
    *,
    goal: str | None = None,
    max_steps: int,
    out: str | None,
    headed: bool,
    viewport: tuple[int, int] | None = None,
    cdp_url: str | None = None,
    text_layer: TextLayerResult | None = None,
    timeout: float = 30.0,
    origins: Mapping[str, Any] | None = None,
    confirm: Mode = "risky",
    rules: RiskRules | None = None,
    tools: Profile = DEFAULT_PROFILE,
) -> RunResult:
    """Run ``planner`` from ``url`` with a line on the terminal per step, then the summary
    and where the report is (``pagesight run`` with steps or a goal, and the demo). A step
    ``confirm`` says needs a person is asked about on the terminal when one is at it."""
    from pagesight import Agent, Browser
    from pagesight.agent.secrets import Secrets
    from pagesight.browser.viewport import DEFAULT_VIEWPORT

    show = _progress(secrets)
    guard = dict(origins or {})  # the origin policy (see _origin_options)
    if cdp_url:
        browser = Browser.connect(cdp_url, **guard)
    else:
        browser = Browser.launch(
            headless=not headed, viewport=viewport or DEFAULT_VIEWPORT, **guard
        )
    with browser:
        agent = Agent(
            browser,
            planner,
            max_steps=max_steps,
            out=out,
            secrets=secrets,
            on_step=show,
            timeout=timeout,
            confirm=confirm,
            confirm_rules=rules,
            tool_profile=tools,
            confirmer=terminal_confirmer(Secrets(secrets).mask) if confirm != "never" else None,
        )
        try:
            result = agent.run(url, goal, text_layer=text_layer)
        finally:
            if cdp_url and agent.page is not None:
                agent.page.close()
    _print_result(result, planner, secrets)
    return result


def _progress(secrets: Mapping[str, str]) -> Callable[[StepRecord], None]:
    """A line on the terminal per step: the step, the element, the effect, the time."""
    from rich.text import Text

    from pagesight.agent.secrets import Secrets
    from pagesight.cli.progress import progress_lines

    mask, console = Secrets(secrets).mask, _console()

    def show(record: StepRecord) -> None:
        for line in progress_lines(record):
            seconds = f"{line.seconds:.2f}s" if line.seconds is not None else ""
            text = Text.assemble(
                (f"{record.number:>3} ", "dim"),
                (mask(line.step), "bold"),
                ("  →  " + mask(line.element) if line.element else "", "cyan"),
                ("  " + mask(line.effect), "green" if line.ok else "red"),
                (f"  {seconds}" if seconds else "", "dim"),
            )
            console.print(text)

    return show


def _print_result(
    result: RunResult, planner: Planner, secrets: Mapping[str, str], *, steps: bool = False
) -> None:
    """The stop reason, the answer, the counts and cost, the healed steps and where the
    records are (``steps``: the step lines first, for a run that printed none as it went)."""
    from rich.text import Text

    from pagesight.agent.secrets import Secrets
    from pagesight.runs.folder import REPORT, STEPS

    mask, console = Secrets(secrets).mask, _console()
    if steps:
        show = _progress(secrets)
        for record in result.steps:
            show(record)
    style = "bold green" if result.reached else "bold red"
    console.print(Text(mask(f"{result.stop_reason}: {result.message}"), style=style))
    if result.answer is not None:
        console.print(mask(f"answer: {result.answer}"))
    usage = result.usage
    model = ""
    if usage is not None:
        cost = f", ${usage.cost:.4f}" if usage.cost is not None else ""
        cached = f" ({usage.cached_input_tokens} cached)" if usage.cached_input_tokens else ""
        model = f", model {usage.input_tokens} in{cached} / {usage.output_tokens} out{cost}"
    layers = " → ".join(result.layers_tried or (result.layer,))
    console.print(
        f"{result.rounds} round{'' if result.rounds == 1 else 's'}, "
        f"{result.tokens} tokens of pages read"
        f"{model}, {result.seconds:.1f} s, layer {layers}"
    )
    for healed in getattr(planner, "healed", ()):
        console.print(
            mask(
                f"healed: line {healed['line']}: {healed['step']}: "
                f"{healed['hint']} → {healed['selector']}"
            )
        )
    console.print(f"report: {result.folder / REPORT}")
    console.print(f"steps: {result.folder / STEPS}")


def _console() -> Console:
    from rich.console import Console

    return Console(file=sys.stdout, soft_wrap=True, highlight=False, markup=False, emoji=False)
