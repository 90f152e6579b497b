"""What the two example backends share: flags, request parsing and validation (TGI and OpenAI
bodies), response framing (TGI SSE "data:{json}\\n\\n"; OpenAI "data: {json}\\n\\n" and
"data: [DONE]"), the per-request timing log, Prometheus metrics and the batching engine.

Import order matters: `parse_args()` sets the BLAS thread count in the environment, so call it
before importing `tinygpt` (which imports torch).
"""
from __future__ import annotations

import argparse
import itertools
import json
import os
import queue
import random
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional

DEFAULT_MODEL = "servebench/tinygpt"


def parse_args(description: str, extra: Callable[[argparse.ArgumentParser], None]) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port to bind; 0 picks a free one (default 8000)")
    p.add_argument("--timing-log", default="", help="append one JSON line per request to this file")
    p.add_argument("--threads", type=int, default=1, help="torch/BLAS threads (default 1)")
    p.add_argument("--seed", type=int, default=1234, help="weight initialisation seed")
    p.add_argument("--model-name", default=DEFAULT_MODEL, help="model id reported by /info and OpenAI responses")
    p.add_argument("--max-input-tokens", type=int, default=896, help="longest prompt accepted (tokens)")
    p.add_argument("--max-total-tokens", type=int, default=1024, help="prompt + new tokens limit (model positions)")
    p.add_argument("--max-new-tokens-limit", type=int, default=512, help="largest max_new_tokens / max_tokens accepted")
    p.add_argument("--stop-at-eos", action="store_true",
                   help="end a generation when the model picks </s> (default: always generate max_new_tokens, "
                        "as a fixed-length benchmark needs; the random weights would otherwise stop at random)")
    extra(p)
    args = p.parse_args()
    if not 1 <= args.threads <= 256:
        p.error("--threads must be between 1 and 256")
    if args.max_total_tokens > 1024:
        p.error("--max-total-tokens cannot exceed the model's 1024 positions")
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(args.threads)
    return args


# ---------------------------------------------------------------------------------------------
# Errors

class BadRequest(Exception):
    """A request the server refuses: TGI routes answer 422 {"error", "error_type": "validation"};
    OpenAI routes answer 400 in vLLM's shape."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def tgi_error(message: str, error_type: str = "validation") -> bytes:
    return dumps({"error": message, "error_type": error_type})


def openai_error(message: str, status: int = 400) -> bytes:
    return dumps({"object": "error", "message": message, "type": "BadRequestError", "param": None, "code": status})


def error_response(api: str, message: str):
    """(status, body) for a BadRequest on `api`."""
    if api == "tgi":
        return 422, tgi_error(message)
    return 400, openai_error(message)


def dumps(obj: Any) -> bytes:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


# ---------------------------------------------------------------------------------------------
# Requests

_ids = itertools.count(1)


@dataclass
class Timing:
    """One request's timeline on this process's clocks. *_mono are time.monotonic() seconds
    (CLOCK_MONOTONIC, the clock std::chrono::steady_clock reads on Linux); *_unix wall clock.
    arrival: the request line and headers are parsed (the handler starts); start: generation
    begins (after the lock or the batch wait); first/last token: the event carrying the first /
    last token is handed to the socket (read just before the write), or the token was generated
    (whole responses); done: the whole body (whole responses) or the stream's last token event
    is handed to the socket (just before the write). Every server reading thus lies inside the
    client's [send, receive] span of the same bytes: client minus server is never negative."""

    arrival_mono: float = field(default_factory=time.monotonic)
    arrival_unix: float = field(default_factory=time.time)
    start_mono: Optional[float] = None
    first_mono: Optional[float] = None
    last_mono: Optional[float] = None
    done_mono: Optional[float] = None
    tokens: int = 0
    batch_size: int = 0

    def token(self, now: Optional[float] = None) -> None:
        now = time.monotonic() if now is None else now
        if self.first_mono is None:
            self.first_mono = now
        self.last_mono = now
        self.tokens += 1


@dataclass
class Request:
    api: str                 # "tgi" | "openai" | "openai-chat"
    route: str
    stream: bool
    prompt_ids: List[int]
    params: Any              # tinygpt.GenParams
    model: str = DEFAULT_MODEL
    details: bool = False    # TGI parameters.details
    include_usage: bool = False
    rid: str = ""
    timing: Timing = field(default_factory=Timing)


@dataclass
class Limits:
    max_input_tokens: int
    max_total_tokens: int
    max_new_tokens_limit: int
    stop_at_eos: bool
    model_name: str

    @staticmethod
    def from_args(a: argparse.Namespace) -> "Limits":
        return Limits(a.max_input_tokens, a.max_total_tokens, a.max_new_tokens_limit, a.stop_at_eos, a.model_name)


def _load(body: bytes) -> Dict[str, Any]:
    try:
        j = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise BadRequest(f"Failed to parse the request body as JSON: {e}")
    if not isinstance(j, dict):
        raise BadRequest("Failed to deserialize the JSON body into the target type: expected an object")
    return j


def _int(v: Any, name: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise BadRequest(f"Failed to deserialize the JSON body into the target type: {name}: expected an integer")
    return v


def _check_lengths(prompt_tokens: int, max_new: int, lim: Limits, name: str) -> None:
    if max_new < 1:
        raise BadRequest(f"Input validation error: `{name}` must be strictly positive")
    if max_new > lim.max_new_tokens_limit:
        raise BadRequest(f"Input validation error: `{name}` must be <= {lim.max_new_tokens_limit}. Given: {max_new}")
    if prompt_tokens > lim.max_input_tokens:
        raise BadRequest(f"Input validation error: `inputs` must have less than {lim.max_input_tokens} tokens. "
                         f"Given: {prompt_tokens}")
    if prompt_tokens + max_new > lim.max_total_tokens:
        raise BadRequest(f"Input validation error: `inputs` tokens + `{name}` must be <= {lim.max_total_tokens}. "
                         f"Given: {prompt_tokens} `inputs` tokens and {max_new} `{name}`")


def _sampling(gp_cls, max_new: int, temperature: Any, do_sample: Any, top_k: Any, seed: Any, lim: Limits,
              ignore_eos: bool = False):
    t = 1.0 if temperature is None else temperature
    if not isinstance(t, (int, float)) or isinstance(t, bool) or t < 0:
        raise BadRequest("Input validation error: `temperature` must be a non-negative number")
    sample = bool(do_sample) if do_sample is not None else (temperature is not None and t > 0)
    if seed is not None:
        seed = _int(seed, "seed")
    elif sample:
        seed = random.getrandbits(63)
    k = 0 if top_k is None else _int(top_k, "top_k")
    return gp_cls(max_new_tokens=max_new, do_sample=sample and t > 0, temperature=float(t) or 1.0, top_k=k,
                  seed=seed, stop_at_eos=lim.stop_at_eos and not ignore_eos)


def parse_tgi(body: bytes, stream: bool, route: str, tok, gp_cls, lim: Limits) -> Request:
    """TGI GenerateRequest {"inputs": str, "parameters": {max_new_tokens, details, do_sample,
    temperature, top_k, seed, ...}} (also the reference study's custom /generate route)."""
    j = _load(body)
    if "inputs" not in j:
        raise BadRequest("Failed to deserialize the JSON body into the target type: missing field `inputs`")
    inputs = j["inputs"]
    if not isinstance(inputs, str):
        raise BadRequest("Failed to deserialize the JSON body into the target type: inputs: expected a string")
    if not inputs:
        raise BadRequest("Input validation error: `inputs` cannot be empty")
    p = j.get("parameters") or {}
    if not isinstance(p, dict):
        raise BadRequest("Failed to deserialize the JSON body into the target type: parameters: expected an object")
    max_new = 20 if p.get("max_new_tokens") is None else _int(p["max_new_tokens"], "parameters.max_new_tokens")
    ids = tok.encode(inputs)
    _check_lengths(len(ids), max_new, lim, "max_new_tokens")
    details = p.get("details", False)
    if not isinstance(details, bool):
        raise BadRequest("Failed to deserialize the JSON body into the target type: parameters.details: "
                         "expected a boolean")
    params = _sampling(gp_cls, max_new, p.get("temperature"), p.get("do_sample", False), p.get("top_k"),
                       p.get("seed"), lim)
    return Request("tgi", route, stream, ids, params, lim.model_name, details, False, f"tgi-{next(_ids)}")


def chat_prompt(messages: Any) -> str:
    """A plain chat template: "role: content" lines, then "assistant:"."""
    if not isinstance(messages, list) or not messages:
        raise BadRequest("messages: Input should be a non-empty list of messages")
    lines = []
    for m in messages:
        if not isinstance(m, dict) or not isinstance(m.get("role"), str):
            raise BadRequest("messages: each message must be an object with a string role")
        c = m.get("content")
        if isinstance(c, list):
            c = "".join(part.get("text", "") for part in c if isinstance(part, dict))
        if c is None:
            c = ""
        if not isinstance(c, str):
            raise BadRequest("messages.content: Input should be a valid string")
        lines.append(f"{m['role']}: {c}\n")
    return "".join(lines) + "assistant:"


def parse_openai(body: bytes, chat: bool, tok, gp_cls, lim: Limits) -> Request:
    """OpenAI /v1/completions {"prompt", "max_tokens" (16)} or /v1/chat/completions {"messages",
    "max_tokens" | "max_completion_tokens"}; "stream", "stream_options": {"include_usage"},
    "temperature" (absent: greedy), "seed", "top_k", "ignore_eos" (vLLM)."""
    j = _load(body)
    if chat:
        if "messages" not in j:
            raise BadRequest("Field required: messages")
        ids = tok.encode(chat_prompt(j["messages"]))
    else:
        if "prompt" not in j:
            raise BadRequest("Field required: prompt")
        prompt = j["prompt"]
        if isinstance(prompt, list) and len(prompt) == 1 and isinstance(prompt[0], str):
            prompt = prompt[0]
        if isinstance(prompt, str):
            ids = tok.encode(prompt)
        elif isinstance(prompt, list) and prompt and all(isinstance(t, int) and 0 <= t < tok.vocab_size
                                                        for t in prompt):
            ids = list(prompt)
        else:
            raise BadRequest("prompt: Input should be a string, a list of token ids or a list with one string")
        if not ids:
            raise BadRequest("Prompt cannot be empty")
    max_new = None
    for key in ("max_tokens", "max_completion_tokens"):
        if j.get(key) is not None:
            max_new = _int(j[key], key)
            break
    if max_new is None:
        max_new = min(lim.max_new_tokens_limit, lim.max_total_tokens - len(ids)) if chat else 16
    _check_lengths(len(ids), max_new, lim, "max_tokens")
    stream = j.get("stream", False)
    if not isinstance(stream, bool):
        raise BadRequest("stream: Input should be a valid boolean")
    so = j.get("stream_options")
    include_usage = False
    if so is not None:
        if not stream:
            raise BadRequest("Stream options can only be defined when `stream=True`.")
        include_usage = bool(isinstance(so, dict) and so.get("include_usage"))
    params = _sampling(gp_cls, max_new, j.get("temperature"), None, j.get("top_k"), j.get("seed"), lim,
                       bool(j.get("ignore_eos", False)))
    model = j.get("model") if isinstance(j.get("model"), str) else lim.model_name
    api = "openai-chat" if chat else "openai"
    route = "/v1/chat/completions" if chat else "/v1/completions"
    prefix = "chatcmpl" if chat else "cmpl"
    return Request(api, route, stream, ids, params, model, False, include_usage, f"{prefix}-{next(_ids)}")


# ---------------------------------------------------------------------------------------------
# Responses

class Responder:
    """Builds one request's response bytes from the generated tokens (tinygpt.StepToken)."""

    def __init__(self, req: Request) -> None:
        self.req = req
        self.created = int(time.time())
        self.text: List[str] = []     # output text (special tokens excluded)
        self.tokens: List[Any] = []
        self.finish_reason = ""

    def add(self, step) -> None:
        self.tokens.append(step)
        if not step.special:
            self.text.append(step.text)
        if step.last:
            self.finish_reason = step.finish_reason

    def _openai_finish(self) -> str:
        return "stop" if self.finish_reason == "eos_token" else "length"

    def _usage(self) -> Dict[str, int]:
        n, p = len(self.tokens), len(self.req.prompt_ids)
        return {"prompt_tokens": p, "total_tokens": p + n, "completion_tokens": n}

    # -- streams
    def stream_start(self) -> bytes:
        if self.req.api != "openai-chat":
            return b""
        return self._chunk({"role": "assistant", "content": ""}, None)

    def stream_token(self, step) -> bytes:
        """The event for `step` (call add(step) first)."""
        r = self.req
        if r.api == "tgi":
            ev: Dict[str, Any] = {
                "index": step.index,
                "token": {"id": step.token_id, "text": step.text, "logprob": round(step.logprob, 4),
                          "special": step.special},
                "generated_text": None, "details": None}
            if step.last:
                ev["generated_text"] = "".join(self.text)
                if r.details:
                    ev["details"] = {"finish_reason": step.finish_reason, "generated_tokens": len(self.tokens),
                                     "seed": r.params.seed, "input_length": len(r.prompt_ids)}
            return b"data:" + dumps(ev) + b"\n\n"
        text = "" if step.special else step.text
        finish = self._openai_finish() if step.last else None
        if r.api == "openai-chat":
            return self._chunk({"content": text}, finish)
        return b"data: " + dumps({
            "id": r.rid, "object": "text_completion", "created": self.created, "model": r.model,
            "choices": [{"index": 0, "text": text, "logprobs": None, "finish_reason": finish,
                         "stop_reason": None}]}) + b"\n\n"

    def _chunk(self, delta: Dict[str, Any], finish: Optional[str]) -> bytes:
        r = self.req
        return b"data: " + dumps({
            "id": r.rid, "object": "chat.completion.chunk", "created": self.created, "model": r.model,
            "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]}) + b"\n\n"

    def stream_end(self) -> bytes:
        r = self.req
        if r.api == "tgi":
            return b""
        out = b""
        if r.include_usage:
            obj = "chat.completion.chunk" if r.api == "openai-chat" else "text_completion"
            out = b"data: " + dumps({"id": r.rid, "object": obj, "created": self.created, "model": r.model,
                                     "choices": [], "usage": self._usage()}) + b"\n\n"
        return out + b"data: [DONE]\n\n"

    # -- whole responses
    def full(self) -> bytes:
        r = self.req
        text = "".join(self.text)
        if r.api == "tgi":
            # TGI's body, plus "usage" (not in TGI) so that clients of the reference study's custom
            # route (servebench --api generic) read exact token counts.
            body: Dict[str, Any] = {"generated_text": text}
            if r.details:
                body["details"] = {
                    "finish_reason": self.finish_reason, "generated_tokens": len(self.tokens),
                    "seed": r.params.seed, "prefill": [],
                    "tokens": [{"id": s.token_id, "text": s.text, "logprob": round(s.logprob, 4),
                                "special": s.special} for s in self.tokens]}
            body["usage"] = self._usage()
            return dumps(body)
        if r.api == "openai-chat":
            choice = {"index": 0, "message": {"role": "assistant", "content": text}, "logprobs": None,
                      "finish_reason": self._openai_finish(), "stop_reason": None}
            obj = "chat.completion"
        else:
            choice = {"index": 0, "text": text, "logprobs": None, "finish_reason": self._openai_finish(),
                      "stop_reason": None}
            obj = "text_completion"
        return dumps({"id": r.rid, "object": obj, "created": self.created, "model": r.model,
                      "choices": [choice], "usage": self._usage()})


# ---------------------------------------------------------------------------------------------
# Timing log and metrics

class TimingLog:
    """One JSON object per request, one line each, flushed as the request ends."""

    def __init__(self, path: str, framework: str) -> None:
        self.framework = framework
        self.lock = threading.Lock()
        self.f = open(path, "a", encoding="utf-8") if path else None

    def write(self, req: Optional[Request], route: str, status: int, timing: Timing,
              finish_reason: str = "", error: str = "") -> None:
        if timing.done_mono is None:
            timing.done_mono = time.monotonic()
        if self.f is None:
            return
        t = timing
        ms = (lambda a, b: None if a is None or b is None else round((a - b) * 1e3, 3))
        rec = {
            "framework": self.framework, "id": req.rid if req else "", "route": route,
            "api": req.api if req else "", "stream": req.stream if req else False, "status": status,
            "prompt_tokens": len(req.prompt_ids) if req else 0, "generated_tokens": t.tokens,
            "max_new_tokens": req.params.max_new_tokens if req else 0, "finish_reason": finish_reason,
            "batch_size": t.batch_size,
            "arrival_mono_s": t.arrival_mono, "start_mono_s": t.start_mono, "first_token_mono_s": t.first_mono,
            "last_token_mono_s": t.last_mono, "done_mono_s": t.done_mono,
            "arrival_unix_s": round(t.arrival_unix, 6),
            "done_unix_s": round(t.arrival_unix + (t.done_mono - t.arrival_mono), 6),
            "queue_ms": ms(t.start_mono, t.arrival_mono), "ttft_ms": ms(t.first_mono, t.arrival_mono),
            "e2e_ms": ms(t.last_mono, t.arrival_mono), "done_ms": ms(t.done_mono, t.arrival_mono),
        }
        if error:
            rec["error"] = error
        line = json.dumps(rec, separators=(",", ":")) + "\n"
        with self.lock:
            self.f.write(line)
            self.f.flush()


class Metrics:
    """Prometheus metrics (python3-prometheus-client), named as the reference study's:
    api_request_duration_seconds{framework,route} and friends. No-ops when the package is absent."""

    def __init__(self, framework: str) -> None:
        self.framework = framework
        try:
            import prometheus_client as pc
        except ImportError:
            self.pc = None
            return
        self.pc = pc
        self.registry = pc.CollectorRegistry()
        b = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60)
        self.duration = pc.Histogram("api_request_duration_seconds", "Request arrival to last byte",
                                     ["framework", "route"], buckets=b, registry=self.registry)
        self.ttft = pc.Histogram("api_time_to_first_token_seconds", "Request arrival to first token",
                                 ["framework", "route"], buckets=b, registry=self.registry)
        self.requests = pc.Counter("api_requests", "Requests answered", ["framework", "route", "status"],
                                   registry=self.registry)
        self.tokens = pc.Counter("api_generated_tokens", "Tokens generated", ["framework"], registry=self.registry)
        self.in_flight = pc.Gauge("api_requests_in_flight", "Requests being served", ["framework"],
                                  registry=self.registry)
        self.queue = pc.Gauge("api_queue_size", "Requests waiting for the model", ["framework"],
                              registry=self.registry)
        self.batch = pc.Gauge("api_batch_current_size", "Sequences in the running batch", ["framework"],
                              registry=self.registry)

    def done(self, route: str, status: int, t: Timing) -> None:
        if not self.pc:
            return
        self.requests.labels(self.framework, route, str(status)).inc()
        if status == 200 and t.done_mono is not None:
            self.duration.labels(self.framework, route).observe(t.done_mono - t.arrival_mono)
            if t.first_mono is not None:
                self.ttft.labels(self.framework, route).observe(t.first_mono - t.arrival_mono)
            self.tokens.labels(self.framework).inc(t.tokens)

    def gauge(self, name: str, delta: int = 0, value: Optional[int] = None) -> None:
        if not self.pc:
            return
        g = getattr(self, name).labels(self.framework)
        if value is not None:
            g.set(value)
        else:
            g.inc(delta)

    def exposition(self):
        """(body, content type) of /metrics."""
        if not self.pc:
            return b"# python3-prometheus-client is not installed\n", "text/plain; charset=utf-8"
        return self.pc.generate_latest(self.registry), self.pc.CONTENT_TYPE_LATEST


def info(framework: str, lim: Limits, extra: Dict[str, Any]) -> bytes:
    """TGI-style /info."""
    d = {"model_id": lim.model_name, "model_sha": None, "model_dtype": "torch.float32", "model_device_type": "cpu",
         "model_pipeline_tag": "text-generation", "max_input_tokens": lim.max_input_tokens,
         "max_input_length": lim.max_input_tokens, "max_total_tokens": lim.max_total_tokens,
         "max_new_tokens_limit": lim.max_new_tokens_limit, "router": framework, "version": "0.1.0"}
    d.update(extra)
    return dumps(d)


# ---------------------------------------------------------------------------------------------
# Batching

class Job:
    """A request handed to the engine. on_start(batch_size) runs when its batch starts,
    on_token(step) for each of its tokens, on_error(message) if generation fails; all three on
    the engine's thread. Set `cancelled` to drop its remaining tokens (the batch still runs)."""

    def __init__(self, req: Request, on_start, on_token, on_error) -> None:
        self.req = req
        self.on_start = on_start
        self.on_token = on_token
        self.on_error = on_error
        self.cancelled = False


class BatchEngine:
    """One model thread. It takes the first waiting request, then keeps collecting for up to
    `wait_ms` (or until `max_batch` requests), and generates them as one batch to completion;
    requests arriving meanwhile wait for the next batch (static batches formed dynamically, not
    continuous batching). max_batch=1 serves requests one at a time, in arrival order."""

    def __init__(self, generator, max_batch: int, wait_ms: float, metrics: Metrics) -> None:
        self.gen = generator
        self.max_batch = max(1, max_batch)
        self.wait_s = max(0.0, wait_ms) / 1e3
        self.metrics = metrics
        self.q: "queue.Queue[Optional[Job]]" = queue.Queue()
        self.thread = threading.Thread(target=self._run, name="model", daemon=True)
        self.thread.start()

    def submit(self, job: Job) -> None:
        self.metrics.gauge("queue", 1)
        self.q.put(job)

    def stop(self) -> None:
        self.q.put(None)

    def _collect(self) -> Optional[List[Job]]:
        first = self.q.get()
        if first is None:
            return None
        batch = [first]
        deadline = time.monotonic() + self.wait_s
        while len(batch) < self.max_batch:
            left = deadline - time.monotonic()
            try:
                job = self.q.get(timeout=left) if left > 0 else self.q.get_nowait()
            except queue.Empty:
                break
            if job is None:
                self.q.put(None)
                break
            batch.append(job)
        return batch

    def _run(self) -> None:
        while True:
            batch = self._collect()
            if batch is None:
                return
            self.metrics.gauge("queue", -len(batch))
            batch = [j for j in batch if not j.cancelled]
            if not batch:
                continue
            self.metrics.gauge("batch", value=len(batch))
            for j in batch:
                j.on_start(len(batch))
            try:
                for step in self.gen.generate([j.req.prompt_ids for j in batch], [j.req.params for j in batch]):
                    job = batch[step.row]
                    if not job.cancelled:
                        job.on_token(step)
            except Exception as e:  # a bug or an impossible shape: fail the batch, keep serving
                for j in batch:
                    j.on_error(f"generation failed: {e}")
            self.metrics.gauge("batch", value=0)
