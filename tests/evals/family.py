"""An app that starts a child of its own (as `npm start` or a shell script does) and serves a
welcome page; the child's pid goes to WORKDIR/child.pid, for the test to see it ended with
the app when the worker that started them was killed outright."""

import http.server
import subprocess
import sys
from pathlib import Path

port, workdir = int(sys.argv[1]), Path(sys.argv[2])
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
(workdir / "child.pid").write_text(str(child.pid))
PAGE = b"<!doctype html><title>Welcome</title><h1>Welcome</h1><a href='/done'>Go</a>"


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(PAGE)))
        self.end_headers()
        self.wfile.write(PAGE)

    def log_message(self, *args: object) -> None:
        pass


http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()
