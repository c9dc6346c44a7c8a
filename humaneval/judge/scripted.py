"""A scripted OpenAI-compatible endpoint for tests, benchmarks and the demo: no model, no network.

    python -m humaneval.judge.scripted --port 8091 --script SCRIPT.json [--host 127.0.0.1]

It answers ``POST /v1/chat/completions`` from a script (JSON)::

    {"api_key": "secret",            # optional: then "Authorization: Bearer secret" is required (else 401)
     "rules": [
        {"prefix": "You are Debater A", "match": ["心细如发"], "cycle": false,
         "replies": [{"json": {"sp": 1, "g_1": 1, "g_2": 1, "thoughts": "..."}},
                     {"content": "not json at all"},
                     {"status": 429, "retry_after": 0.2},
                     {"delay": 3.0, "json": {...}}]}],
     "default": {"status": 400},      # optional: the reply when no rule matches (else HTTP 400)
     "latency": 0.2,                  # optional: seconds every answer waits (a model's think time)
     "inject": {"every": 10, "status": 429, "retry_after": 0.1}}   # optional: every 10th request fails

A request matches the first rule whose ``prefix`` starts its first message and
whose ``match`` strings all occur somewhere in its messages. Each rule counts
the requests it answered: the n-th gets ``replies[n]``, and once they run out
the last one repeats (or, with ``"cycle": true``, they start over). A reply is
``content`` (text as is) or ``json`` (serialized), optionally with ``status``
(an OpenAI-style error with that HTTP status), ``retry_after`` (seconds, sent as
``Retry-After`` and ``retry-after-ms``) and ``delay`` (seconds to wait before
answering, to provoke client timeouts).

``GET /_requests`` lists what was received (authorization reduced to ok or not),
for tests to check what the client sent.
"""

from __future__ import annotations

import argparse
import json
import math
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any


class ScriptError(ValueError):
    """The script is not usable (names the rule)."""


def check_script(script: Any) -> dict[str, Any]:
    if not isinstance(script, dict) or not isinstance(script.get("rules", []), list):
        raise ScriptError('a script is an object with a "rules" list')
    inject = script.get("inject")
    if inject is not None and (not isinstance(inject, dict) or not isinstance(inject.get("every"), int)
                               or inject["every"] < 1):
        raise ScriptError('"inject" needs "every": a whole number of requests, at least 1')
    for n, rule in enumerate(script.get("rules", []), 1):
        if not isinstance(rule, dict) or not isinstance(rule.get("replies"), list) or not rule["replies"]:
            raise ScriptError(f"rule {n}: needs a non-empty \"replies\" list")
        if not isinstance(rule.get("match", []), list):
            raise ScriptError(f"rule {n}: \"match\" must be a list of strings")
    return script


class Script:
    """The rules and their counters; thread-safe."""

    def __init__(self, script: dict[str, Any]):
        self.script = check_script(script)
        self.counters = [0] * len(self.script.get("rules", []))
        self.served = 0
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()

    def reply_for(self, messages: list[dict[str, Any]]) -> dict[str, Any] | None:
        inject = self.script.get("inject")
        if inject:
            with self.lock:
                self.served += 1
                if self.served % int(inject["every"]) == 0:
                    return {k: v for k, v in inject.items() if k != "every"}
        first = str(messages[0].get("content", "")) if messages else ""
        text = "\n".join(str(m.get("content", "")) for m in messages)
        with self.lock:
            for n, rule in enumerate(self.script.get("rules", [])):
                if not first.startswith(rule.get("prefix", "")):
                    continue
                if not all(s in text for s in rule.get("match", [])):
                    continue
                replies, count = rule["replies"], self.counters[n]
                self.counters[n] += 1
                index = count % len(replies) if rule.get("cycle") else min(count, len(replies) - 1)
                return replies[index]
        return self.script.get("default")


def _tokens(text: str) -> int:
    return max(1, math.ceil(len(text) / 4))   # a rough count, enough for cost arithmetic in tests


class _Handler(BaseHTTPRequestHandler):
    server: "ScriptedServer"
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):   # quiet: tests and the demo read the request log instead
        pass

    def _send(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(body, ensure_ascii=False).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):   # the client gave up (timeout); nothing to do
            pass

    def _error(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        kind = {401: "invalid_api_key", 429: "rate_limit_exceeded"}.get(status, "scripted_error")
        self._send(status, {"error": {"message": message, "type": kind, "code": kind}}, headers)

    def do_GET(self):
        if self.path.rstrip("/") == "/_requests":
            with self.server.script.lock:
                self._send(200, list(self.server.script.requests))
        elif self.path.rstrip("/") == "/v1/models":
            self._send(200, {"object": "list", "data": [{"id": "scripted", "object": "model"}]})
        else:
            self._error(404, f"no route {self.path}")

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        try:
            raw = self.rfile.read(length)
        except (ConnectionResetError, OSError):   # the client died mid-request: nothing to answer or log
            return
        if len(raw) < length:
            return
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            return self._error(400, "the body is not JSON")
        if self.path.rstrip("/") != "/v1/chat/completions":
            return self._error(404, f"no route {self.path}")
        expected = self.server.script.script.get("api_key")
        auth_ok = expected is None or self.headers.get("Authorization") == f"Bearer {expected}"
        messages = body.get("messages") or []
        with self.server.script.lock:
            self.server.script.requests.append({"model": body.get("model"), "temperature": body.get("temperature"),
                                                "messages": messages, "auth_ok": auth_ok, "at": time.time()})
        if not auth_ok:
            return self._error(401, "invalid or missing bearer token")
        reply = self.server.script.reply_for(messages)
        if reply is None:
            return self._error(400, "no rule of the script matches this request")
        delay = float(reply.get("delay", 0)) + float(self.server.script.script.get("latency", 0))
        if delay:
            time.sleep(delay)
        status = int(reply.get("status", 200))
        if status != 200:
            headers = {}
            if reply.get("retry_after") is not None:
                wait = float(reply["retry_after"])
                headers = {"Retry-After": str(math.ceil(wait)), "retry-after-ms": str(int(wait * 1000))}
            return self._error(status, reply.get("message", f"scripted HTTP {status}"), headers)
        content = json.dumps(reply["json"], ensure_ascii=False) if "json" in reply else str(reply.get("content", ""))
        prompt = "\n".join(str(m.get("content", "")) for m in messages)
        usage = {"prompt_tokens": _tokens(prompt), "completion_tokens": _tokens(content)}
        usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
        self._send(200, {"id": "scripted-1", "object": "chat.completion", "created": int(time.time()),
                         "model": body.get("model") or "scripted",
                         "choices": [{"index": 0, "finish_reason": "stop",
                                      "message": {"role": "assistant", "content": content}}],
                         "usage": usage})


class ScriptedServer(ThreadingHTTPServer):
    """The server; ``with ScriptedServer(script) as s:`` serves in a thread at ``s.base_url``."""

    daemon_threads = True

    def __init__(self, script: dict[str, Any], host: str = "127.0.0.1", port: int = 0):
        self.script = Script(script)
        super().__init__((host, port), _Handler)
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host}:{port}/v1"

    @property
    def requests(self) -> list[dict[str, Any]]:
        with self.script.lock:
            return list(self.script.requests)

    def __enter__(self) -> "ScriptedServer":
        self._thread = threading.Thread(target=self.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.shutdown()
        self.server_close()


def load_script(path: str | Path) -> dict[str, Any]:
    try:
        return check_script(json.loads(Path(path).read_text(encoding="utf-8")))
    except (OSError, ValueError) as exc:
        raise ScriptError(f"{path}: {exc}") from None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m humaneval.judge.scripted",
                                     description="A scripted OpenAI-compatible chat endpoint (tests, demo).")
    parser.add_argument("--script", required=True, help="the script (JSON; format in the module docstring)")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8091, help="0 picks a free port")
    args = parser.parse_args(argv)
    try:
        server = ScriptedServer(load_script(args.script), args.host, args.port)
    except ScriptError as exc:
        parser.exit(1, f"scripted: error: {exc}\n")
    print(f"scripted endpoint on {server.base_url}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
