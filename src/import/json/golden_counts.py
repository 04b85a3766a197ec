#!/usr/bin/env python3
"""Derives the expected counts of json_golden_test.cc from the raw fixture JSON, independently of
the C++ importer (stdlib only; numbers parsed as Decimal, so no float rounding is involved).

    python3 src/import/json/golden_counts.py ../shared/fixtures

Rules, from the Trace Event Format and docs/formats/trace_formats.md:
  slices    X events with a dur, plus i/I/R instants except Kineto "[memory]" ones, plus B/E
            pairs and async b/e/n (none in the fixtures).
  memory    i events named "[memory]" that carry Bytes and Addr.
  counters  one value per numeric arg of each C event (acc_id labels a series, it is not one).
  tracks    GPU streams: distinct (pid, tid) of X events of the Kineto device categories;
            NPU streams / communication / analysis: distinct (pid, tid) rows of the torch_npu
            "Ascend Hardware" / "HCCL" / "Overlap Analysis" processes; threads: every other
            distinct (pid, tid) of slice, instant-scope-t, memory and flow events; counter tracks:
            distinct (pid, series name); devices: distinct device indexes of stream-like tracks.
  flows     s/t/f endpoints keyed by (cat, id), each bound to a slice of its row at its ts
            ('s', 't', 'f' with bp "e": the deepest slice with start <= ts <= end; 'f' without
            bp: the first slice starting at or after ts), then per key in (ts, phase) order:
            's' opens, 'f' links from the open 's' and leaves it open (fan-out), 't' links and
            moves the source. Only links whose both ends bound are flows.
"""
import bisect
import collections
import decimal
import gzip
import json
import os
import sys

D = decimal.Decimal
GPU_CATS = {"kernel", "gpu_memcpy", "gpu_memset", "gpu_user_annotation", "cuda_sync", "Kernel", "Memcpy", "Memset"}
LAUNCH_CATS = {"ac2g", "async_cpu_to_gpu", "async", "cpu_to_cuda", "cpu_to_npu"}
FLOW_KIND = {"ac2g": "launch", "async_cpu_to_gpu": "launch", "fwdbwd": "fwd_bwd", "async_npu": "host_to_device",
             "HostToDevice": "host_to_device", "async_task_queue": "queue"}
NPU_GROUPS = {"Ascend Hardware": "npu_stream", "HCCL": "communication", "Overlap Analysis": "analysis"}


def ns(v):
    """Microseconds (number or decimal string) to ns, rounding half away from zero."""
    d = D(v) if isinstance(v, str) else D(str(v)) if isinstance(v, float) else D(v)
    return int((d * 1000).quantize(D(1), rounding=decimal.ROUND_HALF_UP))


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        doc = json.load(f, parse_float=D)
    return doc["traceEvents"] if isinstance(doc, dict) else doc


def counts(path):
    events = load(path)
    pname = {e["pid"]: e["args"]["name"] for e in events if e.get("ph") == "M" and e.get("name") == "process_name"}
    npu = any(n in NPU_GROUPS or n == "CANN" for n in pname.values())

    def row(e):
        """(kind, key) of the track an event's slice lands on."""
        cat, pid, tid = e.get("cat", ""), e.get("pid", 0), e.get("tid", e.get("pid", 0))
        if cat in GPU_CATS:
            return ("gpu_stream", (pid, tid))
        if npu and pname.get(pid) in NPU_GROUPS:
            return (NPU_GROUPS[pname[pid]], (pid, tid))
        return ("thread", (pid, tid))

    slices = collections.defaultdict(list)  # row -> [(ts, dur, file order)]
    rows = set()
    c = collections.Counter()
    counter_tracks = set()
    for i, e in enumerate(events):
        ph = e.get("ph")
        if ph == "X" and "dur" in e:
            r = row(e)
            slices[r].append((ns(e["ts"]), ns(e["dur"]), i))
            rows.add(r)
        elif ph in ("i", "I", "R"):
            if e.get("name") == "[memory]":
                a = e.get("args", {})
                if "Bytes" in a and "Addr" in a:
                    c["memory"] += 1
                    rows.add(("thread", (e["pid"], e["tid"])))
                continue
            scope = e.get("s", "t")
            r = ("global", None) if scope == "g" else ("process", e["pid"]) if scope == "p" else row(e)
            slices[r].append((ns(e["ts"]), 0, i))
            rows.add(r)
        elif ph == "C":
            a = e.get("args", {})
            label = "".join(f" {k}={v}" for k, v in a.items() if k == "acc_id")
            for k, v in a.items():
                if k == "acc_id":
                    continue
                c["counters"] += 1
                series = e["name"] + label + ("" if k in (e["name"], "value") else " " + k)
                counter_tracks.add((e["pid"], series))
    c["slices"] = sum(len(v) for v in slices.values())

    # Flows: bind each endpoint, then chain per key.
    order = {}
    bound_rows = {}
    for r, lst in slices.items():
        lst.sort(key=lambda s: (s[0], -s[1], s[2]))
        # parent of each slice by the stack rule (pop ends <= ts and zero-length slices)
        parents, stack = [], []
        for j, (ts, dur, _) in enumerate(lst):
            while stack and (lst[stack[-1]][0] + max(0, lst[stack[-1]][1]) <= ts or lst[stack[-1]][1] == 0):
                stack.pop()
            parents.append(stack[-1] if stack else None)
            stack.append(j)
        bound_rows[r] = (lst, parents)

    starts_of = {r: [s[0] for s in lst] for r, (lst, _) in bound_rows.items()}

    def bind(r, ts, enclosing):
        if r not in bound_rows:
            return None
        lst, parents = bound_rows[r]
        starts = starts_of[r]
        if not enclosing:
            j = bisect.bisect_left(starts, ts)
            return (r, j) if j < len(lst) else None
        j = bisect.bisect_right(starts, ts) - 1
        while j is not None and j >= 0:
            if lst[j][0] + max(0, lst[j][1]) >= ts:
                return (r, j)
            j = parents[j]
        return None

    ends = collections.defaultdict(list)
    for i, e in enumerate(events):
        ph = e.get("ph")
        if ph not in ("s", "t", "f") or "id" not in e:
            continue
        cat = e.get("cat", "")
        pid, tid = e["pid"], e.get("tid", e["pid"])
        gpu = ("gpu_stream", (pid, tid))
        host = ("thread", (pid, tid))
        if npu and pname.get(pid) in NPU_GROUPS:
            host = (NPU_GROUPS[pname[pid]], (pid, tid))
        if gpu in rows and (cat in LAUNCH_CATS or host not in rows):
            r = gpu
        else:
            r = host
            rows.add(r)
        enclosing = ph != "f" or e.get("bp") == "e"
        ends[(cat, str(e["id"]) if isinstance(e["id"], str) else e["id"], isinstance(e["id"], str))].append(
            (ns(e["ts"]), "stf".index(ph), i, bind(r, ns(e["ts"]), enclosing), cat))
    flows = collections.Counter()
    for key, lst in ends.items():
        lst.sort(key=lambda x: (x[0], x[1], x[2]))
        src = None
        for ts, phase, _, slice_, cat in lst:
            if slice_ is None:
                continue
            if phase == 0:
                src = slice_
            elif src is not None:
                flows[FLOW_KIND.get(cat, "other")] += 1
                if phase == 1:
                    src = slice_
    tracks = collections.Counter(kind for kind, _ in rows if kind not in ("global",))
    if any(k == "global" for k, _ in rows):
        tracks["global"] += 1
    tracks["counter"] = len(counter_tracks)
    # Processes: parents of host threads, of counter tracks and of process-scoped instants; the
    # global-instant track is a process-kind root too.
    tracks["process"] = len({key[0] for kind, key in rows if kind == "thread"} | {p for p, _ in counter_tracks}
                            | {key for kind, key in rows if kind == "process"}) + tracks.pop("global", 0)
    devices = {key[0] for kind, key in rows if kind == "gpu_stream"}
    npu_devices = {key[0] & 31 for kind, key in rows if kind in ("npu_stream", "communication", "analysis")}
    tracks["device"] = len(devices) + len(npu_devices)
    return c, tracks, flows


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "../shared/fixtures"
    paths = []
    for d, _, files in os.walk(os.path.join(root, "kineto")):
        paths += [os.path.join(d, f) for f in files if f.endswith(".json.gz")]
    for d, _, files in os.walk(os.path.join(root, "ascend")):
        paths += [os.path.join(d, f) for f in files if f == "trace_view.json"]
    for p in sorted(paths):
        c, tracks, flows = counts(p)
        print(os.path.relpath(p, root))
        print("   ", dict(c), "tracks", dict(sorted(tracks.items())), "flows", dict(sorted(flows.items())))


if __name__ == "__main__":
    main()
