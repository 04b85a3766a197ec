// The memory curve: allocated (and reserved) bytes over time per device, from the trace's
// memory events (allocator totals when the source recorded them, else the running sum of
// allocations and frees). Click the chart to open that moment in the timeline.

import { axisBottom, axisLeft } from "d3-axis";
import { scaleLinear, scaleOrdinal } from "d3-scale";
import { select } from "d3-selection";
import type { TraceData } from "../data/trace_data";
import { CATEGORY_COLORS } from "../util/color";
import { el } from "../util/dom";
import { formatBytes, formatDuration } from "../util/format";

export interface MemorySeries {
  label: string;
  ts: number[];
  bytes: number[];
}

export function memorySeries(data: TraceData): MemorySeries[] {
  const m = data.memory;
  const byDevice = new Map<number, number[]>();
  for (let i = 0; i < m.n; i++) {
    const list = byDevice.get(m.device[i]) ?? [];
    list.push(i);
    byDevice.set(m.device[i], list);
  }
  const out: MemorySeries[] = [];
  for (const [dev, rows] of [...byDevice.entries()].sort((a, b) => a[0] - b[0])) {
    const name = dev < 0 ? "host" : `device ${dev}`;
    const alloc: MemorySeries = { label: `${name} allocated`, ts: [], bytes: [] };
    const reserved: MemorySeries = { label: `${name} reserved`, ts: [], bytes: [] };
    let running = 0;
    for (const i of rows) {
      running += m.bytes[i];
      alloc.ts.push(m.ts[i]);
      alloc.bytes.push(m.allocated[i] >= 0 ? m.allocated[i] : running);
      if (m.reserved[i] >= 0) {
        reserved.ts.push(m.ts[i]);
        reserved.bytes.push(m.reserved[i]);
      }
    }
    out.push(alloc);
    if (reserved.ts.length) out.push(reserved);
  }
  return out;
}

function maxOf(v: number[]): number {
  let m = -Infinity;
  for (const x of v) if (x > m) m = x;
  return m;
}

// At most a few points per pixel column: the first, the highest and the last, so peaks survive.
function downsample(s: MemorySeries, px: (t: number) => number): [number, number][] {
  const out: [number, number][] = [];
  let col = NaN;
  let hi = -1;
  for (let i = 0; i < s.ts.length; i++) {
    const c = px(s.ts[i]);
    if (c !== col) {
      if (i > 0 && out[out.length - 1][0] !== s.ts[i - 1]) out.push([s.ts[i - 1], s.bytes[i - 1]]);
      col = c;
      out.push([s.ts[i], s.bytes[i]]);
      hi = out.length - 1;
    } else if (s.bytes[i] > out[hi][1]) {
      out.push([s.ts[i], s.bytes[i]]);
      hi = out.length - 1;
    }
  }
  if (s.ts.length && out[out.length - 1][0] !== s.ts[s.ts.length - 1]) out.push([s.ts[s.ts.length - 1], s.bytes[s.bytes.length - 1]]);
  return out;
}

// SVG path of a step curve through points (each value holds until the next point).
function stepPath(pts: [number, number][]): string {
  let d = "";
  pts.forEach(([x, y], i) => {
    d += i === 0 ? `M${x.toFixed(1)},${y.toFixed(1)}` : `H${x.toFixed(1)}V${y.toFixed(1)}`;
  });
  return d;
}

export class MemoryView {
  readonly element: HTMLElement;
  private rendered = false;

  onOpenTimeline: (t: number) => void = () => {};

  constructor(private readonly data: TraceData) {
    this.element = el("div", { class: "memory" });
  }

  setActive(active: boolean): void {
    if (active && !this.rendered) this.render();
  }

  private render(): void {
    this.rendered = true;
    const series = memorySeries(this.data);
    this.element.appendChild(el("h3", {}, "Memory over time"));
    if (series.length === 0) {
      this.element.appendChild(el("p", { class: "placeholder" }, "This trace has no memory events (PyTorch: profile_memory=True)."));
      return;
    }
    const h = this.data.header;
    const width = Math.max(600, (this.element.clientWidth || 1000) - 40);
    const height = 320;
    const m = { top: 10, right: 300, bottom: 30, left: 80 };
    const x = scaleLinear().domain([h.range_start_ns, h.range_end_ns]).range([m.left, width - m.right]);
    const max = Math.max(1, ...series.map((s) => maxOf(s.bytes)));
    const y = scaleLinear().domain([0, max]).nice().range([height - m.bottom, m.top]);
    const color = scaleOrdinal<string, string>().domain(series.map((s) => s.label)).range(CATEGORY_COLORS);
    const svg = select(document.createElementNS("http://www.w3.org/2000/svg", "svg"))
      .attr("width", width).attr("height", height).attr("class", "memory-chart");
    for (const s of series) {
      const pts = downsample(s, (t) => Math.round(x(t)));
      pts.push([h.range_end_ns, s.bytes[s.bytes.length - 1]]);
      svg.append("path")
        .attr("d", stepPath(pts.map((p) => [x(p[0]), y(p[1])])))
        .attr("fill", "none").attr("stroke", color(s.label)).attr("stroke-width", 1.5);
    }
    svg.append("g").attr("transform", `translate(0,${height - m.bottom})`).call(axisBottom(x).ticks(8).tickFormat((v) => formatDuration(Number(v))));
    svg.append("g").attr("transform", `translate(${m.left},0)`).call(axisLeft(y).ticks(6).tickFormat((v) => formatBytes(Number(v))));
    series.forEach((s, i) => {
      const g = svg.append("g").attr("transform", `translate(${width - m.right + 16},${m.top + i * 18})`);
      g.append("rect").attr("width", 12).attr("height", 12).attr("fill", color(s.label));
      g.append("text").attr("x", 18).attr("y", 10).text(`${s.label} (peak ${formatBytes(maxOf(s.bytes))})`);
    });
    svg.on("click", (ev: MouseEvent) => {
      const t = x.invert(ev.offsetX);
      if (t >= h.range_start_ns && t <= h.range_end_ns) this.onOpenTimeline(t);
    });
    this.element.appendChild(svg.node() as SVGSVGElement);
  }
}
