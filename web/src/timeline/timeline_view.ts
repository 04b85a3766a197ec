// The timeline: a canvas renderer of every track with level of detail, zoom and pan (mouse,
// wheel, W/A/S/D), search, selection, flow arrows and finding markers.
//
// Why a custom canvas renderer rather than a charting library: a trace holds up to millions of
// slices; SVG/DOM-based libraries create one node per item and stall long before that, and the
// canvas flame-chart libraries on npm draw every item each frame. Here each lane is drawn with one
// binary search per pixel column when zoomed out (lane_painter.ts), so a frame costs
// O(visible pixels x visible lanes x log n) whatever the trace size; bench/run_visualize_bench.sh
// measures the panning frame rate on a 1M-slice trace in Chromium.

import type { Finding, TraceData } from "../data/trace_data";
import { clear, el, fitCanvas } from "../util/dom";
import { formatDuration, niceStep } from "../util/format";
import { counterValueAt, paintCounter } from "./counter_painter";
import { FlowIndex } from "./flow_index";
import { flowsInView, paintFlows, type Point } from "./flow_painter";
import { FrameStatsRecorder, type FrameStats } from "./frame_stats";
import { Lanes } from "./lanes";
import {
  AXIS_HEIGHT, CHAR_WIDTH, GUTTER, MARKER_HEIGHT, TOP, markerNear, paintAxis, paintGridLines, paintGutter, paintScrollbar,
  type FrameView, type Marker,
} from "./timeline_frame";
import { LaneRaster, NamePalette, paintLane, type LaneView } from "./lane_painter";
import { searchSlices } from "./slice_search";
import { LANE_HEIGHT, TrackLayout, type Row } from "./track_layout";

const MIN_SPAN_NS = 10;
const HEADER_ABGR = 0xfff5f1ee; // #eef1f5

export class TimelineView {
  readonly element: HTMLElement;
  readonly layout: TrackLayout;
  private readonly lanes: Lanes;
  private readonly palette: NamePalette;
  private readonly raster = new LaneRaster();
  private readonly canvas: HTMLCanvasElement;
  private readonly tooltip: HTMLElement;
  private readonly searchInfo: HTMLElement;
  private readonly searchBox: HTMLInputElement;
  private width = 0;
  private height = 0;
  private viewStart: number;
  private viewEnd: number;
  private scrollY = 0;
  private selected = -1;
  private flashUntil = 0;
  private matchName: Uint8Array | null = null;
  private matches: number[] = [];
  private matchTimes: number[] = []; // start of each match, in time order (axis ticks)
  private matchPos = -1;
  private showAllFlows = false;
  private flowIndex: FlowIndex | null = null;
  private markers: Marker[] = [];
  private readonly keys = new Set<string>();
  private mouseX = -1;
  private mouseY = -1;
  private drag: { x: number; y: number; start: number; end: number; scroll: number; moved: boolean } | null = null;
  private redrawPending = false;
  private animating = false;
  private lastAnimTime = 0;
  private active = false;
  private stats: FrameStatsRecorder | null = null;

  onSelect: (slice: number) => void = () => {};

  constructor(private readonly data: TraceData) {
    this.lanes = new Lanes(data);
    this.palette = new NamePalette(data.strings);
    this.layout = new TrackLayout(data, this.lanes);
    const h = data.header;
    const span = Math.max(h.range_end_ns - h.range_start_ns, 1000);
    this.viewStart = h.range_start_ns - span * 0.01;
    this.viewEnd = h.range_start_ns + span * 1.01;
    data.header.findings.forEach((f, fi) =>
      f.evidence.forEach((e, ei) => {
        if (e.ts_ns !== null) this.markers.push({ t: e.ts_ns, finding: fi, evidence: ei });
      }),
    );

    this.searchBox = el("input", {
      type: "search", placeholder: "Search slices by name (Enter: next)", class: "search", "aria-label": "search",
    });
    this.searchInfo = el("span", { class: "search-info" });
    const flowsToggle = el("input", { type: "checkbox", id: "all-flows" });
    flowsToggle.addEventListener("change", () => {
      this.showAllFlows = flowsToggle.checked;
      this.requestRedraw();
    });
    const toolbar = el("div", { class: "toolbar" },
      this.searchBox, this.searchInfo,
      el("label", { class: "toggle" }, flowsToggle, " all flows in view"),
      el("span", { class: "hint" }, "W/S zoom · A/D pan · drag to pan · Ctrl+wheel zoom · click for details"),
    );
    this.canvas = el("canvas", { class: "timeline-canvas", tabindex: 0 });
    this.tooltip = el("div", { class: "tooltip", role: "tooltip" });
    const stage = el("div", { class: "timeline-stage" }, this.canvas, this.tooltip);
    this.element = el("div", { class: "timeline" }, toolbar, stage);
    this.element.dataset.trackCount = String(this.layout.trackCount());

    this.searchBox.addEventListener("input", () => this.setSearch(this.searchBox.value));
    this.searchBox.addEventListener("keydown", (ev) => {
      if (ev.key === "Enter") this.nextMatch(ev.shiftKey ? -1 : 1);
      if (ev.key === "Escape") this.searchBox.blur();
    });
    this.installMouse();
    window.addEventListener("keydown", (ev) => this.onKey(ev, true));
    window.addEventListener("keyup", (ev) => this.onKey(ev, false));
    window.addEventListener("blur", () => this.keys.clear());
    new ResizeObserver(() => this.requestRedraw()).observe(stage);
  }

  setActive(active: boolean): void {
    this.active = active;
    if (active) this.requestRedraw();
    else this.keys.clear();
  }

  // ---- public navigation -------------------------------------------------------------------

  visibleRange(): [number, number] {
    return [this.viewStart, this.viewEnd];
  }

  setRange(start: number, end: number): void {
    const span = Math.max(MIN_SPAN_NS, end - start);
    const h = this.data.header;
    const full = Math.max(h.range_end_ns - h.range_start_ns, 1000) * 1.5;
    const s = Math.min(span, full);
    const mid = (start + end) / 2;
    this.viewStart = mid - s / 2;
    this.viewEnd = mid + s / 2;
    this.requestRedraw();
  }

  panBy(fraction: number): void {
    const d = (this.viewEnd - this.viewStart) * fraction;
    this.viewStart += d;
    this.viewEnd += d;
    this.requestRedraw();
  }

  zoomBy(factor: number, anchorX?: number): void {
    const w = this.width - GUTTER;
    const ax = anchorX !== undefined && anchorX >= GUTTER ? (anchorX - GUTTER) / Math.max(1, w) : 0.5;
    const t = this.viewStart + (this.viewEnd - this.viewStart) * ax;
    const span = (this.viewEnd - this.viewStart) * factor;
    this.setRange(t - span * ax, t - span * ax + span);
  }

  selectedSlice(): number {
    return this.selected;
  }

  select(slice: number, reveal: boolean): void {
    this.selected = slice;
    if (slice >= 0 && reveal) this.reveal(slice);
    this.onSelect(slice);
    this.requestRedraw();
  }

  // Zooms so that the slice fills the middle of the view, expands its group and scrolls to it.
  reveal(slice: number): void {
    const s = this.data.slices;
    const dur = Math.max(s.dur[slice], MIN_SPAN_NS);
    this.setRange(s.ts[slice] - dur * 0.75, s.ts[slice] + dur * 1.75);
    this.revealTrack(s.track[slice], s.depth[slice]);
    this.flashUntil = performance.now() + 1200;
  }

  revealTrack(track: number, depth = 0): void {
    const g = this.layout.groupOf(track);
    if (g && g.collapsed) {
      g.collapsed = false;
      this.layout.relayout();
    }
    const row = this.layout.rowOf(track);
    if (!row) return;
    const y = row.y + depth * LANE_HEIGHT;
    const viewH = this.height - TOP;
    if (y < this.scrollY || y + LANE_HEIGHT > this.scrollY + viewH) {
      this.scrollY = Math.max(0, y - viewH / 3);
    }
    this.clampScroll();
    this.requestRedraw();
  }

  jumpToEvidence(finding: number, evidence: number): void {
    const e = this.data.header.findings[finding]?.evidence[evidence];
    if (!e) return;
    if (e.slice !== null && e.slice >= 0 && e.slice < this.data.slices.n) {
      this.select(e.slice, true);
      return;
    }
    if (e.ts_ns !== null) {
      const dur = Math.max(e.dur_ns ?? 0, 1000);
      this.setRange(e.ts_ns - dur, e.ts_ns + dur * 2);
    }
    if (e.track !== null) this.revealTrack(e.track);
    this.flashUntil = performance.now() + 1200;
    this.requestRedraw();
  }

  // ---- search ------------------------------------------------------------------------------

  setSearch(query: string): number {
    if (this.searchBox.value !== query) this.searchBox.value = query;
    const r = searchSlices(this.data, query);
    this.matchPos = -1;
    this.matchName = r ? r.nameMask : null;
    this.matches = r ? r.slices : [];
    this.matchTimes = r ? r.times : [];
    if (!r) {
      this.searchInfo.textContent = "";
      this.requestRedraw();
      return 0;
    }
    this.searchInfo.textContent = `${this.matches.length.toLocaleString("en-US")} matches`;
    this.requestRedraw();
    return this.matches.length;
  }

  searchMatches(): number[] {
    return this.matches;
  }

  nextMatch(dir: number): number {
    if (this.matches.length === 0) return -1;
    this.matchPos = (this.matchPos + dir + this.matches.length) % this.matches.length;
    const slice = this.matches[this.matchPos];
    this.searchInfo.textContent = `${this.matchPos + 1} of ${this.matches.length.toLocaleString("en-US")}`;
    this.select(slice, true);
    return slice;
  }

  // ---- frame statistics (the fps benchmark reads these) -------------------------------------

  startFrameStats(): void {
    this.stats = new FrameStatsRecorder();
  }

  stopFrameStats(): FrameStats {
    const stats = (this.stats ?? new FrameStatsRecorder()).finish();
    this.stats = null;
    return stats;
  }

  // Screen position (CSS px, relative to the canvas) of a slice's centre, or null if off screen.
  slicePosition(slice: number): { x: number; y: number } | null {
    const s = this.data.slices;
    const row = this.layout.rowOf(s.track[slice]);
    if (!row || this.layout.groups[row.group].collapsed) return null;
    const x0 = Math.max(GUTTER, this.timeToX(s.ts[slice]));
    const x1 = Math.min(this.width, this.timeToX(s.ts[slice] + s.dur[slice]));
    const y = TOP + row.y - this.scrollY + s.depth[slice] * LANE_HEIGHT + LANE_HEIGHT / 2;
    if (x1 < GUTTER || x0 > this.width || y < TOP || y > this.height) return null;
    return { x: (x0 + Math.max(x0, x1)) / 2, y };
  }

  markerPosition(finding: number, evidence: number): { x: number; y: number } | null {
    const m = this.markers.find((k) => k.finding === finding && k.evidence === evidence);
    if (!m) return null;
    const x = this.timeToX(m.t);
    if (x < GUTTER || x > this.width) return null;
    return { x, y: AXIS_HEIGHT + MARKER_HEIGHT / 2 };
  }

  // ---- coordinates -------------------------------------------------------------------------

  private timeToX(t: number): number {
    return GUTTER + ((t - this.viewStart) * (this.width - GUTTER)) / (this.viewEnd - this.viewStart);
  }

  private xToTime(x: number): number {
    return this.viewStart + ((x - GUTTER) * (this.viewEnd - this.viewStart)) / Math.max(1, this.width - GUTTER);
  }

  private clampScroll(): void {
    const max = Math.max(0, this.layout.contentHeight - (this.height - TOP) + 20);
    this.scrollY = Math.min(Math.max(0, this.scrollY), max);
  }

  // ---- input -------------------------------------------------------------------------------

  private installMouse(): void {
    const c = this.canvas;
    c.addEventListener("mousedown", (ev) => {
      c.focus();
      this.drag = { x: ev.offsetX, y: ev.offsetY, start: this.viewStart, end: this.viewEnd, scroll: this.scrollY, moved: false };
    });
    window.addEventListener("mousemove", (ev) => {
      const rect = c.getBoundingClientRect();
      this.mouseX = ev.clientX - rect.left;
      this.mouseY = ev.clientY - rect.top;
      const d = this.drag;
      if (d) {
        const dx = this.mouseX - d.x;
        const dy = this.mouseY - d.y;
        if (Math.abs(dx) + Math.abs(dy) > 3) d.moved = true;
        if (d.moved) {
          const dt = (dx * (d.end - d.start)) / Math.max(1, this.width - GUTTER);
          this.viewStart = d.start - dt;
          this.viewEnd = d.end - dt;
          this.scrollY = d.scroll - dy;
          this.clampScroll();
          this.hideTooltip();
          this.requestRedraw();
        }
      } else if (ev.target === c) {
        this.updateTooltip();
      }
    });
    window.addEventListener("mouseup", () => {
      const d = this.drag;
      this.drag = null;
      if (d && !d.moved) this.click(d.x, d.y);
    });
    c.addEventListener("mouseleave", () => this.hideTooltip());
    c.addEventListener(
      "wheel",
      (ev) => {
        ev.preventDefault();
        const scale = ev.deltaMode === 1 ? 16 : ev.deltaMode === 2 ? this.height : 1;
        const dx = ev.deltaX * scale;
        const dy = ev.deltaY * scale;
        if (ev.ctrlKey || ev.metaKey) {
          this.zoomBy(Math.exp(dy * 0.002), ev.offsetX);
        } else if (ev.shiftKey || Math.abs(dx) > Math.abs(dy)) {
          this.panBy((ev.shiftKey ? dy : dx) / Math.max(1, this.width - GUTTER));
        } else {
          this.scrollY += dy;
          this.clampScroll();
          this.requestRedraw();
        }
      },
      { passive: false },
    );
  }

  private onKey(ev: KeyboardEvent, down: boolean): void {
    if (!this.active) return;
    const target = ev.target as HTMLElement | null;
    if (target && (target.tagName === "INPUT" || target.tagName === "TEXTAREA" || target.tagName === "SELECT")) return;
    const k = ev.key.toLowerCase();
    if (["w", "a", "s", "d"].includes(k)) {
      ev.preventDefault();
      if (down) this.keys.add(k);
      else this.keys.delete(k);
      if (down && !this.animating) {
        this.animating = true;
        this.lastAnimTime = performance.now();
        this.requestRedraw();
      }
    } else if (down && k === "escape") {
      this.select(-1, false);
    } else if (down && k === "f" && this.selected >= 0) {
      this.reveal(this.selected);
    } else if (down && k === "/") {
      ev.preventDefault();
      this.searchBox.focus();
    }
  }

  // Applies held W/A/S/D keys, scaled by the time since the last frame.
  private animate(now: number): void {
    const dt = Math.min(100, now - this.lastAnimTime) / 16.7;
    this.lastAnimTime = now;
    if (this.keys.size === 0) {
      this.animating = false;
      return;
    }
    const anchor = this.mouseX >= GUTTER && this.mouseX <= this.width ? this.mouseX : undefined;
    if (this.keys.has("w")) this.zoomBy(Math.pow(0.92, dt), anchor);
    if (this.keys.has("s")) this.zoomBy(Math.pow(1 / 0.92, dt), anchor);
    if (this.keys.has("a")) this.panBy(-0.02 * dt);
    if (this.keys.has("d")) this.panBy(0.02 * dt);
  }

  private click(x: number, y: number): void {
    if (y < TOP && y >= AXIS_HEIGHT) {
      const m = this.markerAt(x);
      if (m) this.jumpToEvidence(m.finding, m.evidence);
      return;
    }
    if (y < TOP) return;
    const row = this.layout.rowAt(y - TOP + this.scrollY);
    if (row && row.kind === "header") {
      const g = this.layout.groups[row.group];
      g.collapsed = !g.collapsed;
      this.layout.relayout();
      this.clampScroll();
      this.requestRedraw();
      return;
    }
    if (x < GUTTER) return;
    this.select(this.sliceAt(x, y), false);
  }

  private markerAt(x: number): Marker | undefined {
    return markerNear(this.markers, x, (t) => this.timeToX(t));
  }

  sliceAt(x: number, y: number): number {
    if (x < GUTTER || y < TOP) return -1;
    const cy = y - TOP + this.scrollY;
    const row = this.layout.rowAt(cy);
    if (!row || row.kind !== "slices") return -1;
    const depth = Math.floor((cy - row.y) / LANE_HEIGHT);
    if (depth < 0 || depth >= this.lanes.depthCount[row.track]) return -1;
    const l = this.lanes.firstLane[row.track] + depth;
    const slack = (3 * (this.viewEnd - this.viewStart)) / Math.max(1, this.width - GUTTER);
    return this.lanes.hit(this.data, l, this.xToTime(x), slack);
  }

  private updateTooltip(): void {
    const x = this.mouseX;
    const y = this.mouseY;
    if (y < AXIS_HEIGHT || x < 0) return this.hideTooltip();
    let lines: string[] = [];
    if (y < TOP) {
      const m = this.markerAt(x);
      if (m) {
        const f = this.data.header.findings[m.finding];
        const e = f.evidence[m.evidence];
        lines = [`Finding: ${f.title}`, `Evidence: ${e.name}`, "click to jump to it"];
      }
    } else {
      const s = this.sliceAt(x, y);
      if (s >= 0) {
        lines = [this.data.strings[this.data.slices.name[s]], formatDuration(this.data.slices.dur[s])];
      } else {
        const row = this.layout.rowAt(y - TOP + this.scrollY);
        if (row && row.kind === "counter") lines = this.counterTooltip(row, x);
      }
    }
    if (lines.length === 0) return this.hideTooltip();
    clear(this.tooltip);
    for (const l of lines) this.tooltip.appendChild(el("div", {}, l));
    this.tooltip.style.display = "block";
    this.tooltip.style.left = `${Math.min(x + 12, this.width - 260)}px`;
    this.tooltip.style.top = `${y + 14}px`;
  }

  private counterTooltip(row: Row, x: number): string[] {
    const c = this.data.counters[this.layout.counterOf.get(row.track) ?? -1];
    if (!c || c.ts.length === 0) return [];
    const v = counterValueAt(c, this.xToTime(x));
    if (v === null) return [];
    const unit = this.data.strings[this.data.tracks.unit[row.track]];
    return [row.label, `${v.toLocaleString("en-US")}${unit ? " " + unit : ""}`];
  }

  private hideTooltip(): void {
    this.tooltip.style.display = "none";
  }

  // ---- drawing -----------------------------------------------------------------------------

  requestRedraw(): void {
    if (this.redrawPending || !this.active) return;
    this.redrawPending = true;
    requestAnimationFrame((now) => {
      this.redrawPending = false;
      if (this.animating) this.animate(now);
      const t0 = performance.now();
      this.draw();
      this.stats?.record(performance.now() - t0);
      if (this.animating || performance.now() < this.flashUntil) this.requestRedraw();
    });
  }

  private draw(): void {
    const stage = this.canvas.parentElement as HTMLElement;
    const w = stage.clientWidth;
    const h = stage.clientHeight;
    if (w === 0 || h === 0) return;
    this.width = w;
    this.height = h;
    this.clampScroll();
    const ctx = fitCanvas(this.canvas, w, h);
    ctx.fillStyle = "#ffffff";
    ctx.fillRect(0, 0, w, h);
    ctx.font = "11px system-ui, sans-serif";
    ctx.textBaseline = "middle";

    // Slices and header bands as pixels, then everything drawn over them.
    const dpr = window.devicePixelRatio || 1;
    const raster = this.raster;
    raster.begin(w - GUTTER, h - TOP, dpr);
    const view: LaneView = { t0: this.viewStart, t1: this.viewEnd, left: GUTTER, right: w, top: TOP, charWidth: CHAR_WIDTH };
    const rows = this.layout.rows;
    const counters: [Row, number][] = [];
    for (let r = this.layout.firstVisible(this.scrollY); r < rows.length; r++) {
      const row = rows[r];
      const y = TOP + row.y - this.scrollY;
      if (y > h) break;
      if (row.kind === "header") raster.fillRows(y - TOP, row.height, HEADER_ABGR);
      else if (row.kind === "slices") this.paintSliceTrack(row, y, view);
      else counters.push([row, y]);
    }
    if (raster.img) ctx.putImageData(raster.img, Math.round(GUTTER * dpr), Math.round(TOP * dpr));

    const frame: FrameView = {
      width: this.width, height: this.height, viewStart: this.viewStart, viewEnd: this.viewEnd,
      scrollY: this.scrollY, timeToX: (t) => this.timeToX(t),
    };
    ctx.save();
    ctx.beginPath();
    ctx.rect(GUTTER, TOP, w - GUTTER, h - TOP);
    ctx.clip();
    paintGridLines(ctx, frame, this.tickStep());
    for (const [row, y] of counters) this.drawCounter(ctx, row, y);
    for (const l of raster.labels) {
      ctx.fillStyle = l.faded ? "#999999" : "#111111";
      ctx.fillText(l.text, l.x, l.y);
    }
    this.drawFlows(ctx);
    this.drawSelection(ctx);
    ctx.restore();

    paintGutter(ctx, frame, this.layout);
    paintAxis(ctx, frame, this.tickStep(), this.matchTimes, this.markers);
    paintScrollbar(ctx, frame, this.layout.contentHeight);
  }

  private tickStep(): number {
    return niceStep(this.viewEnd - this.viewStart, Math.max(2, (this.width - GUTTER) / 110));
  }

  private paintSliceTrack(row: Row, y: number, view: LaneView): void {
    const depthCount = this.lanes.depthCount[row.track];
    const first = this.lanes.firstLane[row.track];
    for (let d = 0; d < depthCount; d++) {
      const ly = y + d * LANE_HEIGHT;
      if (ly + LANE_HEIGHT < TOP) continue;
      if (ly > this.height) break;
      paintLane(this.data, this.lanes, this.palette, first + d, ly, LANE_HEIGHT - 1, view, this.matchName, this.raster);
    }
  }

  private drawCounter(ctx: CanvasRenderingContext2D, row: Row, y: number): void {
    const c = this.data.counters[this.layout.counterOf.get(row.track) ?? -1];
    if (!c) return;
    paintCounter(ctx, c, y, row.height, (t) => this.timeToX(t), GUTTER, this.width, this.data.header.range_end_ns);
  }

  // Flows that leave from or arrive at the slice.
  flowsOf(slice: number): number[] {
    this.flowIndex ??= new FlowIndex(this.data.flows);
    return this.flowIndex.of(slice);
  }

  private drawFlows(ctx: CanvasRenderingContext2D): void {
    if (this.data.flows.n === 0) return;
    let list = this.showAllFlows ? flowsInView(this.data, this.viewStart, this.viewEnd) : [];
    if (this.selected >= 0) list = list.concat(this.flowsOf(this.selected));
    if (list.length > 0) paintFlows(ctx, this.data, list, this.selected, (slice, isSource) => this.anchor(slice, isSource));
  }

  // Where a flow attaches to a slice: the end of the source, the start of the destination.
  private anchor(slice: number, isSource: boolean): Point | null {
    const s = this.data.slices;
    const row = this.layout.rowOf(s.track[slice]);
    if (!row) return null;
    const g = this.layout.groups[row.group];
    const t = isSource ? s.ts[slice] + s.dur[slice] : s.ts[slice];
    const y = g.collapsed
      ? TOP + this.layout.rows.find((r) => r.kind === "header" && r.group === row.group)!.y - this.scrollY + 11
      : TOP + row.y - this.scrollY + s.depth[slice] * LANE_HEIGHT + LANE_HEIGHT / 2;
    return { x: this.timeToX(t), y };
  }

  private drawSelection(ctx: CanvasRenderingContext2D): void {
    if (this.selected < 0) return;
    const s = this.data.slices;
    const i = this.selected;
    const row = this.layout.rowOf(s.track[i]);
    if (!row || this.layout.groups[row.group].collapsed) return;
    const x0 = this.timeToX(s.ts[i]);
    const x1 = this.timeToX(s.ts[i] + s.dur[i]);
    const y = TOP + row.y - this.scrollY + s.depth[i] * LANE_HEIGHT;
    const flash = performance.now() < this.flashUntil && Math.floor(performance.now() / 200) % 2 === 0;
    ctx.strokeStyle = flash ? "#ff00aa" : "#000000";
    ctx.lineWidth = 2;
    ctx.strokeRect(Math.max(GUTTER - 2, x0) - 1, y - 1, Math.max(3, Math.min(this.width + 4, x1) - Math.max(GUTTER - 2, x0)) + 2, LANE_HEIGHT + 1);
  }

  findingsFor(slice: number): { finding: Finding; index: number }[] {
    const out: { finding: Finding; index: number }[] = [];
    this.data.header.findings.forEach((f, index) => {
      if (f.evidence.some((e) => e.slice === slice)) out.push({ finding: f, index });
    });
    return out;
  }
}
