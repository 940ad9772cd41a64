"""The ``pagesight`` command line (the console script ``pagesight.cli:main``; ``python -m
pagesight`` runs it too). :mod:`pagesight.cli.commands` parses and dispatches; each
subcommand has its own module, and :mod:`pagesight.cli.options` holds what they share."""

from pagesight.cli.commands import main

__all__ = ["main"]
