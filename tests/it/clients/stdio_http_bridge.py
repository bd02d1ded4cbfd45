"""A minimal Streamable-HTTP front for a stdio MCP server, for running the
official conformance suite (`@modelcontextprotocol/conformance server --url`)
by hand against `notarai mcp` (docs/mcp-revisions.md). Not a test.

Unlike general bridges (supergateway answers and rewrites 2026-07-28 requests
itself, and opens each child with its own `initialize`), it passes every
JSON-RPC body to one child process unchanged and returns the child's answer:
what the suite judges is the server's. HTTP-only rules (headers, status codes
other than 200/202, SSE) are not modelled: a check of those judges this bridge.

Usage: python3 stdio_http_bridge.py PORT COMMAND [ARGS...]
"""

import json
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

port, command = int(sys.argv[1]), sys.argv[2:]
child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
write_lock = threading.Lock()
waiting = {}  # json id text -> (event, [answer])
waiting_lock = threading.Lock()


def read_child():
    for line in child.stdout:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        key = json.dumps(message.get("id")) if isinstance(message, dict) else None
        with waiting_lock:
            slot = waiting.get(key)
        if slot is not None and ("result" in message or "error" in message):
            slot[1].append(message)
            slot[0].set()


threading.Thread(target=read_child, daemon=True).start()


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        self.send_response(405)
        self.end_headers()

    def do_DELETE(self):
        self.send_response(405)
        self.end_headers()

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        try:
            message = json.loads(body)
        except ValueError:
            message = None
        is_request = isinstance(message, dict) and "id" in message and "method" in message
        slot = (threading.Event(), [])
        if is_request:
            with waiting_lock:
                waiting[json.dumps(message["id"])] = slot
        with write_lock:
            child.stdin.write(body.replace(b"\n", b"") + b"\n")
            child.stdin.flush()
        if not is_request:
            self.send_response(202)
            self.end_headers()
            return
        slot[0].wait(60)
        with waiting_lock:
            waiting.pop(json.dumps(message["id"]), None)
        answer = json.dumps(slot[1][0] if slot[1] else {
            "jsonrpc": "2.0", "id": message["id"],
            "error": {"code": -32603, "message": "no answer from the server"}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)


ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()
