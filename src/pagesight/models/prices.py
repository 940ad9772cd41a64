"""What a model's tokens cost: a price table the user can extend.

Prices are US dollars per million tokens, keyed by ``provider:model`` or by the model's own
name (which then holds on every provider that serves it under that name): input, output,
and the rates of the prompt cache — ``cached_input`` for input tokens read from the cache,
``cache_write`` for those written to it (Anthropic's 5-minute cache writes; OpenAI writes
at no extra cost). A rate left out is the input rate: no discount, no surcharge. A call's
cost is its uncached input at the input rate, its cached input at the cached rate, its
cache writes at the write rate, and its output at the output rate. A model not in the table
has no cost: its runs report tokens only (``cost: null``).

    from pagesight.models import add_price
    add_price("ollama:qwen2.5-vl:7b", input=0, output=0)       # a local model costs nothing
    add_price("my-finetune", input=0.3, output=1.2, cached_input=0.075)
"""

from __future__ import annotations

from dataclasses import dataclass

from pagesight.errors import InvalidOption
from pagesight.messages import Usage


@dataclass(frozen=True, kw_only=True)
class Price:
    """US dollars per million input and output tokens; ``cached_input`` per million input
    tokens read from the prompt cache, ``cache_write`` per million written to it (``None``:
    the input rate)."""

    input: float
    output: float
    cached_input: float | None = None
    cache_write: float | None = None

    def cost(
        self, input_tokens: int, output_tokens: int, *, cached: int = 0, written: int = 0
    ) -> float:
        """The cost of ``input_tokens`` (all of them, ``cached`` read from the cache and
        ``written`` to it among them) and ``output_tokens``."""
        cached_rate = self.input if self.cached_input is None else self.cached_input
        write_rate = self.input if self.cache_write is None else self.cache_write
        fresh = max(input_tokens - cached - written, 0)
        dollars = (
            fresh * self.input
            + cached * cached_rate
            + written * write_rate
            + output_tokens * self.output
        )
        return dollars / 1_000_000


PRICES: dict[str, Price] = {
    # OpenAI (https://openai.com/api/pricing), standard tier: a cached input token costs
    # a quarter (GPT-4.1) or half (GPT-4o) of one read afresh; writing the cache is free.
    "gpt-4.1": Price(input=2.00, cached_input=0.50, output=8.00),
    "gpt-4.1-mini": Price(input=0.40, cached_input=0.10, output=1.60),
    "gpt-4.1-nano": Price(input=0.10, cached_input=0.025, output=0.40),
    "gpt-4o": Price(input=2.50, cached_input=1.25, output=10.00),
    "gpt-4o-mini": Price(input=0.15, cached_input=0.075, output=0.60),
    # Anthropic (https://www.anthropic.com/pricing): base input, a cache read at 0.1x of
    # it, a 5-minute cache write (the cache_control pagesight sends) at 1.25x, and output.
    "claude-haiku-4-5": Price(input=1.00, cached_input=0.10, cache_write=1.25, output=5.00),
    "claude-sonnet-4-5": Price(input=3.00, cached_input=0.30, cache_write=3.75, output=15.00),
    "claude-opus-4-1": Price(input=15.00, cached_input=1.50, cache_write=18.75, output=75.00),
    "claude-3-5-haiku-latest": Price(input=0.80, cached_input=0.08, cache_write=1.00, output=4.00),
}
"""The known prices. Change it, or use :func:`add_price`."""


def add_price(
    model: str,
    *,
    input: float,
    output: float,
    cached_input: float | None = None,
    cache_write: float | None = None,
) -> None:
    """Price ``model`` (``provider:model`` or a model's own name) at ``input`` and
    ``output`` US dollars per million tokens; ``cached_input`` and ``cache_write`` per
    million input tokens read from and written to the prompt cache (default: ``input``)."""
    rates = {"input": input, "output": output}
    rates |= {
        name: value
        for name, value in (("cached_input", cached_input), ("cache_write", cache_write))
        if value is not None
    }
    for option, value in rates.items():
        if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
            raise InvalidOption(option, f"{option} must be a price in dollars ≥ 0, not {value!r}")
    if not isinstance(model, str) or not model.strip():
        raise InvalidOption("model", f"a price needs the model it is for, not {model!r}")
    PRICES[model.strip()] = Price(
        input=float(input),
        output=float(output),
        cached_input=None if cached_input is None else float(cached_input),
        cache_write=None if cache_write is None else float(cache_write),
    )


def price_of(provider: str, model: str) -> Price | None:
    """The price of ``model`` on ``provider``: its ``provider:model`` entry, else the
    model's own; ``None`` when neither is known."""
    return PRICES.get(f"{provider}:{model}") or PRICES.get(model)


def usage(
    provider: str,
    model: str,
    input_tokens: int,
    output_tokens: int,
    *,
    cached: int = 0,
    written: int = 0,
) -> Usage:
    """The Usage of one call, with its cost when the model's price is known:
    ``input_tokens`` all of its input, ``cached`` of them read from the prompt cache and
    ``written`` to it."""
    price = price_of(provider, model)
    return Usage(
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        cached_input_tokens=cached,
        cache_write_tokens=written,
        cost=(
            price.cost(input_tokens, output_tokens, cached=cached, written=written)
            if price is not None
            else None
        ),
    )
