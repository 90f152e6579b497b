#!/usr/bin/python3
"""The reference study's "PyTorch wrapped in FastAPI" backend: the tiny model behind
FastAPI/uvicorn. One model thread generates; by default it takes requests one at a time in
arrival order, with --batch-size N it forms dynamic batches (waits --batch-wait-ms after the
first waiting request, generates up to N together, streams each).

    /usr/bin/python3 examples/backends/fastapi_server.py --port 8000 [--batch-size 8] [--timing-log t.jsonl]

Routes: POST /generate (TGI, and the reference study's custom route: same body
{"inputs": ..., "parameters": {"max_new_tokens": N}}), POST /generate_stream (TGI SSE
"data:{json}\\n\\n"), POST /v1/completions and /v1/chat/completions (OpenAI, stream or not,
stream_options.include_usage, "data: [DONE]"), GET /health, /info, /metrics (Prometheus),
/v1/models. Prints its URL on the first stdout line once it accepts connections; stops cleanly
on SIGTERM or SIGINT. See docs/backends.md.
"""
from __future__ import annotations

import asyncio
import os
import socket
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402


def extra_flags(p) -> None:
    p.add_argument("--batch-size", type=int, default=1,
                   help="dynamic batching: generate up to N waiting requests together (default 1: one at a time)")
    p.add_argument("--batch-wait-ms", type=float, default=5.0,
                   help="with --batch-size: how long to collect requests after the first one (default 5)")


ARGS = common.parse_args("FastAPI/uvicorn tiny-GPT server: TGI and OpenAI APIs, optional dynamic batching",
                         extra_flags)

import torch  # noqa: E402
import uvicorn  # noqa: E402
from fastapi import FastAPI, Request  # noqa: E402
from fastapi.responses import Response, StreamingResponse  # noqa: E402

import tinygpt  # noqa: E402

torch.set_num_threads(ARGS.threads)
TOK, MODEL, GEN = tinygpt.build(ARGS.seed)
LIMITS = common.Limits.from_args(ARGS)
FRAMEWORK = "fastapi_batched" if ARGS.batch_size > 1 else "fastapi"
LOG = common.TimingLog(ARGS.timing_log, FRAMEWORK)
METRICS = common.Metrics(FRAMEWORK)
ENGINE = common.BatchEngine(GEN, ARGS.batch_size, ARGS.batch_wait_ms if ARGS.batch_size > 1 else 0, METRICS)
_DONE = object()

app = FastAPI(title="servebench tiny-GPT (FastAPI)", docs_url=None, redoc_url=None, openapi_url=None)


def _json(status: int, body: bytes) -> Response:
    return Response(content=body, status_code=status, media_type="application/json")


def _reject(api: str, route: str, timing: common.Timing, message: str) -> Response:
    status, body = common.error_response(api, message)
    LOG.write(None, route, status, timing, error=message)
    METRICS.done(route, status, timing)
    return _json(status, body)


async def _serve(req: common.Request) -> Response:
    """Submits `req` to the model thread and answers with a stream or a whole body."""
    loop = asyncio.get_running_loop()
    q: asyncio.Queue = asyncio.Queue()
    t, out = req.timing, common.Responder(req)

    def on_start(n: int) -> None:
        t.start_mono, t.batch_size = time.monotonic(), n

    def on_token(step) -> None:
        loop.call_soon_threadsafe(q.put_nowait, step)

    def on_error(message: str) -> None:
        loop.call_soon_threadsafe(q.put_nowait, RuntimeError(message))

    job = common.Job(req, on_start, on_token, on_error)
    METRICS.gauge("in_flight", 1)
    ENGINE.submit(job)

    def finish(status: int, error: str = "") -> None:
        job.cancelled = True
        METRICS.gauge("in_flight", -1)
        if status != 200 or t.done_mono is None:
            t.done_mono = time.monotonic()
        LOG.write(req, req.route, status, t, out.finish_reason, error)
        METRICS.done(req.route, status, t)

    if not req.stream:
        try:
            while True:
                step = await q.get()
                if isinstance(step, Exception):
                    finish(500, str(step))
                    body = (common.tgi_error(str(step), "generation") if req.api == "tgi"
                            else common.openai_error(str(step), 500))
                    return _json(500 if req.api != "tgi" else 424, body)
                out.add(step)
                t.token()
                if step.last:
                    break
        except asyncio.CancelledError:
            finish(499, "client went away")
            raise
        body = out.full()

        class Logged(Response):  # logs once the body has been handed to the server
            async def __call__(self, scope, receive, send):
                t.done_mono = time.monotonic()  # just before the body is handed to the server
                await super().__call__(scope, receive, send)
                finish(200)

        return Logged(content=body, media_type="application/json")

    async def events():
        status, error = 200, ""
        try:
            start = out.stream_start()
            if start:
                yield start
            while True:
                step = await q.get()
                if isinstance(step, Exception):
                    status, error = 500, str(step)
                    if req.api == "tgi":
                        yield b"data:" + common.tgi_error(error, "generation") + b"\n\n"
                    return
                out.add(step)
                event = out.stream_token(step)
                t.token()  # just before the event is handed to the server
                yield event
                if step.last:
                    break
            t.done_mono = time.monotonic()
            end = out.stream_end()
            if end:
                yield end
        except (asyncio.CancelledError, GeneratorExit):
            status, error = 499, "client went away"
            raise
        finally:
            finish(status, error)

    headers = {"Cache-Control": "no-cache"}
    return StreamingResponse(events(), media_type="text/event-stream", headers=headers)


@app.post("/generate")
async def generate(request: Request) -> Response:
    """TGI /generate; also the reference study's custom route (the same body)."""
    timing = common.Timing()
    try:
        req = common.parse_tgi(await request.body(), False, "/generate", TOK, tinygpt.GenParams, LIMITS)
    except common.BadRequest as e:
        return _reject("tgi", "/generate", timing, e.message)
    req.timing = timing
    return await _serve(req)


@app.post("/generate_stream")
async def generate_stream(request: Request) -> Response:
    timing = common.Timing()
    try:
        req = common.parse_tgi(await request.body(), True, "/generate_stream", TOK, tinygpt.GenParams, LIMITS)
    except common.BadRequest as e:
        return _reject("tgi", "/generate_stream", timing, e.message)
    req.timing = timing
    return await _serve(req)


async def _openai(request: Request, chat: bool) -> Response:
    timing = common.Timing()
    route = "/v1/chat/completions" if chat else "/v1/completions"
    try:
        req = common.parse_openai(await request.body(), chat, TOK, tinygpt.GenParams, LIMITS)
    except common.BadRequest as e:
        return _reject("openai-chat" if chat else "openai", route, timing, e.message)
    req.timing = timing
    return await _serve(req)


@app.post("/v1/completions")
async def completions(request: Request) -> Response:
    return await _openai(request, False)


@app.post("/v1/chat/completions")
async def chat_completions(request: Request) -> Response:
    return await _openai(request, True)


@app.get("/health")
async def health() -> Response:
    return Response(status_code=200)


@app.get("/info")
async def info() -> Response:
    return _json(200, common.info(FRAMEWORK, LIMITS, {"max_batch_size": ARGS.batch_size,
                                                      "batch_wait_ms": ARGS.batch_wait_ms}))


@app.get("/metrics")
async def metrics() -> Response:
    body, ctype = METRICS.exposition()
    return Response(content=body, media_type=ctype)


@app.get("/v1/models")
async def models() -> Response:
    return _json(200, common.dumps({"object": "list", "data": [
        {"id": LIMITS.model_name, "object": "model", "created": 0, "owned_by": "servebench",
         "max_model_len": LIMITS.max_total_tokens}]}))


class Server(uvicorn.Server):
    """Prints the URL once uvicorn accepts connections on our (already listening) socket."""

    def __init__(self, config, url: str) -> None:
        super().__init__(config)
        self.url = url

    async def startup(self, sockets=None) -> None:
        await super().startup(sockets=sockets)
        if not self.should_exit:
            print(self.url, flush=True)


def main() -> int:
    family = socket.AF_INET6 if ":" in ARGS.host else socket.AF_INET
    # proto must be IPPROTO_TCP, not the default 0. asyncio turns Nagle off on each accepted
    # connection (base_events._set_nodelay), but only when sock.proto == IPPROTO_TCP, and an
    # accepted socket inherits the listener's proto. With socket.socket(family, SOCK_STREAM)
    # (proto 0) uvicorn's connections kept Nagle on: a small token event written while an
    # earlier segment is still unacknowledged waits for that ACK. On a fresh connection the
    # client's kernel ACKs at once (TCP quickack), so the first response streamed; on a reused
    # connection the client delays its ACKs (40 ms on Linux), so after the headers every
    # token event queued in the server's kernel and left in one burst when the delayed ACK
    # came: ttft == e2e. The event loop itself wrote each event on time (strace shows one
    # sendto per token), so this was neither GIL starvation nor an asyncio/starlette wake-up
    # problem. TCP_NODELAY on the listener as well: Linux copies it to accepted sockets.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind((ARGS.host, ARGS.port))
    sock.listen(1024)
    host, port = sock.getsockname()[:2]
    url = f"http://[{host}]:{port}" if family == socket.AF_INET6 else f"http://{host}:{port}"
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off",
                            timeout_keep_alive=30, backlog=1024)
    print(f"{FRAMEWORK}: {MODEL.parameter_count()} parameters, vocabulary {TOK.vocab_size}, "
          f"batch size {ARGS.batch_size}, {ARGS.threads} thread(s)", file=sys.stderr, flush=True)
    Server(config, url).run(sockets=[sock])  # uvicorn handles SIGTERM/SIGINT: graceful shutdown
    ENGINE.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
