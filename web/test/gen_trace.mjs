// Writes synthetic PyTorch-profiler (Kineto) traces for the browser tests and the panning
// benchmark: a small trace with known slices, an XSS trace whose strings are hostile, and a
// large trace with N slices.
//
//   node gen_trace.mjs basic OUT.json
//   node gen_trace.mjs xss OUT.json
//   node gen_trace.mjs big OUT.json [slices]
//
// Also exported as functions for the test driver.
import { createWriteStream } from "node:fs";
import { writeFile } from "node:fs/promises";

const PID = 100;
const MAIN = 1;
const LOADER = 2;

function header() {
  return {
    schemaVersion: 1,
    deviceProperties: [{ id: 0, name: "Synthetic GPU", totalGlobalMem: 85899345920 }],
    distributedInfo: { backend: "nccl", rank: 0, world_size: 1 },
    displayTimeUnit: "ms",
    baseTimeNanoseconds: 1700000000000000000,
  };
}

function meta(name, pid, tid, value) {
  const e = { ph: "M", name, pid, args: { name: value } };
  if (tid !== undefined) e.tid = tid;
  return e;
}

// Basic: 5 steps; per step linear -> addmm -> cudaLaunchKernel (+ a flow to its kernel on stream 7),
// an all_reduce kernel on stream 8, a dataloader slice, memory events and a counter.
export function basicTrace(names = {}) {
  const op = names.op ?? "aten::addmm";
  const known = names.known ?? "aten::special_known_op";
  const ev = [
    meta("process_name", PID, undefined, names.process ?? "python3 train.py"),
    meta("thread_name", PID, MAIN, names.thread ?? "main thread"),
    meta("thread_name", PID, LOADER, "dataloader"),
    meta("process_name", 0, undefined, "GPU 0"),
  ];
  let flow = 1;
  let allocated = 0;
  const t0 = 1000000;
  for (let s = 0; s < 5; s++) {
    const base = t0 + s * 10000; // us
    ev.push({ ph: "X", cat: "user_annotation", name: `ProfilerStep#${s}`, pid: PID, tid: MAIN, ts: base, dur: 9000, args: {} });
    ev.push({ ph: "X", cat: "cpu_op", name: "dataloader::next", pid: PID, tid: LOADER, ts: base + 10, dur: 800 });
    for (let k = 0; k < 4; k++) {
      const ts = base + 100 + k * 2000;
      ev.push({ ph: "X", cat: "cpu_op", name: "aten::linear", pid: PID, tid: MAIN, ts, dur: 1500,
        args: { "Input Dims": [[64, 1024], [4096, 1024]], "Input type": ["float", "float"], "External id": s * 10 + k } });
      ev.push({ ph: "X", cat: "cpu_op", name: op, pid: PID, tid: MAIN, ts: ts + 50, dur: names.opDur ?? 1300,
        args: { "Input Dims": [[4096], [64, 1024], [1024, 4096]], "External id": s * 10 + k + 1000 } });
      ev.push({ ph: "X", cat: "cuda_runtime", name: "cudaLaunchKernel", pid: PID, tid: MAIN, ts: ts + 100, dur: 20,
        args: { correlation: flow, "External id": s * 10 + k + 2000 } });
      ev.push({ ph: "X", cat: "kernel", name: "ampere_sgemm_128x64_tn", pid: 0, tid: 7, ts: ts + 150, dur: 1100,
        args: { correlation: flow, stream: 7, device: 0, grid: [64, 1, 1], block: [256, 1, 1] } });
      ev.push({ ph: "s", id: flow, pid: PID, tid: MAIN, ts: ts + 100, cat: "ac2g", name: "ac2g" });
      ev.push({ ph: "f", id: flow, pid: 0, tid: 7, ts: ts + 150, cat: "ac2g", name: "ac2g", bp: "e" });
      flow++;
      allocated += 4 << 20;
      ev.push({ ph: "i", s: "t", name: "[memory]", pid: PID, tid: MAIN, ts: ts + 60,
        args: { "Device Type": 1, "Device Id": 0, Addr: 1000 + k, Bytes: 4 << 20, "Total Allocated": allocated, "Total Reserved": 64 << 20 } });
    }
    if (s === 3) {
      ev.push({ ph: "X", cat: "cpu_op", name: known, pid: PID, tid: MAIN, ts: base + 8100, dur: 850,
        args: { "Input Dims": [[7, 7]], note: "the slice the tests click" } });
    }
    ev.push({ ph: "X", cat: "kernel", name: "ncclKernel_AllReduce_RING_LL_Sum_float", pid: 0, tid: 8, ts: base + 8200, dur: 700,
      args: { stream: 8, device: 0 } });
    allocated -= 12 << 20;
    ev.push({ ph: "C", name: "queue depth", pid: PID, ts: base, args: { depth: s + 1 } });
  }
  return { ...header(), traceEvents: ev };
}

const EVIL = [
  "</script><script>window.__xss=1</script>",
  "<img src=x onerror=\"window.__xss=2\">",
  "<svg onload=window.__xss=3>",
  "\u202egnp.exe\u202c zero\u200bwidth \u0000nul",
  "javascript:window.__xss=4",
  "{{constructor.constructor('window.__xss=5')()}}",
  "<!-- <style>*{display:none}</style>",
];

// XSS: every string a trace can carry (process/thread names, op names, categories, arg keys and
// values) holds markup or unicode tricks.
export function xssTrace() {
  const t = basicTrace({ op: EVIL[0], known: EVIL[1], process: EVIL[2], thread: EVIL[3] });
  t.traceEvents.push({ ph: "X", cat: EVIL[1], name: EVIL[4], pid: PID, tid: MAIN, ts: 1000000 + 9100, dur: 50,
    args: Object.fromEntries(EVIL.map((e, i) => [e, EVIL[(i + 1) % EVIL.length]])) });
  t.traceEvents.push({ ph: "X", cat: "cpu_op", name: EVIL[5], pid: PID, tid: MAIN, ts: 1000000 + 9200, dur: 50, args: { [EVIL[6]]: EVIL[6] } });
  return t;
}
export const EVIL_STRINGS = EVIL;

// Big: `n` slices over 8 threads and 4 GPU streams, nested 3 deep on threads, with names drawn
// from a few hundred operators. Streamed to disk: a 1M-slice trace is ~150 MB of JSON.
export async function writeBigTrace(path, n) {
  const out = createWriteStream(path);
  const write = (s) => (out.write(s) ? Promise.resolve() : new Promise((r) => out.once("drain", r)));
  const h = header();
  await write(`{"schemaVersion":1,"deviceProperties":${JSON.stringify(h.deviceProperties)},"traceEvents":[\n`);
  await write(JSON.stringify(meta("process_name", PID, undefined, "python3 big.py")));
  const names = Array.from({ length: 300 }, (_, i) => `aten::op_${i}_${["mm", "add", "mul", "copy_", "conv2d"][i % 5]}`);
  const kernels = Array.from({ length: 100 }, (_, i) => `kernel_${i}_sm80_${["gemm", "elementwise", "reduce"][i % 3]}`);
  let written = 0;
  let rng = 12345;
  const rand = () => ((rng = (rng * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
  const threads = 8;
  const streams = 4;
  const perTrack = Math.ceil(n / (threads + streams));
  let step = 0;
  for (let tr = 0; tr < threads + streams && written < n; tr++) {
    const gpu = tr >= threads;
    const pid = gpu ? 0 : PID;
    const tid = gpu ? 7 + (tr - threads) : tr + 1;
    let ts = 1000000;
    let chunk = "";
    for (let k = 0, iter = 0; k < perTrack && written < n; iter++) {
      if (!gpu && iter % 200 === 0) {
        // A step around the next 200 ops (depth 0), each op with one child (depths 1 and 2).
        chunk += `,\n{"ph":"X","cat":"user_annotation","name":"ProfilerStep#${step++}","pid":${pid},"tid":${tid},"ts":${ts.toFixed(3)},"dur":${(200 * 9 - 1).toFixed(3)}}`;
        written++;
        k++;
      }
      const dur = 2 + rand() * 5;
      const name = gpu ? kernels[Math.floor(rand() * kernels.length)] : names[Math.floor(rand() * names.length)];
      const cat = gpu ? "kernel" : "cpu_op";
      chunk += `,\n{"ph":"X","cat":"${cat}","name":"${name}","pid":${pid},"tid":${tid},"ts":${ts.toFixed(3)},"dur":${dur.toFixed(3)},"args":{"External id":${written}}}`;
      written++;
      k++;
      if (!gpu && k < perTrack && written < n) {
        chunk += `,\n{"ph":"X","cat":"cpu_op","name":"${names[(written * 7) % names.length]}","pid":${pid},"tid":${tid},"ts":${(ts + 0.5).toFixed(3)},"dur":${(dur / 2).toFixed(3)}}`;
        written++;
        k++;
      }
      ts += 9;
      if (chunk.length > 1 << 20) {
        await write(chunk);
        chunk = "";
      }
    }
    await write(chunk);
  }
  await write("\n]}\n");
  await new Promise((r) => out.end(r));
  return written;
}

async function main() {
  const [kind, path, count] = process.argv.slice(2);
  if (kind === "basic") await writeFile(path, JSON.stringify(basicTrace()));
  else if (kind === "xss") await writeFile(path, JSON.stringify(xssTrace()));
  else if (kind === "big") console.log(await writeBigTrace(path, Number(count ?? 1000000)));
  else throw new Error("usage: gen_trace.mjs basic|xss|big OUT.json [slices]");
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
