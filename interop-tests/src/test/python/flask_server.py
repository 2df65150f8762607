"""Starts Flask-Limiter (Debian's python3-flask-limiter) on 127.0.0.1 for Headway's interop suite.

    /usr/bin/python3 flask_server.py <server> <limit> <windowMs>

Same protocol as ../node/servers.js: one line of JSON on stdout, {"port": P, "control": C,
"version": V};
GET /work on port P goes through the limiter; port C serves POST /reset and GET /log, every request
that reached port P as [ms since reset, status], counted by a WSGI wrapper around the whole app.
Ends when its standard input closes.

Servers: flask-moving (a moving window, X-RateLimit-Limit/-Remaining/-Reset and Retry-After on
every response) and flask-moving-cost2 (the same, each request costing 2 of the limit's units).
"""

import json
import sys
import threading
import time

import flask
from flask import Flask, jsonify
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address
from werkzeug.serving import make_server

SERVERS = ("flask-moving", "flask-moving-cost2")


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in SERVERS:
        print("usage: flask_server.py {%s} <limit> <windowMs>" % "|".join(SERVERS), file=sys.stderr)
        sys.exit(2)
    name, limit, window_ms = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    if window_ms % 1000:
        print("windowMs must be whole seconds for Flask-Limiter", file=sys.stderr)
        sys.exit(2)
    cost = 2 if name == "flask-moving-cost2" else 1
    state = {"t0": time.monotonic(), "log": []}
    lock = threading.Lock()

    app = Flask(__name__)
    limiter = Limiter(get_remote_address, app=app, storage_uri="memory://",
                      strategy="moving-window", headers_enabled=True)

    @app.get("/work")
    @limiter.limit("%d per %d second" % (limit * cost, window_ms // 1000), cost=cost)
    def work():
        return jsonify(ok=True)

    inner = app.wsgi_app

    def counted(environ, start_response):
        at = round((time.monotonic() - state["t0"]) * 1000)
        status = [0]

        def start(code, headers, exc_info=None):
            status[0] = int(code.split(" ", 1)[0])
            return start_response(code, headers, exc_info)

        result = inner(environ, start)
        with lock:
            state["log"].append([at, status[0]])
        return result

    app.wsgi_app = counted

    def control(environ, start_response):
        method, path = environ["REQUEST_METHOD"], environ["PATH_INFO"]
        if method == "POST" and path == "/reset":
            with lock:
                state["t0"] = time.monotonic()
                state["log"] = []
            body = b"{}"
        elif method == "GET" and path == "/log":
            with lock:
                body = json.dumps({"log": list(state["log"])}).encode()
        else:
            start_response("404 Not Found", [("Content-Length", "0")])
            return [b""]
        start_response("200 OK", [("Content-Type", "application/json"),
                                  ("Content-Length", str(len(body)))])
        return [body]

    limited = make_server("127.0.0.1", 0, app, threaded=True)
    controller = make_server("127.0.0.1", 0, control, threaded=True)
    for server in (limited, controller):
        threading.Thread(target=server.serve_forever, daemon=True).start()
    import flask_limiter
    version = "Flask-Limiter %s, Flask %s (Debian)" % (flask_limiter.__version__, flask.__version__)
    print(json.dumps({"port": limited.server_port, "control": controller.server_port,
                      "version": version}), flush=True)
    sys.stdin.read()  # until the test's JVM closes it


if __name__ == "__main__":
    main()
