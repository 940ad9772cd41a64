"""An app that starts, answers /ready, and never answers anything else: a task on it hangs
until the eval's deadline ends it. Its pid goes to WORKDIR/app.pid, for the test to see
that ending the task stopped it."""

import http.server
import sys
import time
from pathlib import Path

port, workdir = int(sys.argv[1]), Path(sys.argv[2])
(workdir / "app.pid").write_text(str(__import__("os").getpid()))


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        if self.path == "/ready":
            self.send_response(204)
            self.end_headers()
            return
        time.sleep(3600)

    def log_message(self, *args: object) -> None:
        pass


http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()
