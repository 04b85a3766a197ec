"""unet: a small UNet denoiser run for N denoising steps (Python twin of unet.cpp).

Same model, flags and output lines as the C++ workload (see unet.cpp and README.md here): conv,
GroupNorm, SiLU, three resolution levels with skip connections, one self-attention block at the
lowest resolution, random weights; one JSON line per denoising step, then the summary line
{"latency_ms", "p99_ms", "images_per_s", "mem_mb", ...}.

    /usr/bin/python3 examples/aigc/unet.py                  # poor default: mixed, unfused, 1 thread
    /usr/bin/python3 examples/aigc/unet.py --memory_format channels_last --fused_conv 1 --threads 2
    cann-profiler trace --output unet_py.pb -- /usr/bin/python3 examples/aigc/unet.py

Steps are marked with the cann-profiler Python SDK (`cprof`, on PYTHONPATH under `trace`), else
with torch.profiler.record_function("ProfilerStep#N").
"""
import argparse
import ctypes
import json
import math
import time

import torch
import torch.nn.functional as F

from workload_util import peak_rss_mb, percentile, span, step_marker

LATENT_CHANNELS, GROUPS = 4, 8


class Layouts:
    """Where one block's tensors live; `mixed` alternates per block index."""

    def __init__(self, mode):
        self.mode, self.i = mode, 0

    def next(self):
        i, self.i = self.i, self.i + 1
        if self.mode == "channels_last":
            return torch.channels_last
        if self.mode == "contiguous":
            return torch.contiguous_format
        return torch.channels_last if i % 2 else torch.contiguous_format


class Conv:
    def __init__(self, cin, cout, k, stride, fused, fmt):
        self.w = (torch.randn(cout, cin, k, k) * math.sqrt(1.0 / (cin * k * k))).contiguous(memory_format=fmt)
        self.b = torch.randn(cout) * 0.01
        self.stride, self.padding, self.fused = stride, k // 2, fused

    def __call__(self, x, act):
        """conv + bias (+ SiLU when `act`)."""
        if self.fused:
            y = F.conv2d(x, self.w, self.b, self.stride, self.padding)
            return F.silu(y, inplace=True) if act else y
        y = F.conv2d(x, self.w, None, self.stride, self.padding)
        y = y + self.b.view(1, -1, 1, 1)
        return y * torch.sigmoid(y) if act else y  # SiLU spelled out, as older code does


class Norm:
    def __init__(self, c):
        self.w, self.b = torch.ones(c), torch.zeros(c)

    def __call__(self, x):
        return F.group_norm(x, GROUPS, self.w, self.b)


class ResBlock:
    """conv(+SiLU) -> + timestep projection -> GroupNorm -> conv(+SiLU) -> + skip."""

    def __init__(self, cin, cout, temb_dim, fused, layouts):
        self.fmt = layouts.next()
        self.conv1 = Conv(cin, cout, 3, 1, fused, self.fmt)
        self.conv2 = Conv(cout, cout, 3, 1, fused, self.fmt)
        self.norm = Norm(cout)
        self.temb_w = torch.randn(cout, temb_dim) * math.sqrt(1.0 / temb_dim)
        self.temb_b = torch.zeros(cout)
        self.skip = Conv(cin, cout, 1, 1, fused, self.fmt) if cin != cout else None

    def __call__(self, x, temb):
        x = x.contiguous(memory_format=self.fmt)
        h = self.conv1(x, True)
        h = h + F.linear(temb, self.temb_w, self.temb_b)[:, :, None, None]
        h = self.conv2(self.norm(h), True)
        return (self.skip(x, False) if self.skip is not None else x) + h


class AttnBlock:
    """Single-head self-attention over the H*W positions."""

    def __init__(self, c, fused, layouts):
        self.fmt = layouts.next()
        self.norm = Norm(c)
        self.qkv = Conv(c, 3 * c, 1, 1, fused, self.fmt)
        self.proj = Conv(c, c, 1, 1, fused, self.fmt)

    def __call__(self, x):
        x = x.contiguous(memory_format=self.fmt)
        B, C, H, W = x.shape
        t = self.qkv(self.norm(x), False).reshape(B, 3, C, H * W)
        q, k, v = t[:, 0], t[:, 1], t[:, 2]
        att = torch.softmax(torch.bmm(q.transpose(1, 2), k) * (1.0 / math.sqrt(C)), -1)
        out = torch.bmm(v, att.transpose(1, 2)).reshape(B, C, H, W).contiguous(memory_format=self.fmt)
        return x + self.proj(out, False)


class Resample:
    def __init__(self, c, up, fused, layouts):
        self.fmt = layouts.next()
        self.conv = Conv(c, c, 3, 1 if up else 2, fused, self.fmt)
        self.up = up

    def __call__(self, x):
        x = x.contiguous(memory_format=self.fmt)
        if self.up:
            x = F.interpolate(x, scale_factor=2, mode="nearest")
        return self.conv(x, False)


class UNet:
    def __init__(self, a):
        f = a.fused_conv != 0
        c = self.c = a.channels
        temb_dim = 4 * c
        layouts = Layouts(a.memory_format)
        self.in_fmt = layouts.next()
        self.in_conv = Conv(LATENT_CHANNELS, c, 3, 1, f, self.in_fmt)
        self.t1_w, self.t1_b = torch.randn(temb_dim, c) * math.sqrt(1.0 / c), torch.zeros(temb_dim)
        self.t2_w = torch.randn(temb_dim, temb_dim) * math.sqrt(1.0 / temb_dim)
        self.t2_b = torch.zeros(temb_dim)
        mult = [1, 2, 2]
        ch, skip_ch = c, [c]
        self.down, self.down_sample = [], []
        for i, m in enumerate(mult):
            self.down.append(ResBlock(ch, c * m, temb_dim, f, layouts))
            ch = c * m
            skip_ch.append(ch)
            if i + 1 < len(mult):
                self.down_sample.append(Resample(ch, False, f, layouts))
        self.mid1 = ResBlock(ch, ch, temb_dim, f, layouts)
        self.attn = AttnBlock(ch, f, layouts)
        self.mid2 = ResBlock(ch, ch, temb_dim, f, layouts)
        self.up, self.up_sample = [], []
        for i in reversed(range(len(mult))):
            skip = skip_ch.pop()
            self.up.append(ResBlock(ch + skip, c * mult[i], temb_dim, f, layouts))
            ch = c * mult[i]
            if i > 0:
                self.up_sample.append(Resample(ch, True, f, layouts))
        self.out_fmt = layouts.next()
        self.out_norm = Norm(ch)
        self.out_conv = Conv(ch, LATENT_CHANNELS, 3, 1, f, self.out_fmt)

    def __call__(self, x, t):
        """Predicted noise for latents x [B, 4, S, S] at timestep t."""
        B, c = x.shape[0], self.c
        freqs = torch.exp(torch.arange(c // 2, dtype=torch.float) * (-math.log(10000.0) / (c // 2)))
        args = freqs * t
        temb = torch.cat([torch.sin(args), torch.cos(args)]).unsqueeze(0).expand(B, c)
        temb = F.linear(F.silu(F.linear(temb, self.t1_w, self.t1_b)), self.t2_w, self.t2_b)
        temb = F.silu(temb)
        h = self.in_conv(x.contiguous(memory_format=self.in_fmt), False)
        skips = [h]
        for i, block in enumerate(self.down):
            with span("down_block"):
                h = block(h, temb)
            skips.append(h)
            if i < len(self.down_sample):
                h = self.down_sample[i](h)
        with span("mid_block"):
            h = self.mid2(self.attn(self.mid1(h, temb)), temb)
        for j, block in enumerate(self.up):
            with span("up_block"):
                h = block(torch.cat([h, skips.pop()], 1), temb)
                if j < len(self.up_sample):
                    h = self.up_sample[j](h)
        return self.out_conv(F.silu(self.out_norm(h.contiguous(memory_format=self.out_fmt))), False)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--memory_format", "--memory-format",
                   choices=["contiguous", "contiguous_format", "channels_last", "mixed"],
                   default="mixed")
    p.add_argument("--fused_conv", "--fused-conv", type=int, choices=[0, 1], default=0)
    p.add_argument("--threads", "--num_threads", dest="threads", type=int, default=1)
    p.add_argument("--batch", type=int, default=2)
    p.add_argument("--image_size", "--image-size", type=int, default=32)
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--channels", type=int, default=64)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--heap", choices=["os", "keep"], default="os")
    a = p.parse_args()
    if a.memory_format == "contiguous_format":  # torch's spelling
        a.memory_format = "contiguous"
    if a.channels % GROUPS or a.image_size % 4 or a.image_size < 8:
        p.error("--channels must be a multiple of %d, --image_size a multiple of 4 (>= 8)" % GROUPS)

    if a.heap == "keep":  # as MALLOC_MMAP_THRESHOLD_=33554432 MALLOC_TRIM_THRESHOLD_=1073741824 would
        libc = ctypes.CDLL("libc.so.6")
        libc.mallopt(-3, 32 << 20)  # M_MMAP_THRESHOLD
        libc.mallopt(-1, 1 << 30)   # M_TRIM_THRESHOLD
    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    torch.set_grad_enabled(False)
    unet = UNet(a)
    x = torch.randn(a.batch, LATENT_CHANNELS, a.image_size, a.image_size)
    unet(x, 999.0)  # warm-up (oneDNN primitive creation, allocator), not measured

    step_ms = []
    cpu_start = time.process_time()
    start = time.perf_counter()
    for s in range(a.steps):
        t = 999.0 * (1.0 - s / a.steps)
        with step_marker(s):
            t0 = time.perf_counter()
            with span("denoise"):
                eps = unet(x, t)
                x = x - eps * (1.0 / a.steps)  # a plain Euler update: the sampler is not the point
            ms = (time.perf_counter() - t0) * 1e3
        step_ms.append(ms)
        print(json.dumps({"step": s, "ms": round(ms, 3), "t": round(t, 1)}), flush=True)
    total_s = time.perf_counter() - start
    print(json.dumps({
        "latency_ms": round(sum(step_ms) / len(step_ms), 4),
        "p99_ms": round(percentile(step_ms, 99), 4),
        "cpu_ms": round((time.process_time() - cpu_start) * 1e3 / len(step_ms), 4),
        "images_per_s": round(a.batch / total_s, 3),
        "mem_mb": peak_rss_mb(),
        "x_norm": round(float(x.norm()), 4), "steps": a.steps, "batch": a.batch,
        "threads": a.threads, "memory_format": a.memory_format, "fused_conv": a.fused_conv}), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
