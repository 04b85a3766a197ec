"""gpt: a small GPT-style decoder generating tokens autoregressively (Python twin of gpt.cpp).

Same model, flags and output lines as the C++ workload (see gpt.cpp and README.md here): 6 layers,
d=384, 6 heads, vocabulary 8192, random weights, greedy decoding; one JSON line per generated
token, then the summary line {"latency_ms", "p99_ms", "tokens_per_s", "mem_mb", ...}.

    /usr/bin/python3 examples/aigc/gpt.py                        # poor default: cat, naive, 1 thread
    /usr/bin/python3 examples/aigc/gpt.py --kv_cache prealloc --attention fused --threads 2
    cann-profiler trace --output gpt_py.pb -- /usr/bin/python3 examples/aigc/gpt.py

Steps are marked with the cann-profiler Python SDK (`cprof`, on PYTHONPATH under `trace`), else
with torch.profiler.record_function("ProfilerStep#N").
"""
import argparse
import contextlib
import json
import math
import resource
import time

import torch

try:
    import cprof
except ImportError:
    cprof = None

LAYERS, DIM, HEADS, VOCAB = 6, 384, 6, 8192
HEAD_DIM = DIM // HEADS


def step_marker(i):
    """Marks step i: the SDK's step (until the next one), or a record_function scope."""
    if cprof is not None:
        cprof.step(i)
        return contextlib.nullcontext()
    return torch.profiler.record_function("ProfilerStep#%d" % i)


def span(name):
    return cprof.span(name) if cprof is not None else contextlib.nullcontext()


class Gpt:
    def __init__(self, a, max_len):
        self.a = a
        self.max_len = max_len
        self.tok_emb = torch.randn(VOCAB, DIM) * 0.02
        self.pos_emb = torch.randn(max_len, DIM) * 0.01
        self.layers = []
        out_scale = 0.02 / math.sqrt(2.0 * LAYERS)
        for _ in range(LAYERS):
            L = {
                "ln1_w": torch.ones(DIM), "ln1_b": torch.zeros(DIM),
                "ln2_w": torch.ones(DIM), "ln2_b": torch.zeros(DIM),
                "w_qkv": torch.randn(3 * DIM, DIM) * 0.02, "b_qkv": torch.zeros(3 * DIM),
                "w_o": torch.randn(DIM, DIM) * out_scale, "b_o": torch.zeros(DIM),
                "w_fc": torch.randn(4 * DIM, DIM) * 0.02, "b_fc": torch.zeros(4 * DIM),
                "w_out": torch.randn(DIM, 4 * DIM) * out_scale, "b_out": torch.zeros(DIM),
            }
            L["w_q"], L["w_k"], L["w_v"] = [t.contiguous() for t in L["w_qkv"].chunk(3, 0)]
            L["b_q"], L["b_k"], L["b_v"] = [t.contiguous() for t in L["b_qkv"].chunk(3, 0)]
            self.layers.append(L)
        self.lnf_w, self.lnf_b = torch.ones(DIM), torch.zeros(DIM)
        self.causal = torch.ones(max_len, max_len, dtype=torch.bool).triu(1)  # True = masked
        self.caches = []

    def reset_cache(self, batch):
        self.caches = []
        for _ in range(LAYERS):
            c = {"len": 0, "k": None, "v": None}
            if self.a.kv_cache == "prealloc":
                c["k"] = torch.empty(batch, HEADS, self.max_len, HEAD_DIM)
                c["v"] = torch.empty(batch, HEADS, self.max_len, HEAD_DIM)
            self.caches.append(c)

    def forward(self, tokens, pos):
        T = tokens.shape[1]
        x = torch.nn.functional.embedding(tokens, self.tok_emb) + self.pos_emb[pos:pos + T]
        for L, c in zip(self.layers, self.caches):
            h = torch.nn.functional.layer_norm(x, (DIM,), L["ln1_w"], L["ln1_b"])
            x = x + self.attention(L, c, h)
            h = torch.nn.functional.layer_norm(x, (DIM,), L["ln2_w"], L["ln2_b"])
            h = torch.nn.functional.gelu(torch.nn.functional.linear(h, L["w_fc"], L["b_fc"]))
            x = x + torch.nn.functional.linear(h, L["w_out"], L["b_out"])
        x = torch.nn.functional.layer_norm(x[:, T - 1], (DIM,), self.lnf_w, self.lnf_b)
        return torch.nn.functional.linear(x, self.tok_emb)  # tied LM head

    def update_cache(self, c, k, v):
        T = k.shape[2]
        if self.a.kv_cache == "none":
            return k, v
        if self.a.kv_cache == "cat":
            if c["len"] == 0:
                c["k"], c["v"] = k.contiguous(), v.contiguous()
            else:
                c["k"] = torch.cat([c["k"], k], 2)
                c["v"] = torch.cat([c["v"], v], 2)
            c["len"] += T
            return c["k"], c["v"]
        n = c["len"]
        c["k"][:, :, n:n + T].copy_(k)
        c["v"][:, :, n:n + T].copy_(v)
        c["len"] = n + T
        return c["k"][:, :, :n + T], c["v"][:, :, :n + T]

    def attention(self, L, c, h):
        B, T, _ = h.shape
        lin = torch.nn.functional.linear
        if self.a.attention == "fused":
            qkv = lin(h, L["w_qkv"], L["b_qkv"]).view(B, T, 3, HEADS, HEAD_DIM).permute(2, 0, 3, 1, 4)
            q, k, v = qkv[0], qkv[1], qkv[2]
        else:
            heads = lambda t: t.view(B, T, HEADS, HEAD_DIM).transpose(1, 2)
            q = heads(lin(h, L["w_q"], L["b_q"]))
            k = heads(lin(h, L["w_k"], L["b_k"]))
            v = heads(lin(h, L["w_v"], L["b_v"]))
        K, V = self.update_cache(c, k, v)
        S = K.shape[2]
        mask = self.causal[S - T:S, :S] if T > 1 else None
        if self.a.attention == "fused":
            att = torch.matmul(q, K.transpose(-2, -1)).mul_(1.0 / math.sqrt(HEAD_DIM))
            if mask is not None:
                att.masked_fill_(mask, float("-inf"))
            out = torch.matmul(torch.softmax(att, -1), V)
        else:
            outs = []
            for hd in range(HEADS):
                qh, kh, vh = q[:, hd], K[:, hd], V[:, hd]
                att = torch.matmul(qh, kh.transpose(-2, -1))
                att = att / math.sqrt(HEAD_DIM)
                if mask is not None:
                    att = att.masked_fill(mask, float("-inf"))
                att = torch.softmax(att, -1)
                outs.append(torch.matmul(att, vh))
            out = torch.stack(outs, 1)
        out = out.transpose(1, 2).reshape(B, T, DIM)
        return lin(out, L["w_o"], L["b_o"])


def percentile(v, p):
    v = sorted(v)
    idx = p / 100.0 * (len(v) - 1)
    lo = int(idx)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (idx - lo)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--kv_cache", "--kv-cache", choices=["prealloc", "cat", "none"], default="cat")
    p.add_argument("--attention", choices=["naive", "fused"], default="naive")
    p.add_argument("--threads", "--num_threads", dest="threads", type=int, default=1)
    p.add_argument("--batch", type=int, default=4)
    p.add_argument("--max_tokens", "--max-tokens", type=int, default=64)
    p.add_argument("--prompt_len", "--prompt-len", type=int, default=32)
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args()

    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    torch.set_grad_enabled(False)
    model = Gpt(a, a.prompt_len + a.max_tokens)
    model.reset_cache(a.batch)  # warm-up, not measured
    model.forward(torch.randint(VOCAB, (a.batch, 4)), 0)

    prompt = torch.randint(VOCAB, (a.batch, a.prompt_len))
    model.reset_cache(a.batch)
    t0 = time.perf_counter()
    with span("prefill"):
        logits = model.forward(prompt, 0)
    prefill_ms = (time.perf_counter() - t0) * 1e3
    seq = prompt
    step_ms = []
    decode_start = time.perf_counter()
    for s in range(a.max_tokens):
        with step_marker(s):
            t = time.perf_counter()
            with span("decode_token"):
                nxt = logits.argmax(-1, keepdim=True)  # greedy
                if s + 1 < a.max_tokens:
                    if a.kv_cache == "none":
                        seq = torch.cat([seq, nxt], 1)
                        logits = model.forward(seq, 0)
                    else:
                        logits = model.forward(nxt, a.prompt_len + s)
                else:
                    seq = torch.cat([seq, nxt], 1)  # the last token needs no forward pass
            ms = (time.perf_counter() - t) * 1e3
        step_ms.append(ms)
        print(json.dumps({"step": s, "ms": round(ms, 3), "token": int(nxt[0, 0])}), flush=True)
    if cprof is not None:
        cprof.step(a.max_tokens)  # ends the last step
    decode_s = time.perf_counter() - decode_start
    print(json.dumps({
        "latency_ms": round(sum(step_ms) / len(step_ms), 4),
        "p99_ms": round(percentile(step_ms, 99), 4),
        "tokens_per_s": round(a.batch * a.max_tokens / decode_s, 2),
        "mem_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0, 1),
        "prefill_ms": round(prefill_ms, 3), "steps": a.max_tokens, "batch": a.batch,
        "threads": a.threads, "kv_cache": a.kv_cache, "attention": a.attention}), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
