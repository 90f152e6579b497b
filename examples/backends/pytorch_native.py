#!/usr/bin/python3
"""The reference study's "native PyTorch" backend: the tiny model behind Python's standard-library
ThreadingHTTPServer, speaking TGI's API. Requests are served one at a time (one lock around
generation), or, with --static-batch N, in manual static batches of up to N requests.

    /usr/bin/python3 examples/backends/pytorch_native.py --port 8000 [--timing-log t.jsonl]

Routes: POST /generate, POST /generate_stream (TGI: SSE "data:{json}\\n\\n", no [DONE]),
GET /health, /info, /metrics. Prints its URL on the first stdout line once it accepts
connections; stops cleanly on SIGTERM or SIGINT. See docs/backends.md.
"""
from __future__ import annotations

import os
import queue
import signal
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402


def extra_flags(p) -> None:
    p.add_argument("--static-batch", type=int, default=1,
                   help="manual static batching: generate up to N requests together (default 1: one at a time)")
    p.add_argument("--batch-timeout-ms", type=float, default=100.0,
                   help="with --static-batch: how long the first request waits for the batch to fill (default 100)")


ARGS = common.parse_args("TGI-compatible tiny-GPT server on the standard library (one request at a time)",
                         extra_flags)

import torch  # noqa: E402
import tinygpt  # noqa: E402

torch.set_num_threads(ARGS.threads)
TOK, MODEL, GEN = tinygpt.build(ARGS.seed)
LIMITS = common.Limits.from_args(ARGS)
FRAMEWORK = "pytorch_native"
LOG = common.TimingLog(ARGS.timing_log, FRAMEWORK)
METRICS = common.Metrics(FRAMEWORK)
LOCK = threading.Lock()
ENGINE = common.BatchEngine(GEN, ARGS.static_batch, ARGS.batch_timeout_ms, METRICS) if ARGS.static_batch > 1 else None
_DONE = object()


def tokens_for(req: common.Request):
    """The request's tokens, in order, generated under the lock (one request at a time) or by
    the static-batching engine. A generator: closing it early releases the lock."""
    t = req.timing
    if ENGINE is None:
        METRICS.gauge("queue", 1)
        with LOCK:
            METRICS.gauge("queue", -1)
            METRICS.gauge("batch", value=1)
            t.start_mono = time.monotonic()
            t.batch_size = 1
            try:
                yield from GEN.generate([req.prompt_ids], [req.params])
            finally:
                METRICS.gauge("batch", value=0)
        return
    q: "queue.Queue" = queue.Queue()

    def on_start(n: int) -> None:
        t.start_mono, t.batch_size = time.monotonic(), n

    def on_token(step) -> None:
        q.put(step)
        if step.last:
            q.put(_DONE)

    job = common.Job(req, on_start, on_token, lambda msg: q.put(RuntimeError(msg)))
    ENGINE.submit(job)
    try:
        while True:
            item = q.get()
            if item is _DONE:
                return
            if isinstance(item, Exception):
                raise item
            yield item
    finally:
        job.cancelled = True


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "servebench-pytorch-native/0.1"
    disable_nagle_algorithm = True  # TCP_NODELAY: each token event leaves at once (asyncio does the same)

    def log_message(self, fmt, *args) -> None:  # quiet: the timing log records requests
        pass

    def _send(self, status: int, body: bytes, ctype: str = "application/json") -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        self.wfile.flush()

    def _chunk(self, data: bytes) -> None:
        if data:
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
            self.wfile.flush()

    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0]
        if path == "/health":
            self._send(200, b"", "text/plain")
        elif path == "/info":
            self._send(200, common.info(FRAMEWORK, LIMITS, {"max_batch_size": ARGS.static_batch}))
        elif path == "/metrics":
            body, ctype = METRICS.exposition()
            self._send(200, body, ctype)
        else:
            self._send(404, common.tgi_error(f"no route GET {path}", "not_found"))

    def do_POST(self) -> None:
        timing = common.Timing()
        path = self.path.split("?", 1)[0]
        if path not in ("/generate", "/generate_stream"):
            self._drain()
            self._send(404, common.tgi_error(f"no route POST {path}", "not_found"))
            return
        body = self._drain()
        try:
            req = common.parse_tgi(body, path == "/generate_stream", path, TOK, tinygpt.GenParams, LIMITS)
        except common.BadRequest as e:
            status, err = common.error_response("tgi", e.message)
            self._send(status, err)
            LOG.write(None, path, status, timing, error=e.message)
            METRICS.done(path, status, timing)
            return
        req.timing = timing
        METRICS.gauge("in_flight", 1)
        try:
            self._serve(req)
        finally:
            METRICS.gauge("in_flight", -1)

    def _drain(self) -> bytes:
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n > 0 else b""

    def _serve(self, req: common.Request) -> None:
        t, out = req.timing, common.Responder(req)
        status, error = 200, ""
        tokens = tokens_for(req)
        try:
            if not req.stream:
                for step in tokens:
                    out.add(step)
                    t.token()
                body = out.full()
                t.done_mono = time.monotonic()  # just before the body is handed to the socket
                self._send(200, body)
            else:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                for step in tokens:
                    out.add(step)
                    event = out.stream_token(step)
                    t.token()  # just before the event is handed to the socket
                    self._chunk(event)
                t.done_mono = time.monotonic()
                self.wfile.write(b"0\r\n\r\n")
                self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError) as e:
            status, error = 499, f"client went away: {e}"
            self.close_connection = True
        except RuntimeError as e:
            status, error = 500, str(e)
            if not req.stream:
                self._send(500, common.tgi_error(str(e), "generation"))
            else:
                self._chunk(b"data:" + common.tgi_error(str(e), "generation") + b"\n\n")
                self.wfile.write(b"0\r\n\r\n")
        finally:
            tokens.close()
        if status != 200 or t.done_mono is None:
            t.done_mono = time.monotonic()
        LOG.write(req, req.route, status, t, out.finish_reason, error)
        METRICS.done(req.route, status, t)


class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 1024


def main() -> int:
    server = Server((ARGS.host, ARGS.port), Handler)
    host, port = server.server_address[:2]
    stopping = threading.Event()

    def stop(signum, frame) -> None:
        if not stopping.is_set():
            stopping.set()
            threading.Thread(target=server.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    print(f"http://{host}:{port}", flush=True)
    print(f"pytorch_native: {MODEL.parameter_count()} parameters, vocabulary {TOK.vocab_size}, "
          f"static batch {ARGS.static_batch}, {ARGS.threads} thread(s)", file=sys.stderr, flush=True)
    server.serve_forever(poll_interval=0.1)
    server.server_close()
    if ENGINE is not None:
        ENGINE.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
