"""Model providers: tool-calling chat models behind :class:`~pagesight.models.model.Model`, and a
vision-language model's client (:class:`VlmClient`) that captions screenshots.

::

    open_model("openai:gpt-4.1-mini")          resolve (key, URL, SDK) + connect
    resolve("ollama:qwen2.5-vl:7b") -> ModelSpec   fails before anything runs
    connect(spec) -> OpenAIChat | AnthropicMessages
    add_price("my-model", input=0.3, output=1.2)  US dollars per million tokens

Both providers go through their official SDKs (``pip install 'pagesight[openai]'``,
``'pagesight[anthropic]'``); the SDKs are imported only when a model is opened.
"""

from pagesight.models.model import Model, ScriptedModel
from pagesight.models.prices import PRICES, Price, add_price, price_of
from pagesight.models.spec import (
    PROVIDERS,
    ModelSpec,
    Provider,
    connect,
    open_model,
    parse_model,
    resolve,
)
from pagesight.models.vlm import VlmClient

__all__ = [
    "PRICES",
    "PROVIDERS",
    "Model",
    "ModelSpec",
    "Price",
    "Provider",
    "ScriptedModel",
    "VlmClient",
    "add_price",
    "connect",
    "open_model",
    "parse_model",
    "price_of",
    "resolve",
]
