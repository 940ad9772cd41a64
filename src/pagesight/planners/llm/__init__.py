"""The tool-calling LLM planner: a model offered the registry's tools, its context kept to
one whole page, calls written as text recovered, and the text layer that answers from a
page's text before any browser starts.

::

    ModelPlanner(model).decide(state) -> Decision    (planner.py)
    Context: the messages sent, one observation kept   (context.py)
    read_calls(text) / check_calls(calls, tools)      (textcalls.py, toolcheck.py)
    run_text_layer(url, goal, model)                  (textlayer.py)
"""

from pagesight.planners.llm.context import Context
from pagesight.planners.llm.planner import ModelPlanner

__all__ = ["Context", "ModelPlanner"]
