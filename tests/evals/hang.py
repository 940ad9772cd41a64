"""An app that starts and never answers, not even its ready path: a task on it waits until
the eval's deadline (or Ctrl-C) ends it. Its pid goes to WORKDIR/app.pid, for the test to see
that ending the task stopped it."""

import os
import sys
import time
from pathlib import Path

workdir = Path(sys.argv[2])
(workdir / "app.pid").write_text(str(os.getpid()))
time.sleep(3600)
