// Entry point of the performance map page: decodes the embedded trace data, builds the views the
// page was made with (--view) and switches between them. Exposes `window.cprof` for the browser
// tests and the panning benchmark.

import "./app.css";
import { decodeTraceData, type TraceData } from "./data/trace_data";
import { DetailsPanel } from "./timeline/details_panel";
import { TimelineView } from "./timeline/timeline_view";
import { FlameView } from "./flame/flame_view";
import { HeatmapView } from "./heatmap/heatmap_view";
import { SummaryView } from "./summary/summary_view";
import { OpsView } from "./summary/ops_view";
import { MemoryView } from "./summary/memory_view";
import { el } from "./util/dom";
import { formatBytes, formatDuration } from "./util/format";

interface View {
  element: HTMLElement;
  setActive(active: boolean): void;
}

const TAB_TITLES: { [k: string]: string } = {
  timeline: "Timeline", flamegraph: "Flame graph", heatmap: "Heatmap", summary: "Summary",
  ops: "Operators", memory: "Memory",
};

class App {
  readonly views = new Map<string, View>();
  private readonly tabs = new Map<string, HTMLButtonElement>();
  private current = "";
  timeline: TimelineView | null = null;
  flame: FlameView | null = null;
  heatmap: HeatmapView | null = null;
  details: DetailsPanel | null = null;

  constructor(readonly data: TraceData, root: HTMLElement) {
    const h = data.header;
    const order = ["summary", "timeline", "flamegraph", "heatmap", "ops", "memory"].filter((v) => h.views.includes(v));
    const needTimeline = order.some((v) => v === "timeline" || v === "heatmap");
    if (needTimeline) {
      const tl = new TimelineView(data);
      this.timeline = tl;
      const details = new DetailsPanel(data, tl);
      this.details = details;
      tl.onSelect = (s) => details.show(s);
      if (order.includes("timeline")) {
        const box = el("div", { class: "view-timeline" }, tl.element, details.element);
        this.views.set("timeline", { element: box, setActive: (a) => tl.setActive(a) });
      }
    }
    if (order.includes("flamegraph")) {
      this.flame = new FlameView(data);
      this.views.set("flamegraph", this.flame);
    }
    if (order.includes("heatmap") && this.timeline) {
      const hm = new HeatmapView(data, this.timeline);
      hm.onOpenTimeline = (a, b, track) => this.openTimeline(a, b, track);
      this.heatmap = hm;
      this.views.set("heatmap", hm);
    }
    if (order.includes("summary")) {
      const sv = new SummaryView(data);
      sv.onEvidence = (f, e) => this.showEvidence(f, e);
      this.views.set("summary", sv);
    }
    if (order.includes("ops")) {
      const ov = new OpsView(data);
      ov.onFind = (name) => {
        if (!this.timeline || !this.views.has("timeline")) return;
        this.activate("timeline");
        this.timeline.setSearch(name);
        this.timeline.nextMatch(1);
      };
      this.views.set("ops", ov);
    }
    if (order.includes("memory")) {
      const mv = new MemoryView(data);
      mv.onOpenTimeline = (t) => {
        const span = (h.range_end_ns - h.range_start_ns) / 50;
        this.openTimeline(t - span / 2, t + span / 2, -1);
      };
      this.views.set("memory", mv);
    }

    const nav = el("nav", { class: "tabs", role: "tablist" });
    for (const name of order) {
      const b = el("button", { type: "button", role: "tab", class: "tab", "data-view": name }, TAB_TITLES[name] ?? name);
      b.addEventListener("click", () => this.activate(name));
      this.tabs.set(name, b);
      nav.appendChild(b);
    }
    const info = el("div", { class: "info" },
      `${h.source_format || "trace"} · ${formatDuration(h.range_end_ns - h.range_start_ns)} · ` +
        `${data.slices.n.toLocaleString("en-US")} slices · ${formatBytes(data.encodedBytes)} embedded`);
    const header = el("header", {}, el("h1", {}, "cann-profiler"), el("div", { class: "title" }, h.title), info, nav);
    const main = el("main", {});
    for (const [name, v] of this.views) {
      v.element.classList.add("view");
      v.element.dataset.view = name;
      main.appendChild(v.element);
    }
    root.appendChild(header);
    root.appendChild(main);
    const first = this.views.has("timeline") ? "timeline" : order[0];
    const fromHash = location.hash.slice(1);
    this.activate(this.views.has(fromHash) ? fromHash : first);
  }

  activate(name: string): void {
    if (!this.views.has(name) || name === this.current) return;
    for (const [n, v] of this.views) {
      const on = n === name;
      v.element.hidden = !on;
      this.tabs.get(n)?.setAttribute("aria-selected", on ? "true" : "false");
      if (!on) v.setActive(false);
    }
    this.current = name;
    this.views.get(name)!.setActive(true);
  }

  currentView(): string {
    return this.current;
  }

  openTimeline(start: number, end: number, track: number): void {
    if (!this.timeline || !this.views.has("timeline")) return;
    this.activate("timeline");
    this.timeline.setRange(start, end);
    if (track >= 0) this.timeline.revealTrack(track);
  }

  showEvidence(finding: number, evidence: number): void {
    if (!this.timeline || !this.views.has("timeline")) return;
    this.activate("timeline");
    this.timeline.jumpToEvidence(finding, evidence);
  }
}

declare global {
  interface Window {
    cprof?: { app: App; data: TraceData; ready: boolean; error?: string };
  }
}

function fail(root: HTMLElement, err: unknown): void {
  const msg = err instanceof Error ? err.message : String(err);
  root.appendChild(el("div", { class: "fatal" }, `This page could not show its data: ${msg}`));
  console.error(err);
  document.body.dataset.ready = "error";
}

async function start(): Promise<void> {
  const root = document.getElementById("app");
  const block = document.getElementById("cprof-data");
  if (!root || !block) throw new Error("page is missing its app or data element");
  try {
    const data = await decodeTraceData(block.textContent ?? "");
    const app = new App(data, root);
    window.cprof = { app, data, ready: true };
    document.body.dataset.ready = "1";
  } catch (err) {
    fail(root, err);
  }
}

void start();
