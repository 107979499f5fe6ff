#!/usr/bin/env python3
"""A stand-in third party for image/check.sh: answers POST .../records with 201 and a record id, a lookup with 404,
and appends each request it gets (method, path, body) as one JSON line to the file given."""
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

port, record_file = int(sys.argv[1]), sys.argv[2]
lock = threading.Lock()
count = 0


class Stub(BaseHTTPRequestHandler):
    def record(self, body):
        with lock, open(record_file, "a") as f:
            f.write(json.dumps({"method": self.command, "path": self.path, "body": body}) + "\n")

    def do_POST(self):
        global count
        body = self.rfile.read(int(self.headers.get("Content-Length", 0))).decode()
        self.record(body)
        with lock:
            count += 1
            answer = json.dumps({"id": "rec-%d" % count}).encode()
        self.send_response(201 if self.path.split("?")[0].endswith("/records") else 200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def do_GET(self):
        self.record(None)
        self.send_response(404)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


ThreadingHTTPServer(("127.0.0.1", port), Stub).serve_forever()
