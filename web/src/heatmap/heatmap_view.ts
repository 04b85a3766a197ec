// Heatmaps: how busy each track is over time (fraction of each time bucket covered by its
// top-level slices), and how long each operator ran in each step. Click a cell to open that
// place in the timeline.

import { TrackKind, type TraceData } from "../data/trace_data";
import { heatColor } from "../util/color";
import { clear, el, fitCanvas } from "../util/dom";
import { formatDuration, formatPercent, formatTimeTick, niceStep } from "../util/format";
import type { TimelineView } from "../timeline/timeline_view";
import { trackLabel } from "../timeline/track_layout";

const LABEL_W = 240;
const CELL_H = 16;

export interface Grid {
  rows: string[];
  rowTracks: number[]; // track per row (busy heatmap), -1 otherwise
  cols: string[];
  colRanges: [number, number][]; // time range of each column
  values: Float64Array; // rows x cols
  display: Float64Array; // colour intensity 0..1
}

export class HeatmapView {
  readonly element: HTMLElement;
  private readonly busyCanvas: HTMLCanvasElement;
  private readonly opCanvas: HTMLCanvasElement;
  private readonly tooltip: HTMLElement;
  private readonly opMode: HTMLSelectElement;
  private busy: Grid | null = null;
  private ops: Grid | null = null;
  private rendered = false;

  onOpenTimeline: (start: number, end: number, track: number) => void = () => {};

  constructor(private readonly data: TraceData, private readonly timeline: TimelineView) {
    this.busyCanvas = el("canvas", { class: "heatmap-canvas", "aria-label": "busy heatmap" });
    this.opCanvas = el("canvas", { class: "heatmap-canvas", "aria-label": "operator heatmap" });
    this.tooltip = el("div", { class: "tooltip" });
    this.opMode = el("select", { "aria-label": "operators" });
    const hasDevice = this.hasDeviceTracks();
    if (hasDevice) this.opMode.appendChild(el("option", { value: "device" }, "device kernels"));
    this.opMode.appendChild(el("option", { value: "host" }, "host operators (top level)"));
    this.opMode.addEventListener("change", () => {
      this.ops = null;
      this.render();
    });
    const stepNote = data.header.steps.length
      ? `${data.header.steps.length} steps (from the step detector)`
      : "no steps detected: 10 equal time windows";
    this.element = el("div", { class: "heatmap" },
      el("h3", {}, "Busy fraction over time, per track"),
      el("p", { class: "note" }, "Share of each time bucket covered by the track's top-level slices. Click a cell to open it in the timeline."),
      el("div", { class: "canvas-box" }, this.busyCanvas),
      el("h3", {}, "Operator time by step"),
      el("p", { class: "note" }, el("label", {}, "Operators: ", this.opMode), ` · ${stepNote}; colour is relative to each operator's median step (mid-scale; darkest = twice the median).`),
      el("div", { class: "canvas-box" }, this.opCanvas),
      this.tooltip,
    );
    for (const [canvas, which] of [[this.busyCanvas, "busy"], [this.opCanvas, "ops"]] as const) {
      canvas.addEventListener("mousemove", (ev) => this.hover(which, canvas, ev));
      canvas.addEventListener("mouseleave", () => (this.tooltip.style.display = "none"));
      canvas.addEventListener("click", (ev) => this.click(which, ev));
    }
  }

  private hasDeviceTracks(): boolean {
    const t = this.data.tracks;
    for (let i = 0; i < t.n; i++) {
      const k = t.kind[i];
      if ((k === TrackKind.GpuStream || k === TrackKind.NpuStream || k === TrackKind.Communication) && t.sliceBegin[i + 1] > t.sliceBegin[i]) return true;
    }
    return false;
  }

  setActive(active: boolean): void {
    if (active && !this.rendered) this.render();
  }

  cellCount(): { busy: number; ops: number } {
    const nz = (g: Grid | null) => (g ? g.values.reduce((n, v) => n + (v > 0 ? 1 : 0), 0) : 0);
    return { busy: nz(this.busy), ops: nz(this.ops) };
  }

  render(): void {
    const width = Math.max(500, this.element.clientWidth - 20);
    const cols = Math.max(20, Math.floor((width - LABEL_W) / 4));
    if (!this.busy || this.busy.cols.length !== cols) this.busy = this.computeBusy(cols);
    if (!this.ops) this.ops = this.computeOps();
    this.drawGrid(this.busyCanvas, this.busy, width, true);
    this.drawGrid(this.opCanvas, this.ops, width, false);
    this.rendered = true;
  }

  // Busy fraction per slice track (in timeline order) per time bucket.
  computeBusy(cols: number): Grid {
    const d = this.data;
    const h = d.header;
    const t0 = h.range_start_ns;
    const span = Math.max(1, h.range_end_ns - t0);
    const bw = span / cols;
    const tracks: number[] = [];
    for (const g of this.timeline.layout.groups) {
      for (const t of g.members) if (d.tracks.sliceBegin[t + 1] > d.tracks.sliceBegin[t]) tracks.push(t);
    }
    const values = new Float64Array(tracks.length * cols);
    const s = d.slices;
    tracks.forEach((t, r) => {
      let coveredTo = -Infinity; // union of top-level slices (async tracks may overlap)
      for (let i = d.tracks.sliceBegin[t]; i < d.tracks.sliceBegin[t + 1]; i++) {
        if (s.depth[i] !== 0) continue;
        const a = Math.max(s.ts[i], coveredTo, t0);
        const b = Math.min(s.ts[i] + s.dur[i], t0 + span);
        if (b > coveredTo) coveredTo = s.ts[i] + s.dur[i];
        if (b <= a) continue;
        let c = Math.floor((a - t0) / bw);
        while (c < cols) {
          const cs = t0 + c * bw;
          const ce = cs + bw;
          const ov = Math.min(b, ce) - Math.max(a, cs);
          if (ov > 0) values[r * cols + c] += ov / bw;
          if (ce >= b) break;
          c++;
        }
      }
    });
    const colRanges: [number, number][] = [];
    const colNames: string[] = [];
    for (let c = 0; c < cols; c++) {
      colRanges.push([t0 + c * bw, t0 + (c + 1) * bw]);
      colNames.push(formatDuration(t0 + c * bw));
    }
    const display = values.map((v) => Math.min(1, v));
    return { rows: tracks.map((t) => trackLabel(d, t)), rowTracks: tracks, cols: colNames, colRanges, values, display };
  }

  // Total duration per operator name per step, for the top operators by total time.
  computeOps(): Grid {
    const d = this.data;
    const s = d.slices;
    const h = d.header;
    let windows: [number, number][] = h.steps.map((st) => [st.start_ns, st.start_ns + st.dur_ns]);
    let colNames = h.steps.map((st) => st.name);
    if (windows.length === 0) {
      const span = Math.max(1, h.range_end_ns - h.range_start_ns);
      windows = Array.from({ length: 10 }, (_, i) => [h.range_start_ns + (span * i) / 10, h.range_start_ns + (span * (i + 1)) / 10]);
      colNames = windows.map((_, i) => `window ${i + 1}`);
    }
    const stepNames = new Set(h.steps.map((st) => st.name));
    const device = this.opMode.value === "device";
    const isStep = (i: number) => stepNames.has(d.strings[s.name[i]]);
    const perName = new Map<number, Float64Array>();
    const totals = new Map<number, number>();
    const starts = windows.map((w) => w[0]);
    for (let t = 0; t < d.tracks.n; t++) {
      const k = d.tracks.kind[t];
      const dev = k === TrackKind.GpuStream || k === TrackKind.NpuStream || k === TrackKind.Communication;
      const host = k === TrackKind.Thread;
      if (device ? !dev : !host) continue;
      for (let i = d.tracks.sliceBegin[t]; i < d.tracks.sliceBegin[t + 1]; i++) {
        if (!device) {
          if (isStep(i)) continue;
          const p = s.parent[i];
          if (p >= 0 && !isStep(p)) continue;
        }
        // The window whose start is the last at or before the slice's start.
        let lo = 0;
        let hi = starts.length;
        while (lo < hi) {
          const mid = (lo + hi) >>> 1;
          if (starts[mid] <= s.ts[i]) lo = mid + 1;
          else hi = mid;
        }
        const w = lo - 1;
        if (w < 0 || s.ts[i] >= windows[w][1]) continue;
        let row = perName.get(s.name[i]);
        if (!row) perName.set(s.name[i], (row = new Float64Array(windows.length)));
        row[w] += s.dur[i];
        totals.set(s.name[i], (totals.get(s.name[i]) ?? 0) + s.dur[i]);
      }
    }
    const top = [...totals.entries()].sort((a, b) => b[1] - a[1]).slice(0, 30).map((e) => e[0]);
    const cols = windows.length;
    const values = new Float64Array(top.length * cols);
    const display = new Float64Array(top.length * cols);
    // Colour: the operator's typical (median non-zero) step is mid-scale, twice that is darkest.
    top.forEach((name, r) => {
      const row = perName.get(name)!;
      const nz = [...row].filter((v) => v > 0).sort((a, b) => a - b);
      const median = nz.length ? nz[Math.floor((nz.length - 1) / 2)] : 1;
      for (let c = 0; c < cols; c++) {
        values[r * cols + c] = row[c];
        display[r * cols + c] = Math.min(1, row[c] / (2 * median));
      }
    });
    return { rows: top.map((n) => d.strings[n]), rowTracks: top.map(() => -1), cols: colNames, colRanges: windows, values, display };
  }

  private drawGrid(canvas: HTMLCanvasElement, g: Grid, width: number, timeAxis: boolean): void {
    const cols = g.cols.length;
    const cellW = (width - LABEL_W) / Math.max(1, cols);
    const height = 30 + Math.max(1, g.rows.length) * CELL_H;
    const ctx = fitCanvas(canvas, width, height);
    ctx.fillStyle = "#fff";
    ctx.fillRect(0, 0, width, height);
    ctx.font = "11px system-ui, sans-serif";
    ctx.textBaseline = "middle";
    if (g.rows.length === 0) {
      ctx.fillStyle = "#666";
      ctx.fillText("nothing to show", 10, 15);
      return;
    }
    for (let r = 0; r < g.rows.length; r++) {
      const y = r * CELL_H;
      ctx.fillStyle = "#333";
      const label = g.rows[r].length > 38 ? g.rows[r].slice(0, 37) + "…" : g.rows[r];
      ctx.fillText(label, 4, y + CELL_H / 2);
      for (let c = 0; c < cols; c++) {
        const v = g.display[r * cols + c];
        ctx.fillStyle = v > 0 ? heatColor(0.08 + 0.92 * v) : "#f4f5f7";
        ctx.fillRect(LABEL_W + c * cellW, y, Math.max(1, cellW - (cellW > 4 ? 1 : 0)), CELL_H - 1);
      }
    }
    const axisY = g.rows.length * CELL_H + 12;
    ctx.fillStyle = "#444";
    if (timeAxis) {
      const t0 = g.colRanges[0][0];
      const t1 = g.colRanges[cols - 1][1];
      const step = niceStep(t1 - t0, Math.max(2, (width - LABEL_W) / 120));
      for (let t = Math.ceil(t0 / step) * step; t < t1; t += step) {
        const x = LABEL_W + ((t - t0) / (t1 - t0)) * (width - LABEL_W);
        ctx.fillRect(x, axisY - 10, 1, 4);
        ctx.fillText(formatTimeTick(t, step), x + 2, axisY);
      }
    } else {
      const every = Math.max(1, Math.ceil(60 / cellW));
      for (let c = 0; c < cols; c += every) ctx.fillText(g.cols[c], LABEL_W + c * cellW + 1, axisY);
    }
  }

  private cellAt(which: "busy" | "ops", ev: MouseEvent): { g: Grid; r: number; c: number } | null {
    const g = which === "busy" ? this.busy : this.ops;
    if (!g) return null;
    const canvas = which === "busy" ? this.busyCanvas : this.opCanvas;
    const width = canvas.clientWidth;
    const cellW = (width - LABEL_W) / Math.max(1, g.cols.length);
    const c = Math.floor((ev.offsetX - LABEL_W) / cellW);
    const r = Math.floor(ev.offsetY / CELL_H);
    if (c < 0 || c >= g.cols.length || r < 0 || r >= g.rows.length) return null;
    return { g, r, c };
  }

  private hover(which: "busy" | "ops", canvas: HTMLCanvasElement, ev: MouseEvent): void {
    const cell = this.cellAt(which, ev);
    if (!cell) {
      this.tooltip.style.display = "none";
      return;
    }
    const { g, r, c } = cell;
    const v = g.values[r * g.cols.length + c];
    const [a, b] = g.colRanges[c];
    clear(this.tooltip);
    this.tooltip.appendChild(el("div", {}, g.rows[r]));
    this.tooltip.appendChild(el("div", {}, which === "busy" ? `${formatDuration(a)} – ${formatDuration(b)}` : g.cols[c]));
    this.tooltip.appendChild(el("div", {}, which === "busy" ? `busy ${formatPercent(v)}` : `total ${formatDuration(v)}`));
    const box = canvas.getBoundingClientRect();
    const host = this.element.getBoundingClientRect();
    this.tooltip.style.display = "block";
    this.tooltip.style.left = `${box.left - host.left + ev.offsetX + 12}px`;
    this.tooltip.style.top = `${box.top - host.top + ev.offsetY + 12}px`;
  }

  private click(which: "busy" | "ops", ev: MouseEvent): void {
    const cell = this.cellAt(which, ev);
    if (!cell) return;
    const [a, b] = cell.g.colRanges[cell.c];
    this.onOpenTimeline(a, b, cell.g.rowTracks[cell.r]);
  }
}
