"""A PyTorch script that knows nothing of cann-profiler: a small model trained for a few steps
with a DataLoader. Its aten operators must show up in the trace with their shapes."""
import sys

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

steps = int(sys.argv[1]) if len(sys.argv) > 1 else 5
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
data = TensorDataset(torch.randn(32 * steps, 64), torch.randint(0, 10, (32 * steps,)))
for x, y in DataLoader(data, batch_size=32):
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
print("done")
