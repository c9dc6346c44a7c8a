"""Issue 15, finding 5: the judge client's limits. A slow-drip answer ends at the call's deadline, a huge
answer is cut while it streams, a 200 that is not a chat completion fails that call only, and no redirect
to another server is followed (nor retried)."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from humaneval.judge import CallRecord, ChatClient, EndpointConfig, EndpointError

ANSWER = {"sp": 2, "g_1": 1, "g_2": 2, "thoughts": "fine"}


def completion(content: str) -> bytes:
    return json.dumps({"id": "c1", "object": "chat.completion", "created": 0, "model": "m",
                       "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                                    "finish_reason": "stop"}],
                       "usage": {"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7}}).encode()


class Endpoint:
    """A hostile OpenAI-compatible server: the path's first part says how it misbehaves."""

    def __init__(self, other_origin: str = ""):
        self.hits: list[str] = []
        self.other_origin = other_origin
        self.non_json_left = 0
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):  # noqa: N802
                self.rfile.read(int(self.headers.get("content-length") or 0))
                mode = self.path.strip("/").split("/")[0]
                endpoint.hits.append(self.path)
                if mode == "drip":          # headers at once, then a byte every 0.2 s for a minute
                    self.send_response(200)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", "100000")
                    self.end_headers()
                    for _ in range(300):
                        try:
                            self.wfile.write(b" ")
                            self.wfile.flush()
                        except OSError:
                            return
                        time.sleep(0.2)
                elif mode in ("huge", "huge-declared"):
                    self.send_response(200)
                    self.send_header("content-type", "application/json")
                    if mode == "huge-declared":
                        self.send_header("content-length", str(200 * 1024 * 1024))
                    self.end_headers()
                    try:
                        for _ in range(64):    # 4 MiB without a length: must be cut while streaming
                            self.wfile.write(b"[" * 65536)
                    except OSError:
                        return
                elif mode == "redirect":
                    self.send_response(307)
                    self.send_header("location", f"{endpoint.other_origin}/v1/chat/completions")
                    self.send_header("content-length", "0")
                    self.end_headers()
                elif mode == "same-redirect":
                    self.send_response(307)
                    self.send_header("location", "/ok/v1/chat/completions")
                    self.send_header("content-length", "0")
                    self.end_headers()
                elif mode == "html" or (mode == "mixed" and endpoint.non_json_left > 0):
                    endpoint.non_json_left -= 1
                    body = b"<html><body>Gateway says hello</body></html>"
                    self.send_response(200)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                else:
                    body = completion(json.dumps(ANSWER))
                    self.send_response(200)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def endpoints():
    other = Endpoint()
    main = Endpoint(other_origin=other.url)
    yield main, other
    main.close()
    other.close()


def call(base_url: str, **config) -> CallRecord:
    cfg = EndpointConfig(base_url=base_url, model="m", api_key="sk-test", **{"timeout": 1.5, "max_retries": 0,
                                                                              "backoff_base": 0.01, **config})
    record = CallRecord(role="single", round=1, messages=[{"role": "user", "content": "You are a professional"}])
    ChatClient(cfg, sleep=lambda s: None).complete(record)
    return record


def test_a_good_answer_and_a_same_origin_redirect(endpoints):
    main, _other = endpoints
    assert json.loads(call(f"{main.url}/ok/v1").answer) == ANSWER
    assert json.loads(call(f"{main.url}/same-redirect/v1").answer) == ANSWER


def test_a_slow_drip_ends_at_the_deadline(endpoints):
    main, _other = endpoints
    started = time.monotonic()
    with pytest.raises(EndpointError, match="deadline"):
        call(f"{main.url}/drip/v1")
    assert time.monotonic() - started < 4.5      # 1.5 s deadline (+ one read); the server drips for a minute


@pytest.mark.parametrize("mode", ["huge", "huge-declared"])
def test_a_huge_answer_is_cut_and_not_retried(endpoints, mode):
    main, _other = endpoints
    started = time.monotonic()
    with pytest.raises(EndpointError, match="larger than 1,000,000 bytes"):
        call(f"{main.url}/{mode}/v1", max_response_bytes=1_000_000, max_retries=3)
    assert len(main.hits) == 1 and time.monotonic() - started < 10


def test_a_200_that_is_not_a_completion_fails_the_call(endpoints):
    main, _other = endpoints
    with pytest.raises(EndpointError, match="not a chat completion"):
        call(f"{main.url}/html/v1", max_retries=3)
    assert len(main.hits) == 1


def test_no_redirect_to_another_server_and_no_retry(endpoints):
    main, other = endpoints
    with pytest.raises(EndpointError, match="redirect to another server"):
        call(f"{main.url}/redirect/v1", max_retries=3)
    assert len(main.hits) == 1 and other.hits == [], "the prompt and the key never reach the other server"
