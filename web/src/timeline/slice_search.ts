// Slice search of the timeline: which interned names contain a query (case-insensitive), and
// the slices that carry them in time order.
//
//   const r = searchSlices(data, "allreduce");
//   r.nameMask[nameId] === 1; r.slices = matches sorted by start; r.times[i] = start of r.slices[i]

import type { TraceData } from "../data/trace_data";

export interface SearchResult {
  nameMask: Uint8Array; // 1 for each string id whose text contains the query
  slices: number[]; // matching slices, by start time
  times: number[]; // their start times (the axis marks them)
}

// null for an empty (or blank) query.
export function searchSlices(data: TraceData, query: string): SearchResult | null {
  const q = query.trim().toLowerCase();
  if (!q) return null;
  const strings = data.strings;
  const nameMask = new Uint8Array(strings.length);
  for (let i = 0; i < strings.length; i++) nameMask[i] = strings[i].toLowerCase().includes(q) ? 1 : 0;
  const s = data.slices;
  const slices: number[] = [];
  for (let i = 0; i < s.n; i++) if (nameMask[s.name[i]]) slices.push(i);
  slices.sort((a, b) => s.ts[a] - s.ts[b]);
  return { nameMask, slices, times: slices.map((i) => s.ts[i]) };
}
