"""A tiny GPT-style decoder-only language model, its tokenizer and its generation loop.

Everything is built in code at start-up: the vocabulary (special tokens, 256 byte tokens and
a few hundred English words in four spellings), and the weights from a fixed seed, so the
model needs no download and gives the same output on every machine for the same request.
The weights are random: the text is fluent-looking nonsense, but the computation is the real
one (embedding, pre-norm transformer blocks with causal self-attention and an MLP, tied output
head), with a KV cache and batched decoding, so its serving behaviour (prefill cost growing
with the prompt, one forward step per output token, batching amortising per-step overhead) is
that of a real model, only smaller.
"""
from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field
from typing import Iterator, List, Optional, Sequence, Tuple

# One BLAS thread unless the importer chose (the servers set it from --threads before importing).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import torch  # noqa: E402
import torch.nn as nn
import torch.nn.functional as F

# ---------------------------------------------------------------------------------------------
# Tokenizer: word-level with a byte fallback.

_WORDS = """
the of and to in is was for on that with as by at from it his an be this which or are had
not but were her their one all have they has been its new more who would after first also
two when other time can there some into years only most over may such these many so than
like then them well could any same made where because way about year back under both through
three while before during between being those just own state still us against since great
people work school part place city world life day house water name number word side line
hand head home end story night point fact group thing question answer report system market
river teacher garden engine village letter window student mountain library kitchen doctor
bridge farmer journey machine forest harbor painter record station captain museum council
recipe network lantern orchard traveler merchant valley signal castle musician island
workshop neighbor schedule festival compass notebook sailor meadow server theory harvest
winter morning committee map voice road child friend storm bell ship field your every each
our another my quiet bright careful ancient small large curious busy gentle distant early
late simple strange patient heavy narrow wide golden silver hidden open modern rural clever
honest warm cold sudden steady green empty crowded proud humble familiar quick slow brave
calm found carried watched built described opened followed repaired measured painted answered
visited crossed studied collected welcomed explored remembered shared planned finished moved
guided noticed protected improved tested recorded changed cleaned reached showed praised
ignored joined replaced checked sold wrote heard slowly quickly quietly carefully suddenly
often rarely gladly silently patiently boldly eagerly gracefully happily finally soon near
behind across beyond under above beside along around without inside after before tell me
what how why please explain write short long summary about model token server request
response latency throughput batch queue memory compute value data text language sentence
paragraph code function test result error good bad best better small big little old young
high low right left next last few much very always never sometimes here now today tomorrow
yesterday again once twice up down out off do does did done make makes get got give gave
take took see saw come came go went know knew think thought say said find use used want need
feel try leave call keep let begin seem help show hear play run move live believe bring
happen write provide sit stand lose pay meet include continue set learn change lead understand
watch follow stop create speak read allow add spend grow open walk win offer remember love
consider appear buy wait serve die send expect build stay fall cut reach kill remain suggest
raise pass sell require decide return explain hope develop carry break receive agree support
hit produce eat cover catch draw choose cause point listen realize place close involve
increase pull light sun moon star sky sea wind rain snow tree flower stone fire air earth
book page paper table chair door room floor wall car train plane boat horse dog cat bird fish
man woman boy girl family mother father brother sister king queen music song art color red
blue white black yellow brown gray money price cost office company business service
information power problem service hour minute second week month game team war peace law
order plan rule power body face eye ear mouth arm leg heart mind idea reason area country
""".split()


@dataclass
class Tokenizer:
    """ids 0..2 are <pad>, </s> (end of sequence), <unk>; 3..258 the bytes 0..255; then
    words, each as "w", " w", "W" and " W". Encoding splits text into words and single
    characters (with an optional leading space) and maps each piece to one word token, or
    to its UTF-8 bytes when the piece is not in the vocabulary."""

    pieces: List[str] = field(default_factory=list)
    index: dict = field(default_factory=dict)
    PAD = 0
    EOS = 1
    UNK = 2
    BYTE0 = 3
    _split = re.compile(r" ?[A-Za-z]+| ?[^A-Za-z]", re.S)

    def __post_init__(self) -> None:
        self.pieces = ["<pad>", "</s>", "<unk>"] + [chr(b) if b < 128 else "" for b in range(256)]
        seen = set()
        for w in _WORDS:
            if w in seen:
                continue
            seen.add(w)
            for form in (w, " " + w, w.capitalize(), " " + w.capitalize()):
                if form not in self.index:
                    self.index[form] = len(self.pieces)
                    self.pieces.append(form)

    @property
    def vocab_size(self) -> int:
        return len(self.pieces)

    def encode(self, text: str) -> List[int]:
        ids: List[int] = []
        for piece in self._split.findall(text):
            tid = self.index.get(piece)
            if tid is not None:
                ids.append(tid)
            elif piece[0] == " " and piece[1:] in self.index:
                ids += [self.BYTE0 + 32, self.index[piece[1:]]]
            else:
                ids += [self.BYTE0 + b for b in piece.encode("utf-8")]
        return ids

    def decode(self, ids: Sequence[int]) -> str:
        out = bytearray()
        for t in ids:
            if self.BYTE0 <= t < self.BYTE0 + 256:
                out.append(t - self.BYTE0)
            elif t >= self.BYTE0 + 256:
                out += self.pieces[t].encode("utf-8")
        return out.decode("utf-8", errors="replace")

    def token_text(self, tid: int) -> str:
        """The text of one generated token (generation never picks a byte >= 0x80)."""
        if tid == self.EOS:
            return "</s>"
        if tid < self.BYTE0:
            return ""
        return self.pieces[tid]

    def output_mask(self, allow_eos: bool) -> torch.Tensor:
        """Additive logit mask: generation may pick word tokens, printable ASCII bytes and
        newline (so every generated token has non-empty, valid UTF-8 text), and </s> when
        `allow_eos`."""
        m = torch.full((self.vocab_size,), float("-inf"))
        m[self.BYTE0 + 256:] = 0.0
        m[self.BYTE0 + 32:self.BYTE0 + 127] = 0.0
        m[self.BYTE0 + 10] = 0.0
        if allow_eos:
            m[self.EOS] = 0.0
        return m


# ---------------------------------------------------------------------------------------------
# Model.

@dataclass
class ModelConfig:
    n_layer: int = 4
    n_head: int = 6
    d_model: int = 192
    max_positions: int = 1024
    seed: int = 1234


KV = List[Tuple[torch.Tensor, torch.Tensor]]  # per layer: key and value buffers [B, H, L, Dh]


class Block(nn.Module):
    def __init__(self, cfg: ModelConfig) -> None:
        super().__init__()
        d = cfg.d_model
        self.n_head = cfg.n_head
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.fc = nn.Linear(d, 4 * d)
        self.out = nn.Linear(4 * d, d)

    def forward(self, x: torch.Tensor, bias: torch.Tensor, cache: Tuple[torch.Tensor, torch.Tensor],
                start: int) -> torch.Tensor:
        """x [B, T, D] at positions start..start+T-1 of the sequences; bias [B, 1, T, S] additive
        attention mask over the S = start + T keys. The new keys and values are written into the
        preallocated cache buffers [B, H, L, Dh] (L >= S) in place, so a decoding step costs no
        copy of the cache (a cache grown by torch.cat copies it all at every step: about 40% of a
        step at batch 16 and 300-700 positions)."""
        b, t, d = x.shape
        h = self.n_head
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=2)
        q = q.view(b, t, h, d // h).transpose(1, 2)
        kbuf, vbuf = cache
        kbuf[:, :, start:start + t] = k.view(b, t, h, d // h).transpose(1, 2)
        vbuf[:, :, start:start + t] = v.view(b, t, h, d // h).transpose(1, 2)
        k, v = kbuf[:, :, :start + t], vbuf[:, :, :start + t]
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(d // h)) + bias
        y = F.softmax(att, dim=-1) @ v
        x = x + self.proj(y.transpose(1, 2).reshape(b, t, d))
        return x + self.out(F.gelu(self.fc(self.ln2(x))))


class TinyGPT(nn.Module):
    def __init__(self, vocab_size: int, cfg: ModelConfig) -> None:
        super().__init__()
        torch.manual_seed(cfg.seed)
        self.cfg = cfg
        self.tok = nn.Embedding(vocab_size, cfg.d_model)
        self.pos = nn.Embedding(cfg.max_positions, cfg.d_model)
        self.blocks = nn.ModuleList([Block(cfg) for _ in range(cfg.n_layer)])
        self.ln_f = nn.LayerNorm(cfg.d_model)
        for p in self.parameters():
            if p.dim() > 1:
                nn.init.normal_(p, std=0.08)
        self.eval()

    def new_cache(self, batch: int, length: int) -> KV:
        """Uninitialised key/value buffers for `batch` sequences of up to `length` positions."""
        c = self.cfg
        shape = (batch, c.n_head, length, c.d_model // c.n_head)
        return [(torch.empty(shape), torch.empty(shape)) for _ in range(c.n_layer)]

    def forward(self, ids: torch.Tensor, positions: torch.Tensor, bias: torch.Tensor, cache: KV,
                start: int) -> torch.Tensor:
        """Logits of the last position [B, V]; ids [B, T] fill cache slots start..start+T-1."""
        x = self.tok(ids) + self.pos(positions)
        for blk, kv in zip(self.blocks, cache):
            x = blk(x, bias, kv, start)
        x = self.ln_f(x[:, -1, :])
        return x @ self.tok.weight.t()

    def parameter_count(self) -> int:
        return sum(p.numel() for p in self.parameters())


# ---------------------------------------------------------------------------------------------
# Generation.

@dataclass
class GenParams:
    max_new_tokens: int = 20
    do_sample: bool = False
    temperature: float = 1.0
    top_k: int = 0
    seed: Optional[int] = None
    stop_at_eos: bool = False


@dataclass
class StepToken:
    row: int        # index of the sequence in the batch given to generate()
    index: int      # 1-based position of this token in the sequence's output
    token_id: int
    text: str
    logprob: float
    special: bool
    last: bool      # the sequence ends with this token
    finish_reason: str  # "length" | "eos_token" on the last token, "" before


class Generator:
    """Autoregressive generation over a batch of prompts with a KV cache: one prefill over the
    left-padded prompts, then one forward step per output token for the sequences still
    running (finished rows leave the batch and its cache)."""

    def __init__(self, tokenizer: Tokenizer, model: TinyGPT) -> None:
        self.tok = tokenizer
        self.model = model
        self.masks = {True: tokenizer.output_mask(True), False: tokenizer.output_mask(False)}

    @torch.inference_mode()
    def generate(self, prompts: Sequence[Sequence[int]], params: Sequence[GenParams]) -> Iterator[StepToken]:
        b = len(prompts)
        lens = [max(1, len(p)) for p in prompts]
        width = max(lens)
        ids = torch.full((b, width), self.tok.PAD, dtype=torch.long)
        valid = torch.zeros((b, width), dtype=torch.bool)
        for i, p in enumerate(prompts):
            p = list(p) or [self.tok.BYTE0 + 32]
            ids[i, width - len(p):] = torch.tensor(p, dtype=torch.long)
            valid[i, width - len(p):] = True
        positions = (valid.long().cumsum(1) - 1).clamp(min=0)
        causal = torch.ones((width, width), dtype=torch.bool).tril()
        allowed = causal[None, :, :] & valid[:, None, :]
        # A padded query row would have no allowed key: let it see itself (output ignored).
        allowed |= torch.eye(width, dtype=torch.bool)[None]
        bias = torch.zeros(allowed.shape).masked_fill(~allowed, float("-inf"))[:, None]
        # Cache slots: the padded prompt, then one per output token (the last token is never fed).
        length = width + max(max(1, p.max_new_tokens) for p in params) - 1
        cache = self.model.new_cache(b, length)
        logits = self.model(ids, positions, bias, cache, 0)
        filled = width  # cache slots written so far

        gens = [torch.Generator().manual_seed(p.seed) if p.seed is not None else None for p in params]
        next_pos = torch.tensor(lens, dtype=torch.long)
        key_valid = valid  # [B, S]: which cached keys are real
        rows = list(range(b))  # batch row -> original index
        produced = [0] * b
        while rows:
            chosen: List[int] = []
            keep: List[int] = []
            row_params = [params[o] for o in rows]
            masked = logits + torch.stack([self.masks[p.stop_at_eos] for p in row_params])
            logp = F.log_softmax(masked, dim=-1)
            greedy = torch.argmax(masked, dim=-1).tolist()
            for r, orig in enumerate(rows):
                p = row_params[r]
                tid = greedy[r]
                if p.do_sample:
                    scaled = masked[r] / max(p.temperature, 1e-3)
                    if p.top_k > 0:
                        kth = torch.topk(scaled, min(p.top_k, scaled.numel())).values[-1]
                        scaled = scaled.masked_fill(scaled < kth, float("-inf"))
                    tid = int(torch.multinomial(F.softmax(scaled, dim=-1), 1, generator=gens[orig]))
                produced[orig] += 1
                eos = tid == self.tok.EOS
                last = eos or produced[orig] >= p.max_new_tokens
                yield StepToken(orig, produced[orig], tid, self.tok.token_text(tid), float(logp[r, tid]),
                                eos, last, ("eos_token" if eos else "length") if last else "")
                chosen.append(tid)
                if not last:
                    keep.append(r)
            if not keep:
                return
            step_ids = torch.tensor([chosen[r] for r in keep], dtype=torch.long)[:, None]
            if len(keep) < len(rows):  # finished rows leave the batch (the only cache copy)
                idx = torch.tensor(keep, dtype=torch.long)
                cache = [(k[idx], v[idx]) for k, v in cache]
                key_valid = key_valid[idx]
                next_pos = next_pos[idx]
                rows = [rows[r] for r in keep]
            key_valid = torch.cat([key_valid, torch.ones((len(keep), 1), dtype=torch.bool)], dim=1)
            positions = next_pos[:, None]
            next_pos = next_pos + 1
            if int(positions.max()) >= self.model.cfg.max_positions:
                raise ValueError("sequence longer than the model's positions")
            step_bias = torch.zeros(key_valid.shape).masked_fill(~key_valid, float("-inf"))[:, None, None, :]
            logits = self.model(step_ids, positions, step_bias, cache, filled)
            filled += 1


def build(seed: int = 1234) -> Tuple[Tokenizer, TinyGPT, Generator]:
    tok = Tokenizer()
    model = TinyGPT(tok.vocab_size, ModelConfig(seed=seed))
    return tok, model, Generator(tok, model)


if __name__ == "__main__":  # quick figures: python3 tinygpt.py
    import time
    torch.set_num_threads(1)
    tok, model, gen = build()
    print(f"vocab {tok.vocab_size}, parameters {model.parameter_count()}")
    prompt = tok.encode("Tell me a short story about the quiet river and the old bridge.")
    for bs in (1, 4, 16):
        t0 = time.monotonic()
        n = sum(1 for _ in gen.generate([prompt] * bs, [GenParams(max_new_tokens=64)] * bs))
        dt = time.monotonic() - t0
        print(f"batch {bs}: {n} tokens in {dt:.3f} s = {n / dt:.0f} tokens/s")
    out = [s.token_id for s in gen.generate([prompt], [GenParams(max_new_tokens=24)])]
    print(repr(tok.decode(out)))
