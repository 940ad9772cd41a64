"""An app that hangs the first task run on it and serves the next: it answers /ready, then
(the first time, marked by a file in its folder) never answers anything else, so that run
hangs until the eval's deadline ends it; once marked, it serves a page whose Go link leads to
/done. Its pid goes to WORKDIR/app.pid, for the test to see that ending the task stopped it."""

import http.server
import os
import sys
import time
from pathlib import Path

port, workdir = int(sys.argv[1]), Path(sys.argv[2])
(workdir / "app.pid").write_text(str(os.getpid()))
MARK = Path("hung-once")
PAGES = {
    "/": b'<!doctype html><title>Start</title><a href="/done">Go</a>',
    "/done": b"<!doctype html><title>Done</title><h1>Done</h1>",
}


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        if self.path == "/ready":
            self.send_response(204)
            self.end_headers()
            return
        if not MARK.exists():
            MARK.write_text("hung")
            time.sleep(3600)
        body = PAGES.get(self.path, b"not found")
        self.send_response(200 if self.path in PAGES else 404)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()
