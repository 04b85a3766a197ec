"""A script that runs its own torch.profiler (as users do) while `trace` observes it too. The
user's profiler must work unchanged: it exports its trace to argv[1]."""
import sys

import torch
from torch.profiler import ProfilerActivity, profile, record_function, schedule

x = torch.randn(16, 32)
w = torch.randn(32, 8, requires_grad=True)
(x @ w).sum().backward()  # before: ops on this thread get trace's allocator hook
with profile(activities=[ProfilerActivity.CPU], record_shapes=True, profile_memory=True,
             schedule=schedule(wait=0, warmup=1, active=2, repeat=1),
             on_trace_ready=lambda p: p.export_chrome_trace(sys.argv[1])) as prof:
    for step in range(4):
        with record_function("user_block"):
            y = torch.relu(x @ w).sum()
            y.backward()
        prof.step()
(x @ w).sum().backward()  # after
print("profiler ok")
