#!/usr/bin/env python3
"""A replay cache shaped like Kernel Tuner's hotspot space, with synthetic times: a scale check.

Kernel Tuner's hotspot benchmark (Rodinia's thermal stencil with temporal tiling) tunes 8 parameters
whose product holds 22,200,000 combinations, of which its restrictions (threads per block, shared
memory per block and per multiprocessor, loop unrolling dividing the tiling factor) keep 349,853:
1.6%, against gemm's 22%. No such cache is among the fixtures, so this one takes hotspot's real
tune_params and restrictions and gives every valid configuration a time from a simple model
(redundant halo work against memory traffic saved by temporal tiling, occupancy, coalescing,
unrolling, and a 4% random roughness). The times are not measurements: the space checks that the
tuner and the benchmark cope with a large product where few configurations exist (time, memory,
proposals walked past), not how well a sampler tunes hotspot.

  bench/make_hotspot_shaped_space.py OUT_DIR      then: tune_replay_bench --dir OUT_DIR
"""
import gzip
import json
import os
import sys

import numpy as np

BLOCK_X = [1, 2, 4, 8, 16] + [32 * i for i in range(1, 33)]
BLOCK_Y = [2 ** i for i in range(6)]
ONE_TO_TEN = list(range(1, 11))
MAX_THREADS = 1024
SHARED_PER_BLOCK = 49152
SHARED_PER_SM = 102400


def valid_grid():
    """Every valid configuration as arrays (one per varying parameter)."""
    axes = [BLOCK_X, BLOCK_Y, ONE_TO_TEN, ONE_TO_TEN, ONE_TO_TEN, ONE_TO_TEN, [0, 1], [0, 1, 2, 3, 4]]
    grid = np.meshgrid(*[np.array(a) for a in axes], indexing="ij")
    bx, by, tx, ty, tf, unroll, sh, bps = [g.ravel() for g in grid]
    shared = (bx * tx + tf * 2) * (by * ty + tf * 2) * (2 + sh) * 4
    ok = ((bx * by >= 32) & (tf % unroll == 0) & (bx * by <= MAX_THREADS) & (shared <= SHARED_PER_BLOCK)
          & ((bps == 0) | (shared * bps <= SHARED_PER_SM)))
    return [a[ok] for a in (bx, by, tx, ty, tf, unroll, sh, bps, shared)]


def model_time(bx, by, tx, ty, tf, unroll, sh, bps, shared, rng):
    threads = bx * by
    outputs = bx * tx * by * ty
    halo = (bx * tx + 2 * tf) * (by * ty + 2 * tf) / outputs
    resident = np.minimum(np.minimum(2048 // threads, SHARED_PER_SM // shared), 32)
    resident = np.where(bps > 0, np.minimum(resident, np.maximum(bps, 1)), resident)
    efficiency = 0.25 + 0.75 * np.minimum(1, resident * threads / 2048 / 0.5)
    coalescing = np.where(bx < 32, (32 / bx) ** 0.6, 1.0)
    compute = tf * halo * (1 + 0.15 * (tx * ty > 16)) / efficiency
    memory = 3.0 * coalescing / np.sqrt(efficiency)
    unrolled = np.where(unroll == tf, 0.93, np.where(unroll > 1, 0.97, 1.0))
    power_in_shared = np.where(sh == 1, np.where(tf > 2, 0.96, 1.04), 1.0)
    rough = np.exp(rng.normal(0, 0.04, len(bx)))
    return (np.maximum(compute, memory) + 0.3 * np.minimum(compute, memory)) * unrolled * power_in_shared * rough


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    cols = valid_grid()
    times = model_time(*cols, np.random.default_rng(1))
    names = ["grid_width", "grid_height", "block_size_x", "block_size_y", "tile_size_x", "tile_size_y",
             "temporal_tiling_factor", "max_tfactor", "loop_unroll_factor_t", "sh_power", "blocks_per_sm"]
    params = {"grid_width": [4096], "grid_height": [4096], "block_size_x": BLOCK_X, "block_size_y": BLOCK_Y,
              "tile_size_x": ONE_TO_TEN, "tile_size_y": ONE_TO_TEN, "temporal_tiling_factor": ONE_TO_TEN,
              "max_tfactor": [10], "loop_unroll_factor_t": ONE_TO_TEN, "sh_power": [0, 1],
              "blocks_per_sm": [0, 1, 2, 3, 4]}
    path = os.path.join(out_dir, "hotspot-shaped_synthetic.json.gz")
    with gzip.open(path + ".tmp", "wt", compresslevel=3) as f:
        head = {"device_name": "synthetic", "kernel_name": "calculate_temp", "problem_size": [4096, 4096],
                "tune_params_keys": names, "tune_params": params, "objective": "time"}
        f.write(json.dumps(head)[:-1] + ', "cache": {')
        for i in range(len(times)):
            values = [4096, 4096] + [int(c[i]) for c in cols[:5]] + [10] + [int(c[i]) for c in cols[5:8]]
            record = dict(zip(names, values))
            t = float(times[i])
            record["time"] = t
            record["times"] = [round(t * (1 + 0.01 * k), 5) for k in range(-3, 4)]
            f.write(("," if i else "") + json.dumps(",".join(map(str, values))) + ": " + json.dumps(record))
        f.write("}}")
    os.replace(path + ".tmp", path)
    print(f"{path}: {len(times)} configurations of 22200000", file=sys.stderr)


if __name__ == "__main__":
    main()
