"""``pagesight eval``: a suite of tasks, each run from a fresh app and judged by checks of its
own outcome, side by side over repeats, in worker processes or on Ray.

::

    from pagesight.eval import load_suite
    suite = load_suite("orbit")                 # a bundled suite, or a path to suite.toml

:mod:`~pagesight.eval.suite` reads a suite; :mod:`~pagesight.eval.task` runs one task once;
:mod:`~pagesight.eval.runner` drives many (retrying infrastructure failures);
:mod:`~pagesight.eval.results` writes the files; :mod:`~pagesight.eval.evaluate` ties them.
"""

from pagesight.eval.evaluate import EvalResult, run_eval
from pagesight.eval.suite import Check, Suite, Task, load_suite
from pagesight.eval.task import Options, TaskResult

__all__ = [
    "Check",
    "EvalResult",
    "Options",
    "Suite",
    "Task",
    "TaskResult",
    "load_suite",
    "run_eval",
]
