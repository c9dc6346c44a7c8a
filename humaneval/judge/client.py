"""One chat-completion call to an OpenAI-compatible endpoint: retries, rate limit, tokens, cost.

The official ``openai`` client with ``base_url`` speaks to any compatible
server (hosted APIs, vLLM, Ollama). Its own retries are switched off: this
module retries 429, 5xx, timeouts and dropped connections itself, with
exponential backoff that honours ``Retry-After``, so that every attempt is
counted and shows in the transcript. A request-per-minute limit is shared by
all threads using one :class:`ChatClient`.

The API key is held by the ``openai`` client only; it is never part of a
record, a repr or an error message (a server that echoes it gets it masked).

Each HTTP attempt has limits the endpoint cannot stretch (:class:`_LimitedTransport`):

* a total deadline, ``timeout`` seconds from sending to the last byte (a server that drips its
  answer a byte at a time ends by then, give or take one read); it counts as a timeout (retried);
* a size cap, ``max_response_bytes``, counted while the body streams in (sent uncompressed, so
  the count is what is kept); a larger answer fails the call, and is not retried;
* no redirect to another origin (scheme, host, port): the prompts and the key go only to the
  base URL's server. A refused redirect fails the call, and is not retried;
* an answer that is not a chat completion (not JSON, no ``choices``) fails that call, so that item,
  and never the run.
"""

from __future__ import annotations

import email.utils
import random
import threading
import time
from dataclasses import asdict, dataclass, field
from typing import Any, Callable

RETRYABLE_STATUS = frozenset({408, 409, 429}) | frozenset(range(500, 600))
MAX_RESPONSE_BYTES = 8 * 1024 * 1024     # a chat answer is a few KB; 8 MiB leaves room for long reasoning


@dataclass(frozen=True)
class EndpointConfig:
    """Where and how to call. ``api_key`` is excluded from repr so it cannot reach a log by accident."""

    base_url: str
    model: str
    api_key: str = field(repr=False)
    temperature: float = 0.0
    timeout: float = 120.0                # seconds per attempt
    max_retries: int = 5                  # attempts after the first, on 429/5xx/timeouts
    backoff_base: float = 1.0             # seconds; doubles each retry (with jitter)
    backoff_max: float = 60.0             # seconds; also caps a Retry-After
    requests_per_minute: float | None = None
    price_prompt_per_1k: float = 0.0      # currency units per 1,000 prompt tokens
    price_completion_per_1k: float = 0.0  # currency units per 1,000 completion tokens
    max_tokens: int | None = None
    max_response_bytes: int = MAX_RESPONSE_BYTES


@dataclass
class CallRecord:
    """One call as the transcript keeps it: every message in, the answer out, what it took."""

    role: str                      # "debater_a", "debater_b", "judge" or "single"
    round: int
    messages: list[dict[str, str]]
    answer: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0
    attempts: int = 0              # HTTP requests made, 1 when nothing was retried
    errors: list[str] = field(default_factory=list)   # why each retried or failed attempt failed
    seconds: float = 0.0
    correction: bool = False       # the corrective retry after a malformed answer
    ok: bool = False

    @property
    def retried(self) -> bool:
        return self.attempts > 1

    def to_dict(self) -> dict[str, Any]:
        return asdict(self) | {"retried": self.retried}


class EndpointError(RuntimeError):
    """The endpoint failed for good: a non-retryable status, or retries exhausted."""


class _Refused(Exception):
    """A limit of :class:`_LimitedTransport` refused the answer for good (too large, a redirect elsewhere)."""


class _Deadline(Exception):
    """The attempt's total deadline passed while the answer was still coming in (retried like a timeout)."""


def _origin(url) -> tuple[str, str, int | None]:
    return (url.scheme, url.host, url.port)


def _limited_http_client(config: EndpointConfig):
    """An ``httpx2.Client`` for the ``openai`` client: per-attempt deadline, size cap, same origin only."""
    import httpx2

    class _LimitedStream(httpx2.SyncByteStream):
        def __init__(self, inner, deadline: float):
            self.inner, self.deadline, self.seen = inner, deadline, 0

        def __iter__(self):
            for chunk in self.inner:
                self.seen += len(chunk)
                if self.seen > config.max_response_bytes:
                    raise _Refused(f"the answer is larger than {config.max_response_bytes:,} bytes")
                if time.monotonic() > self.deadline:
                    raise _Deadline(f"no complete answer within {config.timeout:g} s (the total deadline)")
                yield chunk

        def close(self):
            self.inner.close()

    class _LimitedTransport(httpx2.BaseTransport):
        def __init__(self, base_url: str):
            self.inner, self.origin = httpx2.HTTPTransport(), _origin(httpx2.URL(base_url))

        def handle_request(self, request):
            if _origin(request.url) != self.origin:   # also every redirect hop: checked before it is sent
                raise _Refused(f"a redirect to another server ({request.url.scheme}://{request.url.host}) was "
                               "not followed")
            deadline = time.monotonic() + config.timeout
            response = self.inner.handle_request(request)
            length = response.headers.get("content-length", "")
            if length.isascii() and length.isdigit() and int(length) > config.max_response_bytes:
                response.close()
                raise _Refused(f"the answer is larger than {config.max_response_bytes:,} bytes ({int(length):,})")
            response.stream = _LimitedStream(response.stream, deadline)
            return response

        def close(self):
            self.inner.close()

    return httpx2.Client(transport=_LimitedTransport(config.base_url), timeout=config.timeout,
                         headers={"Accept-Encoding": "identity"}, follow_redirects=True, max_redirects=5)


class RateLimiter:
    """At most ``per_minute`` call starts per minute across threads, spaced evenly."""

    def __init__(self, per_minute: float | None, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep):
        self.interval = 60.0 / per_minute if per_minute else 0.0
        self.clock, self.sleep = clock, sleep
        self._next = 0.0
        self._lock = threading.Lock()

    def wait(self) -> None:
        if not self.interval:
            return
        with self._lock:
            now = self.clock()
            start = max(now, self._next)
            self._next = start + self.interval
        if start > now:
            self.sleep(start - now)


def _retry_after(headers: Any) -> float | None:
    """Seconds a server asked us to wait: ``retry-after-ms``, or ``Retry-After`` as seconds or an HTTP date."""
    if headers is None:
        return None
    ms = headers.get("retry-after-ms")
    try:
        if ms is not None:
            return max(0.0, float(ms) / 1000)
    except ValueError:
        pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        parsed = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):   # neither seconds nor a date: back off as if it were absent
        return None
    return max(0.0, parsed.timestamp() - time.time()) if parsed.tzinfo else None


class ChatClient:
    """Calls one endpoint; thread-safe (one ``openai.OpenAI`` shared by all threads)."""

    def __init__(self, config: EndpointConfig, sleep: Callable[[float], None] = time.sleep):
        # openai is imported here, not at module level: the platform imports this package in every
        # web process, and the client library (httpx, pydantic models) is only needed by a judge run.
        import openai

        self.config, self.sleep, self._openai = config, sleep, openai
        self._client = openai.OpenAI(base_url=config.base_url, api_key=config.api_key or "-",
                                     timeout=config.timeout, max_retries=0, http_client=_limited_http_client(config))
        self.limiter = RateLimiter(config.requests_per_minute, sleep=sleep)

    def __repr__(self) -> str:
        return f"ChatClient(base_url={self.config.base_url!r}, model={self.config.model!r})"

    def _redact(self, text: str) -> str:
        key = self.config.api_key
        return text.replace(key, "***") if key and len(key) >= 4 else text

    def _backoff(self, attempt: int, asked: float | None) -> float:
        cfg = self.config
        if asked is not None:
            return min(asked, cfg.backoff_max)
        return min(cfg.backoff_max, cfg.backoff_base * 2 ** (attempt - 1)) * (0.5 + random.random() / 2)

    def complete(self, record: CallRecord) -> CallRecord:
        """Send ``record.messages``; fill in the answer, tokens, cost and attempts. Raises EndpointError."""
        cfg, openai = self.config, self._openai
        started = time.monotonic()
        kwargs: dict[str, Any] = {"model": cfg.model, "messages": record.messages, "temperature": cfg.temperature}
        if cfg.max_tokens:
            kwargs["max_tokens"] = cfg.max_tokens
        try:
            while True:
                record.attempts += 1
                self.limiter.wait()
                try:
                    response = self._client.chat.completions.create(**kwargs)
                except openai.APIStatusError as exc:
                    retryable = exc.status_code in RETRYABLE_STATUS
                    message = f"HTTP {exc.status_code}: {self._redact(str(exc.message))}"
                    asked = _retry_after(exc.response.headers) if retryable else None
                except openai.APITimeoutError:
                    retryable, message, asked = True, f"timed out after {cfg.timeout:g} s", None
                except openai.APIConnectionError as exc:
                    retryable, message, asked = True, f"connection failed: {self._redact(str(exc))}", None
                except _Deadline as exc:
                    retryable, message, asked = True, str(exc), None
                except _Refused as exc:      # too large, or a redirect elsewhere: asking again gets the same
                    retryable, message, asked = False, str(exc), None
                except (ValueError, TypeError, AttributeError, KeyError, openai.OpenAIError) as exc:
                    # a 200 whose body is not a chat completion (not JSON, another shape): this call fails
                    retryable, asked = False, None
                    message = f"the answer is not a chat completion: {self._redact(str(exc))[:300]}"
                else:
                    break
                record.errors.append(message)
                if not retryable or record.attempts > cfg.max_retries:
                    raise EndpointError(message if not retryable else
                                        f"gave up after {record.attempts} attempts; last: {message}")
                self.sleep(self._backoff(record.attempts, asked))
            try:
                choices = getattr(response, "choices", None)
                choice = choices[0] if choices else None
                answer = (choice.message.content if choice and choice.message else None) or ""
                usage = getattr(response, "usage", None)
                prompt_tokens = int(getattr(usage, "prompt_tokens", 0) or 0)
                completion_tokens = int(getattr(usage, "completion_tokens", 0) or 0)
            except (ValueError, TypeError, AttributeError, KeyError, IndexError) as exc:
                message = f"the answer is not a chat completion: {self._redact(str(exc))[:300]}"
                record.errors.append(message)
                raise EndpointError(message) from None
            if not isinstance(answer, str):
                record.errors.append("the answer's content is not text")
                raise EndpointError("the answer is not a chat completion: its content is not text")
            record.answer, record.prompt_tokens, record.completion_tokens = answer, prompt_tokens, completion_tokens
            record.cost = (record.prompt_tokens * cfg.price_prompt_per_1k
                           + record.completion_tokens * cfg.price_completion_per_1k) / 1000
            record.ok = True
            return record
        finally:
            record.seconds = round(time.monotonic() - started, 3)
