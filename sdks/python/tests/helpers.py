"""Helpers the tests share: signing up a fresh account, and a tiny scripted HTTP server for what a
real Cairn cannot be asked to do on cue (answer 503 then 200, answer slowly, answer without an
envelope)."""

from __future__ import annotations

import contextlib
import json
import threading
import uuid
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, List, Tuple

from cairn import CairnClient


@dataclass
class Account:
    email: str
    password: str
    access_token: str
    api_key: str


def sign_up(base_url: str) -> Account:
    email = f"python-sdk-{uuid.uuid4()}@example.com"
    password = "python sdk password"
    with CairnClient(base_url, "") as anonymous:
        token = anonymous.signup(email, password)["access_token"]
        key = anonymous.create_api_key(token, "python sdk tests")["key"]
    return Account(email, password, token, key)


# A scripted answer: status, headers, body bytes, and seconds to wait before answering.
Answer = Tuple[int, dict[str, str], bytes, float]


def json_answer(status: int, body: Any, headers: dict[str, str] | None = None, delay: float = 0.0) -> Answer:
    return (status, {"content-type": "application/json", **(headers or {})}, json.dumps(body).encode(), delay)


@dataclass
class ScriptedServer:
    """A local HTTP server answering from a script, one answer per request (the last one repeats);
    it records each request's method and path, and its Authorization header."""

    answers: List[Answer]
    requests: List[Tuple[str, str]] = field(default_factory=list)
    authorizations: List[str | None] = field(default_factory=list)
    url: str = ""
    server: Any = None

    def answer(self) -> Answer:
        return self.answers[min(len(self.requests) - 1, len(self.answers) - 1)]

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def start_scripted_server(answers: List[Answer]) -> ScriptedServer:
    script = ScriptedServer(answers)

    class Handler(BaseHTTPRequestHandler):
        def handle_one(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            if length:
                self.rfile.read(length)
            script.requests.append((self.command, self.path))
            script.authorizations.append(self.headers.get("authorization"))
            status, headers, body, delay = script.answer()
            if delay:
                threading.Event().wait(delay)
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            # The client may have given up waiting (the timeout tests).
            with contextlib.suppress(OSError):
                self.wfile.write(body)

        do_GET = do_POST = do_PUT = do_DELETE = handle_one

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    script.server = server
    script.url = f"http://127.0.0.1:{server.server_address[1]}"
    return script
