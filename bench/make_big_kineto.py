#!/usr/bin/env python3
"""Makes a large Kineto trace for the import benchmark by tiling a real fixture trace along the
time axis (stdlib only).

    python3 bench/make_big_kineto.py --source ../shared/fixtures/kineto/hta/trace_diff/control/control.json.gz \
        --target-mb 600 --out build/bench-data/big_kineto.json

Tile k shifts every ts by k * (span + 1 ms) and every correlation, External id and flow id by
k * (max id + 1), so launches, kernels and flows stay distinct and keep linking to their own
tile. Process/thread metadata (M events) is written once. The top-level keys of the source
(deviceProperties, distributedInfo, ...) are kept, so the result reads as a Kineto trace.
"""
import argparse
import gzip
import json
import os
import sys

ID_ARGS = ("External id", "external id", "correlation")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--source", required=True, help="Kineto trace (.json or .json.gz) with integer ts")
    ap.add_argument("--target-mb", type=float, default=600.0, help="stop after this many MB")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()

    opener = gzip.open if args.source.endswith(".gz") else open
    with opener(args.source, "rt", encoding="utf-8") as f:
        doc = json.load(f)
    events = doc["traceEvents"]
    timed = [e for e in events if e.get("ph") != "M" and isinstance(e.get("ts"), (int, float))]
    start = min(e["ts"] for e in timed)
    end = max(e["ts"] + e.get("dur", 0) for e in timed)
    shift_ts = int(end - start) + 1000
    max_id = 0
    for e in events:
        if isinstance(e.get("id"), int):
            max_id = max(max_id, e["id"])
        for k in ID_ARGS:
            v = e.get("args", {}).get(k)
            if isinstance(v, int):
                max_id = max(max_id, v)
    shift_id = max_id + 1

    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    target = int(args.target_mb * 1e6)
    tmp = args.out + ".tmp"
    with open(tmp, "w", encoding="utf-8") as out:
        out.write("{\n")
        for key, value in doc.items():
            if key != "traceEvents":
                out.write(f"  {json.dumps(key)}: {json.dumps(value)},\n")
        out.write('  "traceEvents": [\n')
        first = True
        written = out.tell()
        tile = 0
        while written < target:
            dt, di = tile * shift_ts, tile * shift_id
            parts = []
            for e in events:
                if e.get("ph") == "M" and tile > 0:
                    continue
                if dt or di:
                    e = dict(e)
                    if isinstance(e.get("ts"), (int, float)):
                        e["ts"] = e["ts"] + dt
                    if isinstance(e.get("id"), int):
                        e["id"] = e["id"] + di
                    a = e.get("args")
                    if a and any(k in a for k in ID_ARGS):
                        a = dict(a)
                        for k in ID_ARGS:
                            if isinstance(a.get(k), int):
                                a[k] += di
                        e["args"] = a
                parts.append(json.dumps(e))
            text = ",\n".join(parts)
            out.write(text if first else ",\n" + text)
            first = False
            written = out.tell()
            tile += 1
            print(f"tile {tile}: {written / 1e6:.0f} MB", file=sys.stderr)
        out.write("\n]}\n")
    os.replace(tmp, args.out)
    print(f"{args.out}: {os.path.getsize(args.out) / 1e6:.0f} MB, {tile} tiles of {len(events)} events")


if __name__ == "__main__":
    main()
