// Which rows the timeline shows, in what order, and where: tracks grouped by process or
// device (a collapsible header per group), each with its slice lanes or counter chart.

import { TrackKind, type TraceData } from "../data/trace_data";
import type { Lanes } from "./lanes";

export const LANE_HEIGHT = 18;
export const HEADER_HEIGHT = 22;
export const COUNTER_HEIGHT = 40;
export const TRACK_GAP = 4;

export interface Row {
  kind: "header" | "slices" | "counter";
  track: number; // the group's own track for headers
  group: number; // index into groups
  label: string;
  y: number; // content coordinate of the row's top
  height: number;
  indent: number;
}

export interface Group {
  track: number;
  label: string;
  collapsed: boolean;
  members: number[]; // tracks shown under the header
}

const KIND_RANK: { [k: number]: number } = {
  [TrackKind.Process]: 0, [TrackKind.Thread]: 1, [TrackKind.Async]: 2, [TrackKind.Analysis]: 3,
  [TrackKind.Device]: 4, [TrackKind.GpuStream]: 5, [TrackKind.NpuStream]: 6,
  [TrackKind.Communication]: 7, [TrackKind.Counter]: 8, [TrackKind.CpuCore]: 9,
};

export function trackLabel(data: TraceData, t: number): string {
  const tr = data.tracks;
  const name = data.strings[tr.name[t]];
  switch (tr.kind[t] as TrackKind) {
    case TrackKind.Process:
      return name ? `${name} (pid ${tr.pid[t]})` : `process ${tr.pid[t]}`;
    case TrackKind.Thread:
      return name ? `${name} (${tr.tid[t]})` : `thread ${tr.tid[t]}`;
    case TrackKind.Device:
      return name || `device ${tr.device[t]}`;
    case TrackKind.GpuStream:
      return name || `stream ${tr.stream[t]}`;
    case TrackKind.NpuStream:
      return name || `NPU stream ${tr.stream[t]}`;
    default:
      return name || `track ${t}`;
  }
}

// "group / track" path as the C++ Trace::TrackPath spells it is not needed here: the encoder
// resolves finding evidence to track indices.
export function trackPathLabel(data: TraceData, t: number): string {
  const parts: string[] = [];
  for (let x = t; x >= 0; x = data.tracks.parent[x]) parts.unshift(trackLabel(data, x));
  return parts.join(" / ");
}

export class TrackLayout {
  groups: Group[] = [];
  rows: Row[] = [];
  contentHeight = 0;
  readonly counterOf = new Map<number, number>(); // track -> index into data.counters
  private readonly rowOfTrack = new Map<number, Row>();

  constructor(private readonly data: TraceData, private readonly lanes: Lanes) {
    data.counters.forEach((c, i) => this.counterOf.set(c.track, i));
    this.buildGroups();
    this.relayout();
  }

  private hasContent(t: number): boolean {
    return this.lanes.depthCount[t] > 0 || this.counterOf.has(t);
  }

  private sortKey(t: number): [number, number, number, number, string] {
    const tr = this.data.tracks;
    const id =
      tr.kind[t] === TrackKind.Device ? tr.device[t]
      : tr.kind[t] === TrackKind.GpuStream || tr.kind[t] === TrackKind.NpuStream ? tr.stream[t]
      : tr.kind[t] === TrackKind.Thread ? tr.tid[t] : tr.pid[t];
    return [KIND_RANK[tr.kind[t]] ?? 10, tr.sortIndex[t], tr.rank[t], id, trackLabel(this.data, t)];
  }

  private compare = (a: number, b: number): number => {
    const ka = this.sortKey(a);
    const kb = this.sortKey(b);
    for (let i = 0; i < 4; i++) {
      if (ka[i] !== kb[i]) return (ka[i] as number) - (kb[i] as number);
    }
    return ka[4] < kb[4] ? -1 : ka[4] > kb[4] ? 1 : a - b;
  };

  private buildGroups(): void {
    const tr = this.data.tracks;
    const children: number[][] = Array.from({ length: tr.n }, () => []);
    const roots: number[] = [];
    for (let t = 0; t < tr.n; t++) {
      if (tr.parent[t] >= 0 && tr.parent[t] < tr.n) children[tr.parent[t]].push(t);
      else roots.push(t);
    }
    const collect = (t: number, out: number[]) => {
      const kids = children[t].slice().sort(this.compare);
      for (const k of kids) {
        if (this.hasContent(k)) out.push(k);
        collect(k, out);
      }
    };
    roots.sort(this.compare);
    for (const r of roots) {
      const members: number[] = [];
      if (this.hasContent(r)) members.push(r);
      collect(r, members);
      if (members.length === 0) continue;
      this.groups.push({ track: r, label: trackLabel(this.data, r), collapsed: false, members });
    }
  }

  relayout(): void {
    this.rows = [];
    this.rowOfTrack.clear();
    let y = 0;
    this.groups.forEach((g, gi) => {
      this.rows.push({ kind: "header", track: g.track, group: gi, label: g.label, y, height: HEADER_HEIGHT, indent: 0 });
      y += HEADER_HEIGHT;
      if (g.collapsed) return;
      for (const t of g.members) {
        const isCounter = this.counterOf.has(t) && this.lanes.depthCount[t] === 0;
        const height = isCounter ? COUNTER_HEIGHT : this.lanes.depthCount[t] * LANE_HEIGHT;
        const row: Row = {
          kind: isCounter ? "counter" : "slices", track: t, group: gi,
          label: t === g.track ? "(process-wide)" : trackLabel(this.data, t), y, height, indent: 1,
        };
        this.rows.push(row);
        this.rowOfTrack.set(t, row);
        y += height + TRACK_GAP;
      }
    });
    this.contentHeight = y;
  }

  // Tracks with slices or counters (each is one row when its group is expanded).
  trackCount(): number {
    return this.groups.reduce((n, g) => n + g.members.length, 0);
  }

  rowOf(track: number): Row | undefined {
    return this.rowOfTrack.get(track);
  }

  groupOf(track: number): Group | undefined {
    return this.groups.find((g) => g.members.includes(track));
  }

  // The first row whose vertical extent contains content coordinate y.
  rowAt(y: number): Row | undefined {
    let lo = 0;
    let hi = this.rows.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const r = this.rows[mid];
      if (y < r.y) hi = mid - 1;
      else if (y >= r.y + r.height) lo = mid + 1;
      else return r;
    }
    return undefined;
  }

  // Index of the first row that ends below y (for drawing only what is visible).
  firstVisible(y: number): number {
    let lo = 0;
    let hi = this.rows.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const r = this.rows[mid];
      if (r.y + r.height + TRACK_GAP <= y) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
