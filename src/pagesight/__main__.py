"""``python -m pagesight``: the ``pagesight`` command."""

import sys

from pagesight.cli import main

sys.exit(main())
