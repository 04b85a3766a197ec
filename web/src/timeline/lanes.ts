// Per-track, per-depth lanes: the slices of one track at one nesting depth, in start order.
// At one depth slices do not overlap, so a lane can be searched by start time and drawn with
// one binary search per pixel column when zoomed out (level of detail).

import type { TraceData } from "../data/trace_data";

export class Lanes {
  // Slice indices grouped by lane; lane l holds laneSlices[laneBegin[l] .. laneBegin[l+1]).
  readonly laneSlices: Uint32Array;
  readonly laneBegin: Uint32Array;
  // Start times in lane order (a copy, so the binary search reads one contiguous array).
  readonly laneStarts: Float64Array;
  readonly laneMaxDur: Float64Array;
  // Lanes of track t are firstLane[t] .. firstLane[t] + depthCount[t] - 1.
  readonly firstLane: Uint32Array;
  readonly depthCount: Uint32Array;

  constructor(data: TraceData) {
    const { tracks, slices } = data;
    const nt = tracks.n;
    this.depthCount = new Uint32Array(nt);
    this.firstLane = new Uint32Array(nt);
    let lanes = 0;
    for (let t = 0; t < nt; t++) {
      let maxDepth = -1;
      for (let i = tracks.sliceBegin[t]; i < tracks.sliceBegin[t + 1]; i++) {
        if (slices.depth[i] > maxDepth) maxDepth = slices.depth[i];
      }
      this.firstLane[t] = lanes;
      this.depthCount[t] = maxDepth + 1;
      lanes += maxDepth + 1;
    }
    const counts = new Uint32Array(lanes + 1);
    for (let t = 0; t < nt; t++) {
      for (let i = tracks.sliceBegin[t]; i < tracks.sliceBegin[t + 1]; i++) {
        counts[this.firstLane[t] + slices.depth[i] + 1]++;
      }
    }
    for (let l = 0; l < lanes; l++) counts[l + 1] += counts[l];
    this.laneBegin = counts.slice();
    const fill = counts.slice(0, lanes);
    this.laneSlices = new Uint32Array(slices.n);
    this.laneStarts = new Float64Array(slices.n);
    this.laneMaxDur = new Float64Array(lanes);
    for (let t = 0; t < nt; t++) {
      for (let i = tracks.sliceBegin[t]; i < tracks.sliceBegin[t + 1]; i++) {
        const l = this.firstLane[t] + slices.depth[i];
        const k = fill[l]++;
        this.laneSlices[k] = i;
        this.laneStarts[k] = slices.ts[i];
        if (slices.dur[i] > this.laneMaxDur[l]) this.laneMaxDur[l] = slices.dur[i];
      }
    }
  }

  // First position k in [lo, hi) with laneStarts[k] >= t.
  lowerBound(t: number, lo: number, hi: number): number {
    const s = this.laneStarts;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (s[mid] < t) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  // The slice of lane `l` that covers time t, or the nearest one within `slack` ns; -1 if none.
  hit(data: TraceData, l: number, t: number, slack: number): number {
    const lo = this.laneBegin[l];
    const hi = this.laneBegin[l + 1];
    let k = this.lowerBound(t + 1e-9, lo, hi) - 1; // last slice starting at or before t
    let best = -1;
    let bestDist = slack;
    for (let probe = 0; probe < 2; probe++, k++) {
      if (k < lo || k >= hi) continue;
      const i = this.laneSlices[k];
      const s = data.slices.ts[i];
      const e = s + data.slices.dur[i];
      const dist = t < s ? s - t : t > e ? t - e : 0;
      if (dist <= bestDist) {
        best = i;
        bestDist = dist;
        if (dist === 0) break;
      }
    }
    return best;
  }
}
