// The page's data: typed-array columns decoded from the embedded block, plus the small JSON
// header (findings, steps, operator statistics) the C++ side computed.
//
// Layout (written by src/report/visualize/page_data_encoder.cc; keep the two in step):
//   gzip( "CPV1" varint(version)
//         strings  : n, n x byte length, UTF-8 bytes
//         header   : UTF-8 JSON (PageHeader)
//         tracks   : n, then columns parent+1, kind, name, pid, tid, device, stream, rank,
//                    sort_index, unit, slice_count
//         slices   : columns over all tracks in track order: ts delta within the track, dur+1,
//                    name, category, depth, arg set+1
//         args     : set count, per-set sizes, then per arg: key, type, value
//         flows    : n, then out, in, kind, name
//         counters : track count, per track: track, n, ts deltas, value kind, values
//         memory   : n, then ts delta, track+1, device, bytes, allocated+1, reserved+1
//         flame    : tree count, per tree: title, unit, has_baseline, n, parent gaps, names, values
//       ) then base64.
// Times are ns relative to the trace's start (header.start_ns holds the absolute start).

import { visibleText } from "../util/format";
import { ByteReader } from "./byte_reader";

export const enum TrackKind {
  Process = 0,
  Thread = 1,
  Device = 2,
  GpuStream = 3,
  NpuStream = 4,
  Communication = 5,
  Counter = 6,
  Async = 7,
  Analysis = 8,
  CpuCore = 9,
}

export const enum ArgType {
  Null = 0,
  Int = 1,
  Uint = 2,
  Double = 3,
  String = 4,
  Bool = 5,
  BigNumber = 6, // an integer beyond 2^53, kept exact as decimal text in the string table
}

export interface Evidence {
  name: string;
  track_path: string;
  ts_ns: number | null; // relative to the trace start
  dur_ns: number | null;
  track: number | null; // resolved track index
  slice: number | null; // resolved slice index
  note?: string;
}

export interface Finding {
  id: string;
  category: string;
  title: string;
  confidence: number | null;
  saving_ns: number | null;
  description: string;
  evidence: Evidence[];
}

export interface Step {
  name: string;
  start_ns: number;
  dur_ns: number;
}

export interface StepBreakdown {
  // Column names (computation, exposed communication, ...) and one row of ns per step.
  categories: string[];
  steps: { name: string; values: number[] }[];
}

export interface OpStat {
  name: string;
  category: string;
  count: number;
  total_ns: number;
  self_ns: number;
  mean_ns: number;
  p50_ns: number;
  p99_ns: number;
  device: boolean;
}

export interface PageHeader {
  schema_version: number;
  generator: string;
  title: string;
  source_format: string;
  start_ns: string; // absolute, decimal (exact)
  range_start_ns: number; // relative to the trace start
  range_end_ns: number;
  views: string[];
  metadata: [string, string][];
  steps: Step[];
  findings: Finding[];
  findings_source: string;
  step_breakdown: StepBreakdown | null;
  op_stats: OpStat[];
  import_stats: { name: string; severity: string; count: number; description: string }[];
  baseline_title: string | null;
}

export interface Tracks {
  n: number;
  parent: Int32Array; // -1 = root
  kind: Uint8Array;
  name: Uint32Array;
  pid: Float64Array;
  tid: Float64Array;
  device: Float64Array;
  stream: Float64Array;
  rank: Float64Array;
  sortIndex: Float64Array;
  unit: Uint32Array;
  sliceBegin: Uint32Array; // n+1: slices of track t are [sliceBegin[t], sliceBegin[t+1])
}

export interface Slices {
  n: number;
  ts: Float64Array;
  dur: Float64Array; // unfinished slices run to the range end (see `unfinished`)
  name: Uint32Array;
  cat: Uint32Array;
  depth: Uint32Array;
  args: Int32Array; // arg set, -1 = none
  track: Uint32Array; // derived
  parent: Int32Array; // derived: enclosing slice on the same track, -1 = top level
  unfinished: Set<number>;
}

export interface Args {
  setBegin: Uint32Array; // sets+1
  key: Uint32Array;
  type: Uint8Array;
  num: Float64Array; // Int, Uint, Double, Bool
  str: Uint32Array; // String, BigNumber
}

export interface Flows {
  n: number;
  out: Uint32Array;
  in: Uint32Array;
  kind: Uint8Array;
  name: Uint32Array;
}

export interface CounterSeries {
  track: number;
  ts: Float64Array;
  value: Float64Array;
  max: number;
  min: number;
}

export interface MemoryEvents {
  n: number;
  ts: Float64Array;
  track: Int32Array;
  device: Float64Array;
  bytes: Float64Array;
  allocated: Float64Array; // -1 unknown
  reserved: Float64Array; // -1 unknown
}

export interface FlameTree {
  title: string;
  unit: string;
  parent: Int32Array; // -1 for the root (node 0)
  name: Uint32Array;
  value: Float64Array;
  baseline: Float64Array | null;
}

export interface TraceData {
  strings: string[];
  header: PageHeader;
  tracks: Tracks;
  slices: Slices;
  args: Args;
  flows: Flows;
  counters: CounterSeries[];
  memory: MemoryEvents;
  flames: FlameTree[];
  encodedBytes: number;
}

export const FLOW_KIND_NAMES = ["flow", "launch", "fwd/bwd", "queue", "host to device"];

function base64ToBytes(text: string): Uint8Array {
  const clean = text.replace(/\s+/g, "");
  const bin = atob(clean);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

async function gunzip(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([bytes as BlobPart]).stream().pipeThrough(new DecompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

function readColumn(r: ByteReader, n: number, read: () => number): Float64Array {
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = read();
  return out;
}

export async function decodeTraceData(base64: string): Promise<TraceData> {
  const packed = base64ToBytes(base64);
  const bytes = await gunzip(packed);
  return decodeRaw(bytes, packed.length);
}

export function decodeRaw(bytes: Uint8Array, encodedBytes: number): TraceData {
  const r = new ByteReader(bytes);
  const magic = String.fromCharCode(r.u8(), r.u8(), r.u8(), r.u8());
  if (magic !== "CPV1") throw new Error("page data: bad magic");
  const version = r.varint();
  if (version !== 1) throw new Error(`page data: unsupported version ${version}`);
  const dec = new TextDecoder("utf-8");

  // Strings.
  const nStrings = r.varint();
  const lengths = new Uint32Array(nStrings);
  for (let i = 0; i < nStrings; i++) lengths[i] = r.varint();
  const strings: string[] = new Array(nStrings);
  // Every string is shown as decoded, except for invisible and direction-changing characters.
  for (let i = 0; i < nStrings; i++) strings[i] = visibleText(dec.decode(r.bytesOf(lengths[i])));

  const header = JSON.parse(r.utf8(dec), (_key, v) => (typeof v === "string" ? visibleText(v) : v)) as PageHeader;

  // Tracks.
  const nt = r.varint();
  const parent = new Int32Array(nt);
  for (let i = 0; i < nt; i++) parent[i] = r.varint() - 1;
  const kind = new Uint8Array(nt);
  for (let i = 0; i < nt; i++) kind[i] = r.varint();
  const tname = new Uint32Array(nt);
  for (let i = 0; i < nt; i++) tname[i] = r.varint();
  const zz = () => r.svarint();
  const pid = readColumn(r, nt, zz);
  const tid = readColumn(r, nt, zz);
  const device = readColumn(r, nt, zz);
  const stream = readColumn(r, nt, zz);
  const rank = readColumn(r, nt, zz);
  const sortIndex = readColumn(r, nt, zz);
  const unit = new Uint32Array(nt);
  for (let i = 0; i < nt; i++) unit[i] = r.varint();
  const sliceBegin = new Uint32Array(nt + 1);
  for (let i = 0; i < nt; i++) sliceBegin[i + 1] = sliceBegin[i] + r.varint();
  const tracks: Tracks = {
    n: nt, parent, kind, name: tname, pid, tid, device, stream, rank, sortIndex, unit, sliceBegin,
  };

  // Slices.
  const ns = sliceBegin[nt];
  const ts = new Float64Array(ns);
  const track = new Uint32Array(ns);
  for (let t = 0; t < nt; t++) {
    let prev = 0;
    for (let i = sliceBegin[t]; i < sliceBegin[t + 1]; i++) {
      prev += r.svarint();
      ts[i] = prev;
      track[i] = t;
    }
  }
  const dur = new Float64Array(ns);
  const unfinished = new Set<number>();
  const rangeEnd = header.range_end_ns;
  for (let i = 0; i < ns; i++) {
    const d = r.varint() - 1;
    if (d < 0) {
      unfinished.add(i);
      dur[i] = Math.max(0, rangeEnd - ts[i]);
    } else {
      dur[i] = d;
    }
  }
  const sname = new Uint32Array(ns);
  for (let i = 0; i < ns; i++) sname[i] = r.varint();
  const cat = new Uint32Array(ns);
  for (let i = 0; i < ns; i++) cat[i] = r.varint();
  const depth = new Uint32Array(ns);
  for (let i = 0; i < ns; i++) depth[i] = r.varint();
  const sargs = new Int32Array(ns);
  for (let i = 0; i < ns; i++) sargs[i] = r.varint() - 1;
  const sparent = new Int32Array(ns).fill(-1);
  {
    const stack: number[] = [];
    for (let t = 0; t < nt; t++) {
      stack.length = 0;
      for (let i = sliceBegin[t]; i < sliceBegin[t + 1]; i++) {
        const d = depth[i];
        stack.length = Math.min(stack.length, d + 1);
        sparent[i] = d > 0 && stack.length >= d ? stack[d - 1] : -1;
        stack[d] = i;
      }
    }
  }
  const slices: Slices = {
    n: ns, ts, dur, name: sname, cat, depth, args: sargs, track, parent: sparent, unfinished,
  };

  // Args.
  const nsets = r.varint();
  const setBegin = new Uint32Array(nsets + 1);
  for (let i = 0; i < nsets; i++) setBegin[i + 1] = setBegin[i] + r.varint();
  const na = setBegin[nsets];
  const akey = new Uint32Array(na);
  const atype = new Uint8Array(na);
  const anum = new Float64Array(na);
  const astr = new Uint32Array(na);
  for (let i = 0; i < na; i++) {
    akey[i] = r.varint();
    const ty = r.u8();
    atype[i] = ty;
    switch (ty) {
      case ArgType.Null: break;
      case ArgType.Int: anum[i] = r.svarint(); break;
      case ArgType.Uint: anum[i] = r.varint(); break;
      case ArgType.Double: anum[i] = r.f64(); break;
      case ArgType.String: case ArgType.BigNumber: astr[i] = r.varint(); break;
      case ArgType.Bool: anum[i] = r.u8(); break;
      default: throw new Error(`page data: bad arg type ${ty}`);
    }
  }
  const args: Args = { setBegin, key: akey, type: atype, num: anum, str: astr };

  // Flows.
  const nf = r.varint();
  const fout = new Uint32Array(nf);
  const fin = new Uint32Array(nf);
  const fkind = new Uint8Array(nf);
  const fname = new Uint32Array(nf);
  for (let i = 0; i < nf; i++) fout[i] = r.varint();
  for (let i = 0; i < nf; i++) fin[i] = r.varint();
  for (let i = 0; i < nf; i++) fkind[i] = r.varint();
  for (let i = 0; i < nf; i++) fname[i] = r.varint();
  const flows: Flows = { n: nf, out: fout, in: fin, kind: fkind, name: fname };

  // Counters.
  const nc = r.varint();
  const counters: CounterSeries[] = [];
  for (let c = 0; c < nc; c++) {
    const ct = r.varint();
    const n = r.varint();
    const cts = new Float64Array(n);
    let prev = 0;
    for (let i = 0; i < n; i++) { prev += r.svarint(); cts[i] = prev; }
    const valueKind = r.u8();
    const val = new Float64Array(n);
    if (valueKind === 0) {
      let pv = 0;
      for (let i = 0; i < n; i++) { pv += r.svarint(); val[i] = pv; }
    } else {
      for (let i = 0; i < n; i++) val[i] = r.f64();
    }
    let max = -Infinity;
    let min = Infinity;
    for (let i = 0; i < n; i++) {
      if (val[i] > max) max = val[i];
      if (val[i] < min) min = val[i];
    }
    counters.push({ track: ct, ts: cts, value: val, max: n ? max : 0, min: n ? min : 0 });
  }

  // Memory events.
  const nm = r.varint();
  const mts = new Float64Array(nm);
  {
    let prev = 0;
    for (let i = 0; i < nm; i++) { prev += r.svarint(); mts[i] = prev; }
  }
  const mtrack = new Int32Array(nm);
  for (let i = 0; i < nm; i++) mtrack[i] = r.varint() - 1;
  const mdev = readColumn(r, nm, zz);
  const mbytes = readColumn(r, nm, zz);
  const malloc = readColumn(r, nm, () => r.varint() - 1);
  const mres = readColumn(r, nm, () => r.varint() - 1);
  const memory: MemoryEvents = {
    n: nm, ts: mts, track: mtrack, device: mdev, bytes: mbytes, allocated: malloc, reserved: mres,
  };

  // Flame trees.
  const ntrees = r.varint();
  const flames: FlameTree[] = [];
  for (let k = 0; k < ntrees; k++) {
    const title = strings[r.varint()];
    const unitName = strings[r.varint()];
    const hasBaseline = r.u8() === 1;
    const n = r.varint();
    const fparent = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      const gap = r.varint();
      fparent[i] = gap === 0 ? -1 : i - gap;
    }
    const fnames = new Uint32Array(n);
    for (let i = 0; i < n; i++) fnames[i] = r.varint();
    const fval = readColumn(r, n, () => r.varint());
    const fbase = hasBaseline ? readColumn(r, n, () => r.varint()) : null;
    flames.push({ title, unit: unitName, parent: fparent, name: fnames, value: fval, baseline: fbase });
  }

  return { strings, header, tracks, slices, args, flows, counters, memory, flames, encodedBytes };
}

// The text of arg row `i`, exact for integers of any size.
export function argValueText(data: TraceData, i: number): string {
  const a = data.args;
  switch (a.type[i]) {
    case ArgType.Null: return "null";
    case ArgType.Int: case ArgType.Uint: return String(a.num[i]);
    case ArgType.Double: return String(a.num[i]);
    case ArgType.Bool: return a.num[i] ? "true" : "false";
    default: return data.strings[a.str[i]];
  }
}
