"""gpt: a small GPT-style decoder generating tokens autoregressively (Python twin of gpt.cpp).

Same model, flags and output lines as the C++ workload (see gpt.cpp and README.md here): 6 layers,
d=384, 6 heads, vocabulary 8192, random weights, greedy decoding; one JSON line per generated
token, then the summary line {"latency_ms", "p99_ms", "tokens_per_s", "mem_mb", ...}.

    /usr/bin/python3 examples/aigc/gpt.py     # poor default: blas, cat, naive, 1 thread
    /usr/bin/python3 examples/aigc/gpt.py --linear onednn --kv_cache prealloc --attention fused --threads 2
    cann-profiler trace --output gpt_py.pb -- /usr/bin/python3 examples/aigc/gpt.py

Steps are marked with the cann-profiler Python SDK (`cprof`, on PYTHONPATH under `trace`), else
with torch.profiler.record_function("ProfilerStep#N").
"""
import argparse
import json
import math
import time

import torch

from workload_util import peak_rss_mb, percentile, span, step_marker

LAYERS, DIM, HEADS, VOCAB = 6, 384, 6, 8192
HEAD_DIM = DIM // HEADS


class Linear:
    """A linear layer on either backend: F.linear runs the BLAS libtorch links (Debian's: the
    reference BLAS), oneDNN's inner product the JIT kernels the convolutions use."""

    def __init__(self, w, b, onednn):
        self.w, self.b, self.onednn = w, b, onednn
        if onednn:
            self.w_mkl = w.to_mkldnn()
            self.b_mkl = b.to_mkldnn() if b is not None else None

    def __call__(self, x):
        if not self.onednn:
            return torch.nn.functional.linear(x, self.w, self.b)
        x2 = x.reshape(-1, x.shape[-1]).to_mkldnn()
        y = torch._C._nn.mkldnn_linear(x2, self.w_mkl, self.b_mkl).to_dense()
        return y.view(*x.shape[:-1], self.w.shape[0])


class Gpt:
    def __init__(self, a, max_len):
        self.a = a
        self.max_len = max_len
        onednn = a.linear == "onednn"
        self.tok_emb = torch.randn(VOCAB, DIM) * 0.02
        self.lm_head = Linear(self.tok_emb, None, onednn)  # tied to the embedding
        self.pos_emb = torch.randn(max_len, DIM) * 0.01
        self.layers = []
        out_scale = 0.02 / math.sqrt(2.0 * LAYERS)
        for _ in range(LAYERS):
            w_qkv, b_qkv = torch.randn(3 * DIM, DIM) * 0.02, torch.zeros(3 * DIM)
            L = {
                "ln1_w": torch.ones(DIM), "ln1_b": torch.zeros(DIM),
                "ln2_w": torch.ones(DIM), "ln2_b": torch.zeros(DIM),
                "qkv": Linear(w_qkv, b_qkv, onednn),
                "o": Linear(torch.randn(DIM, DIM) * out_scale, torch.zeros(DIM), onednn),
                "fc": Linear(torch.randn(4 * DIM, DIM) * 0.02, torch.zeros(4 * DIM), onednn),
                "out": Linear(torch.randn(DIM, 4 * DIM) * out_scale, torch.zeros(DIM), onednn),
            }
            # The same weights as one small projection per head and per q/k/v (naive path).
            for i, name in enumerate("qkv"):
                L[name + "_heads"] = [
                    Linear(w_qkv[i * DIM + h * HEAD_DIM:i * DIM + (h + 1) * HEAD_DIM].contiguous(),
                           b_qkv[i * DIM + h * HEAD_DIM:i * DIM + (h + 1) * HEAD_DIM].contiguous(), onednn)
                    for h in range(HEADS)]
            self.layers.append(L)
        self.lnf_w, self.lnf_b = torch.ones(DIM), torch.zeros(DIM)
        self.causal = torch.ones(max_len, max_len, dtype=torch.bool).triu(1)  # True = masked
        self.caches = []

    def reset_cache(self):
        per_layer = 1 if self.a.attention == "fused" else HEADS
        self.caches = [[{"len": 0, "k": None, "v": None} for _ in range(per_layer)] for _ in range(LAYERS)]

    def forward(self, tokens, pos):
        T = tokens.shape[1]
        x = torch.nn.functional.embedding(tokens, self.tok_emb) + self.pos_emb[pos:pos + T]
        for L, c in zip(self.layers, self.caches):
            h = torch.nn.functional.layer_norm(x, (DIM,), L["ln1_w"], L["ln1_b"])
            if self.a.attention == "fused":
                x = x + self.fused_attention(L, c[0], h)
            else:
                x = x + self.naive_attention(L, c, h)
            h = torch.nn.functional.layer_norm(x, (DIM,), L["ln2_w"], L["ln2_b"])
            x = x + L["out"](torch.nn.functional.gelu(L["fc"](h)))
        x = torch.nn.functional.layer_norm(x[:, T - 1], (DIM,), self.lnf_w, self.lnf_b)
        return self.lm_head(x)

    def update_cache(self, c, k, v):
        """Appends k/v (sequence in dim -2) to the cache, if any; returns the keys and values."""
        d = k.dim() - 2
        T = k.shape[d]
        if self.a.kv_cache == "none":
            return k, v
        if self.a.kv_cache == "cat":
            if c["len"] == 0:
                c["k"], c["v"] = k.contiguous(), v.contiguous()
            else:
                c["k"] = torch.cat([c["k"], k], d)
                c["v"] = torch.cat([c["v"], v], d)
            c["len"] += T
            return c["k"], c["v"]
        if c["k"] is None:
            shape = list(k.shape)
            shape[d] = self.max_len
            c["k"], c["v"] = torch.empty(shape), torch.empty(shape)
        n = c["len"]
        c["k"].narrow(d, n, T).copy_(k)
        c["v"].narrow(d, n, T).copy_(v)
        c["len"] = n + T
        return c["k"].narrow(d, 0, n + T), c["v"].narrow(d, 0, n + T)

    def mask(self, T, S):
        return self.causal[S - T:S, :S] if T > 1 else None

    def fused_attention(self, L, c, h):
        """One qkv projection, one batched matmul + softmax + matmul over all heads."""
        B, T, _ = h.shape
        qkv = L["qkv"](h).view(B, T, 3, HEADS, HEAD_DIM).permute(2, 0, 3, 1, 4)
        K, V = self.update_cache(c, qkv[1], qkv[2])
        att = torch.matmul(qkv[0], K.transpose(-2, -1)).mul_(1.0 / math.sqrt(HEAD_DIM))
        mask = self.mask(T, K.shape[2])
        if mask is not None:
            att.masked_fill_(mask, float("-inf"))
        out = torch.matmul(torch.softmax(att, -1), V)
        return L["o"](out.transpose(1, 2).reshape(B, T, DIM))

    def naive_attention(self, L, caches, h):
        """One module per head with its own q/k/v projections and cache, outputs concatenated."""
        T = h.shape[1]
        outs = []
        for hd in range(HEADS):
            q = L["q_heads"][hd](h)
            K, V = self.update_cache(caches[hd], L["k_heads"][hd](h), L["v_heads"][hd](h))
            att = torch.matmul(q, K.transpose(-2, -1))
            att = att / math.sqrt(HEAD_DIM)
            mask = self.mask(T, K.shape[1])
            if mask is not None:
                att = att.masked_fill(mask, float("-inf"))
            att = torch.softmax(att, -1)
            outs.append(torch.matmul(att, V))
        return L["o"](torch.cat(outs, -1))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--kv_cache", "--kv-cache", choices=["prealloc", "cat", "none"], default="cat")
    p.add_argument("--attention", choices=["naive", "fused"], default="naive")
    p.add_argument("--linear", choices=["blas", "onednn"], default="blas")
    p.add_argument("--threads", "--num_threads", dest="threads", type=int, default=1)
    p.add_argument("--batch", type=int, default=4)
    p.add_argument("--max_tokens", "--max-tokens", type=int, default=64)
    p.add_argument("--prompt_len", "--prompt-len", type=int, default=16)
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args()

    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    torch.set_grad_enabled(False)
    model = Gpt(a, a.prompt_len + a.max_tokens)
    model.reset_cache()  # warm-up, not measured
    model.forward(torch.randint(VOCAB, (a.batch, 4)), 0)

    prompt = torch.randint(VOCAB, (a.batch, a.prompt_len))
    model.reset_cache()
    t0 = time.perf_counter()
    with span("prefill"):
        logits = model.forward(prompt, 0)
    prefill_ms = (time.perf_counter() - t0) * 1e3
    seq = prompt
    step_ms = []
    cpu_start = time.process_time()
    decode_start = time.perf_counter()
    for s in range(a.max_tokens):
        with step_marker(s):
            t = time.perf_counter()
            with span("decode_token"):
                nxt = logits.argmax(-1, keepdim=True)  # greedy
                if a.kv_cache == "none":
                    seq = torch.cat([seq, nxt], 1)
                    logits = model.forward(seq, 0)  # the whole sequence again
                else:
                    logits = model.forward(nxt, a.prompt_len + s)
            ms = (time.perf_counter() - t) * 1e3
        step_ms.append(ms)
        print(json.dumps({"step": s, "ms": round(ms, 3), "token": int(nxt[0, 0])}), flush=True)
    decode_s = time.perf_counter() - decode_start
    print(json.dumps({
        "latency_ms": round(sum(step_ms) / len(step_ms), 4),
        "p99_ms": round(percentile(step_ms, 99), 4),
        "cpu_ms": round((time.process_time() - cpu_start) * 1e3 / len(step_ms), 4),
        "tokens_per_s": round(a.batch * a.max_tokens / decode_s, 2),
        "mem_mb": peak_rss_mb(),
        "prefill_ms": round(prefill_ms, 3), "steps": a.max_tokens, "batch": a.batch,
        "threads": a.threads, "kv_cache": a.kv_cache, "attention": a.attention,
        "linear": a.linear}), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
