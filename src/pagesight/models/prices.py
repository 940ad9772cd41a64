"""What a model's tokens cost: a price table the user can extend.

Prices are US dollars per million tokens, input and output, keyed by ``provider:model`` or
by the model's own name (which then holds on every provider that serves it under that
name). A model not in the table has no cost: its runs report tokens only (``cost: null``).

    from pagesight.models import add_price
    add_price("ollama:qwen2.5-vl:7b", input=0, output=0)       # a local model costs nothing
    add_price("my-finetune", input=0.3, output=1.2)
"""

from __future__ import annotations

from dataclasses import dataclass

from pagesight.errors import InvalidOption
from pagesight.messages import Usage


@dataclass(frozen=True, kw_only=True)
class Price:
    """US dollars per million input and output tokens."""

    input: float
    output: float

    def cost(self, input_tokens: int, output_tokens: int) -> float:
        return (input_tokens * self.input + output_tokens * self.output) / 1_000_000


PRICES: dict[str, Price] = {
    # OpenAI (https://openai.com/api/pricing), standard tier.
    "gpt-4.1": Price(input=2.00, output=8.00),
    "gpt-4.1-mini": Price(input=0.40, output=1.60),
    "gpt-4.1-nano": Price(input=0.10, output=0.40),
    "gpt-4o": Price(input=2.50, output=10.00),
    "gpt-4o-mini": Price(input=0.15, output=0.60),
    # Anthropic (https://www.anthropic.com/pricing), base input and output.
    "claude-haiku-4-5": Price(input=1.00, output=5.00),
    "claude-sonnet-4-5": Price(input=3.00, output=15.00),
    "claude-opus-4-1": Price(input=15.00, output=75.00),
    "claude-3-5-haiku-latest": Price(input=0.80, output=4.00),
}
"""The known prices. Change it, or use :func:`add_price`."""


def add_price(model: str, *, input: float, output: float) -> None:
    """Price ``model`` (``provider:model`` or a model's own name) at ``input`` and
    ``output`` US dollars per million tokens."""
    for option, value in (("input", input), ("output", output)):
        if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
            raise InvalidOption(option, f"{option} must be a price in dollars ≥ 0, not {value!r}")
    if not isinstance(model, str) or not model.strip():
        raise InvalidOption("model", f"a price needs the model it is for, not {model!r}")
    PRICES[model.strip()] = Price(input=float(input), output=float(output))


def price_of(provider: str, model: str) -> Price | None:
    """The price of ``model`` on ``provider``: its ``provider:model`` entry, else the
    model's own; ``None`` when neither is known."""
    return PRICES.get(f"{provider}:{model}") or PRICES.get(model)


def usage(provider: str, model: str, input_tokens: int, output_tokens: int) -> Usage:
    """The Usage of one call, with its cost when the model's price is known."""
    price = price_of(provider, model)
    return Usage(
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        cost=price.cost(input_tokens, output_tokens) if price is not None else None,
    )
