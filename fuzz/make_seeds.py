#!/usr/bin/env python3
"""Writes the seed corpora of fuzz/corpus/ from the real transcripts in the tests.

The SSE and protocol transcripts are the C++ string literals `constexpr
std::string_view kName = "..." "...";` of tests/sse/parser_test.cc and
tests/protocol/*_test.cc; the other seeds are written here. Seeds are named
seed-*; files that libFuzzer found (crash-*, or minimised inputs) sit beside them.
Run from the repository root: python3 fuzz/make_seeds.py
"""
import ast
import glob
import json
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "fuzz", "corpus")


def transcripts(pattern):
    out = {}
    for path in sorted(glob.glob(os.path.join(ROOT, pattern))):
        src = open(path, encoding="utf-8").read()
        for m in re.finditer(r"constexpr std::string_view (k\w+) =\s*(.*?);\n", src, re.S):
            body = re.sub(r'"sv\b', '"', m.group(2))
            literals = re.findall(r'"(?:[^"\\]|\\.)*"', body)
            try:
                text = "".join(ast.literal_eval(lit) for lit in literals)
            except (SyntaxError, ValueError):
                continue  # a raw string literal R"(...)": not a transcript this reads
            out[m.group(1)] = text.encode("latin-1") if all(ord(c) < 256 for c in text) else text.encode()
    return out


def payloads(stream):
    events, data = [], None
    for line in stream.split(b"\n"):
        if line == b"":
            if data is not None:
                events.append(data)
            data = None
        elif line.startswith(b"data:"):
            v = line[5:]
            v = v[1:] if v.startswith(b" ") else v
            data = v if data is None else data + b"\n" + v
    return events


def write(target, name, data):
    d = os.path.join(CORPUS, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "seed-" + name), "wb") as f:
        f.write(data)


def main():
    sse = transcripts("tests/sse/*_test.cc")
    proto = transcripts("tests/protocol/*_test.cc")
    for i, (name, text) in enumerate(sorted({**sse, **proto}.items())):
        write("sse_parser_fuzz", name, bytes([1]) + text)  # 1 MiB limit
        write("sse_parser_fuzz", name + "-crlf-small", bytes([40]) + text.replace(b"\n", b"\r\n"))
        write("sse_parser_fuzz", name + "-cr", bytes([3]) + text.replace(b"\n", b"\r"))
    by_api = {
        "protocol_tgi_fuzz": ["kTgi", "kTgiStream"],
        "protocol_openai_fuzz": ["kVllmCompletions"],
        "protocol_openai_chat_fuzz": ["kOpenAi", "kVllmChat", "kLlamaCppChat"],
        "protocol_generic_fuzz": ["kTgi", "kTgiStream", "kLlamaCpp"],
    }
    everything = {**sse, **proto}
    for target, names in by_api.items():
        for name in names:
            if name in everything:
                events = payloads(everything[name])
                write(target, name, b"\n".join(events))
                for j, e in enumerate(events):
                    write(target, f"{name}-{j}", e)
    bodies = {
        "tgi-body": b'{"generated_text":" The sky","details":{"finish_reason":"length","generated_tokens":2,"seed":null,"input_length":4}}',
        "tgi-error": b'{"error":"Model is overloaded","error_type":"overloaded"}',
        "openai-body": b'{"id":"cmpl","object":"text_completion","choices":[{"index":0,"text":" San Francisco","finish_reason":"length"}],"usage":{"prompt_tokens":5,"completion_tokens":2,"total_tokens":7}}',
        "chat-body": b'{"id":"c","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"Hi","reasoning_content":"think"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":1}}',
        "openai-error": b'{"error":{"message":"slow down","type":"rate_limit","code":429}}',
        "done": b"[DONE]",
        # Events that differ only in their text (protocol::EventMemo hits), then ones that do not.
        "memo-stream": b"\n".join(
            b'{"id":"x","choices":[{"index":0,"text":%s,"delta":{"content":%s},"finish_reason":null}]}' % (t, t)
            for t in [b'" a"', b'" b"', b'"\\u00e9"', b'"\xc3\xa9"', b'""', b'"\\""', b'" c"'])
        + b'\n{"id":"x","choices":[{"index":0,"text":"d","finish_reason":"stop"}]}',
    }
    for target in by_api:
        for name, body in bodies.items():
            write(target, name, body)

    # HTTP responses: control bytes [n_reads-1][read sizes..][body buffer][body limit], then bytes.
    sse_body = everything.get("kVllmChat", b"data: x\n\n")
    chunked = b"".join(b"%x\r\n%s\r\n" % (len(e) + 8, b"data: " + e + b"\n\n") for e in payloads(sse_body)) + b"0\r\n\r\n"
    responses = {
        "chunked-sse": b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked,
        "sized-json": b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 27\r\n\r\n" + b'{"generated_text":"hello!"}',
        "close-delimited": b"HTTP/1.0 200 OK\r\nContent-Type: text/event-stream\r\n\r\n" + sse_body,
        "error-503": b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 58\r\nConnection: close\r\n\r\n" + b'{"error":"Model is overloaded","error_type":"overloaded"}\n',
        "no-content": b"HTTP/1.1 204 No Content\r\n\r\n",
        "chunk-ext-trailer": b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;x=y\r\nhello\r\n0\r\nX-Trailer: 1\r\n\r\n",
        "cut-mid-chunk": b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n40\r\ndata: {\"tok",
    }
    controls = [bytes([0, 0, 1, 1]), bytes([2, 1, 7, 200, 6, 1]), bytes([1, 13, 0, 4, 1])]
    for name, resp in responses.items():
        for k, c in enumerate(controls):
            write("http_response_fuzz", f"{name}-{k}", c + resp)

    write("request_jsonl_fuzz", "ok", b'{"id":3,"class":"default","warmup":false,"ok":true,"status":200,"error_class":"ok","error":"","t_sched_s":0.1,"t_send_s":0.1002,"t_end_s":0.35,"ttft_ms":40.5,"ttft_content_ms":40.5,"tpot_ms":20.1,"e2e_ms":241.6,"scheduled_e2e_ms":241.8,"dispatch_delay_ms":0.2,"input_tokens":32,"output_tokens":11,"output_tokens_source":"usage","output_tokens_alt":12,"output_tokens_alt_source":"estimate","events":11,"itl_ms":[20,20.5,19.5,20,21,19,20,20,20.1,20.2]}\n')
    write("request_jsonl_fuzz", "failed", b'{"id":7,"class":"long","warmup":true,"ok":false,"status":503,"error_class":"overloaded","error":"Model is overloaded \\u00e9","t_sched_s":1.5,"t_send_s":1.5,"t_end_s":1.51,"ttft_ms":null,"ttft_content_ms":null,"tpot_ms":null,"e2e_ms":null,"scheduled_e2e_ms":null,"dispatch_delay_ms":0,"input_tokens":256,"output_tokens":0,"output_tokens_source":"none","output_tokens_alt":null,"output_tokens_alt_source":null,"events":0,"itl_ms":[]}')
    write("request_jsonl_fuzz", "unsent", b'{"id":9,"ok":false,"error_class":"cancelled","t_sched_s":2,"t_send_s":null,"scheduled_e2e_ms":5}')
    write("request_jsonl_fuzz", "cut", b'{"id":10,"class":"default","warmup":false,"ok":true,"status":200,"error_class":"ok","error":"","t_sched_s":0.1,"t_se')

    for i, u in enumerate(["http://127.0.0.1:8000", "https://api.example.com/v1/", "http://[::1]:8080/prefix",
                           "https://host", "http://h:65535//a//", "http://user@h", "ftp://x", "http://[::1"]):
        write("url_fuzz", str(i), u.encode())
    for i, u in enumerate(["30s", "200ms", "1.5m", "1h", "10", "2k", "1.5M", "3G", "4/s", "2.5", "500us", "7ns",
                           "1e3", "-1", " 5", "inf", "0x10", "1.0005k", ""]):
        write("units_fuzz", str(i), u.encode())
    for i, g in enumerate(["ttft:200", "tpot:50", "e2e:1000\nttft:1", "e2el:3", "ttft:200\nttft:100", "ttfx:3",
                           "tpot:-1", "e2e:1e999", "ttft:", ":", "tpot:0x1p3"]):
        write("goodput_fuzz", str(i), g.encode())

    yaml_seeds()


def yaml_seeds():
    """providers.yaml and plan seeds: the shipped examples/*.yaml, then small edge cases."""
    examples = {os.path.basename(p)[:-5]: open(p, "rb").read()
                for p in sorted(glob.glob(os.path.join(ROOT, "examples", "*.yaml")))}
    providers = [
        examples["providers"],
        b"- id: a\n  base_url: http://127.0.0.1:1\n",  # acs-bench's bare list
        b"providers:\n  - {id: t, sim: tgi, sim_replicas: 64}\n  - {id: p, sim: pytorch}\n",
        b"providers:\n  - id: a\n    base_url: http://[::1]:8000/v1\n    api: openai\n"
        b"    endpoints: http://[::1]:8001/v1\n    load_balancer: least-inflight\n"
        b"    headers: {X-A: '1', X-B: \"two words\"}\n    api_key_env: PATH\n",
        b"providers:\n  - id: l\n    base_url: https://h/v1\n    launch: {command: \"exec x\", "
        b"ready_url: 'http://h:1/health', ready_timeout: 500ms, stop_grace: 0}\n",
        b"providers:\n  - &p {id: a, base_url: http://x}\n  - *p\n",  # alias: the same id twice
        b"providers:\n  - id: a\n    sim: tgi\n    sim_replicas: 2147483648\n",
        b"providers:\n  - id: a\n    base_url: http://x\n    headers: {\"X\\r\\nY\": v}\n",
        b"providers:\n  - id: a\n    base_url: http://x\n    headers: {[k]: v, X: [1]}\n",
        b"providers:\n  - {id: \"a/b\", base_url: http://x}\n",
        b"providers:\n  - {name: only-name, base_url: http://x, id: ''}\n",
        b"providers: {id: a}\n",
        b"providers:\n",
        b"providers: []\n",
        b"providers:\n  - id: a\n    base_url: [http://x\n",
        b"? [a, b]\n: c\n",
        b"plain scalar",
        b"",
        b"%YAML 1.2\n---\n- {id: !!str 1, base_url: !!binary aGk=}\n...\n",
        b"providers:\n  - id: a\n    base_url: \"http://x\\0y\"\n",
        b"[" * 64 + b"]" * 64,
    ]
    for i, text in enumerate(providers):
        write("providers_yaml_fuzz", str(i), text)

    head = b"providers:\n  - {id: t, sim: tgi}\n"
    inline_providers = examples["providers"].replace(b"api_key_env: OPENAI_API_KEY", b"api_key: k")
    plans = [
        examples["reference-study"],
        examples["reference-study-real"],
        examples["acs-stress-test"],  # providers: providers.yaml (no such file beside the fuzz plan)
        examples["acs-stress-test"].replace(b"providers: providers.yaml\n", inline_providers),
        head + b"name: n\nscenarios: chat\ndefaults: {api: openai, stream: false, ignore_eos: yes, "
        b"warmup: 0, goodput: ttft:5, cooldown: 250ms, sim_time_scale: 0.001, workers: 2, seed: 7, "
        b"timeout: 1m, max_error_rate: 1}\nstages:\n  - {kind: baseline}\n",
        head + b"stages:\n  - {name: knee, kind: sweep, concurrency: 2, until_saturation: true, "
        b"saturation: {min_gain: 0.1, latency_climb: 0.2, max_error_rate: 0.5, factor: 1.5, "
        b"max_concurrency: 1k}, num_requests: 5}\n",
        head + b"stages:\n  - {kind: sweep, concurrency: [1, 2, 4], until_saturation: true, "
        b"requests_per_level: 3}\n",
        head + b"stages:\n  - {kind: sweep, rate_search: {low: 0.5, high: 8, steps: 3}, "
        b"duration: 10s}\n",
        head + b"stages:\n  - {kind: sweep, request_rate: [0.5, 1/s, 2.5], max_concurrency: 64, "
        b"num_requests: 20}\n",
        head + b"stages:\n  - {name: r, kind: ramp, from: 8, to: 64, steps: 4, step_duration: 30s}\n",
        head + b"stages:\n  - {name: r, kind: ramp, from: 1, to: 9000000000000000000, steps: 3, "
        b"step_duration: 1s}\n",
        head + b"stages:\n  - {name: r, kind: ramp, from: 1, to: 3, steps: 9G, step_duration: 1s}\n",
        head + b"stages:\n  - {name: s, kind: soak, request_rate: 4, duration: 1h, warmup: 2, "
        b"input_length: 1, output_length: 2k, goodput: [tpot:50, e2e:1000]}\n",
        head + b"stages:\n  - {kind: sweep, rate_search: {low: 1, high: 2, steps: 4294967296}, "
        b"num_requests: 1}\n",
        head + b"defaults: {workers: 2147483648}\nstages:\n  - {kind: baseline}\n",
        head + b"stages:\n  - {kind: baseline, concurrency: [1, 2]}\n",
        head + b"stages:\n  - {kind: ramp, from: 8, to: 4, step_duration: 1s}\n",
        head + b"stages:\n  - {kind: soak, concurrency: 8, duration: 1h, until_saturation: true}\n",
        head + b"stages: [\n",
        head + b"stages:\n  - {kind: baseline}\n  - {kind: baseline}\n",
        head + b"defaults: 3\nstages: {kind: baseline}\n",
        head + b"stages:\n  - kind: baseline\n    saturation: 1\n",
        b"providers: nowhere.yaml\nstages:\n  - {kind: baseline}\n",
        b"providers: ../../../../etc/hostname\nstages:\n  - {kind: baseline}\n",
        b"providers:\n  - {id: a}\nstages:\n  - {kind: baseline}\n",
        b"- just a list\n",
        b"",
    ]
    for i, text in enumerate(plans):
        write("plan_yaml_fuzz", str(i), text)


if __name__ == "__main__":
    main()
