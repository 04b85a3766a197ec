// Flame graphs (d3-flame-graph): CPU samples, and operator nesting weighted by time, for host
// threads and device streams; differential colouring against a baseline run when the page has
// one. The trees were aggregated by the C++ side (src/export/flame), the same code that writes
// speedscope and folded stacks, so the page and the exports agree.

import flamegraph, { colorMapper } from "d3-flame-graph";
import { select } from "d3-selection";
import type { FlameTree, TraceData } from "../data/trace_data";
import { button, clear, el } from "../util/dom";
import { formatDuration, formatPercent } from "../util/format";

interface FlameNode {
  name: string;
  value: number;
  delta?: number;
  baseline?: number;
  children: FlameNode[];
}

function buildHierarchy(data: TraceData, tree: FlameTree, normalize: boolean): { root: FlameNode; onlyBaseline: number } {
  const n = tree.name.length;
  const nodes: FlameNode[] = new Array(n);
  let scale = 1;
  if (tree.baseline && normalize && tree.baseline[0] > 0) scale = tree.value[0] / tree.baseline[0];
  let onlyBaseline = 0;
  for (let i = 0; i < n; i++) {
    const node: FlameNode = { name: data.strings[tree.name[i]], value: tree.value[i], children: [] };
    if (tree.baseline) {
      node.baseline = tree.baseline[i] * scale;
      node.delta = tree.value[i] - node.baseline;
      const p = tree.parent[i];
      if (tree.value[i] === 0 && p >= 0 && tree.value[p] > 0) onlyBaseline += node.baseline;
    }
    nodes[i] = node;
    const p = tree.parent[i];
    if (p >= 0 && tree.value[i] > 0) nodes[p].children.push(node);
  }
  return { root: nodes[0] ?? { name: "(empty)", value: 0, children: [] }, onlyBaseline };
}

export class FlameView {
  readonly element: HTMLElement;
  private readonly chartBox: HTMLElement;
  private readonly details: HTMLElement;
  private readonly note: HTMLElement;
  private readonly picker: HTMLSelectElement;
  private readonly searchBox: HTMLInputElement;
  private readonly diffToggle: HTMLInputElement;
  private readonly normToggle: HTMLInputElement;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  private chart: any = null;
  private current = 0;
  private rendered = false;
  private lastWidth = 0;
  private matchCount = 0;

  constructor(private readonly data: TraceData) {
    this.picker = el("select", { "aria-label": "flame graph source" });
    data.flames.forEach((t, i) => this.picker.appendChild(el("option", { value: i }, t.title)));
    this.picker.addEventListener("change", () => this.show(Number(this.picker.value)));
    this.searchBox = el("input", { type: "search", placeholder: "Search frames", class: "search", "aria-label": "search frames" });
    this.searchBox.addEventListener("input", () => this.search(this.searchBox.value));
    this.diffToggle = el("input", { type: "checkbox", checked: true });
    this.normToggle = el("input", { type: "checkbox", checked: true });
    this.diffToggle.addEventListener("change", () => this.show(this.current));
    this.normToggle.addEventListener("change", () => this.show(this.current));
    const hasBaseline = data.flames.some((t) => t.baseline);
    this.details = el("div", { class: "flame-details" }, "Hover a frame; click to zoom.");
    this.note = el("div", { class: "note" });
    const toolbar = el("div", { class: "toolbar" },
      el("label", {}, "Source ", this.picker),
      this.searchBox,
      button("Reset zoom", () => this.chart?.resetZoom()),
      hasBaseline ? el("label", { class: "toggle" }, this.diffToggle, ` difference vs baseline (${data.header.baseline_title ?? "baseline"})`) : null,
      hasBaseline ? el("label", { class: "toggle" }, this.normToggle, " normalize totals") : null,
    );
    this.chartBox = el("div", { class: "flame-chart" });
    this.element = el("div", { class: "flame" }, toolbar, this.details, this.note, this.chartBox);
    if (data.flames.length === 0) {
      this.chartBox.appendChild(el("p", { class: "placeholder" }, "This trace has no CPU samples and no slices to build a flame graph from."));
    }
    new ResizeObserver(() => {
      if (this.rendered && this.chartBox.clientWidth > 0 && Math.abs(this.chartBox.clientWidth - this.lastWidth) > 8) {
        this.show(this.current);
      }
    }).observe(this.element);
  }

  setActive(active: boolean): void {
    if (active && !this.rendered && this.data.flames.length > 0) this.show(this.current);
  }

  show(index: number): void {
    const tree = this.data.flames[index];
    if (!tree) return;
    this.current = index;
    this.picker.value = String(index);
    const width = Math.max(300, (this.chartBox.clientWidth || 924) - 24); // minus the box's padding
    this.lastWidth = width;
    const differential = tree.baseline !== null && this.diffToggle.checked;
    const { root, onlyBaseline } = buildHierarchy(this.data, tree, this.normToggle.checked);
    const isTime = tree.unit === "ns";
    const fmt = (v: number) => (isTime ? formatDuration(v) : `${Math.round(v).toLocaleString("en-US")} ${tree.unit}`);
    const total = root.value || 1;
    clear(this.chartBox);
    clear(this.note);
    if (tree.baseline) {
      this.note.textContent =
        `Red: more ${isTime ? "time" : "weight"} than the baseline, blue: less` +
        (onlyBaseline > 0 ? `; frames only in the baseline (not drawn): ${fmt(onlyBaseline)}` : "");
    }
    const chart = flamegraph()
      .width(width)
      .cellHeight(18)
      .transitionDuration(250)
      .minFrameSize(1)
      .sort(true)
      .setDetailsElement(this.details)
      .setLabelHandler((d: { data: FlameNode; value: number }) => {
        let s = `${d.data.name} — ${fmt(d.value)} (${formatPercent(d.value / total)})`;
        if (d.data.delta !== undefined) s += `, ${d.data.delta >= 0 ? "+" : "−"}${fmt(Math.abs(d.data.delta))} vs baseline`;
        return s;
      })
      .setSearchMatch((d: { data: FlameNode }, term: string) => {
        if (!term) return false;
        return d.data.name.toLowerCase().includes(term.toLowerCase());
      });
    if (differential) chart.setColorMapper(colorMapper.differentialColorMapper);
    select(this.chartBox).datum(root).call(chart);
    this.chart = chart;
    this.rendered = true;
    if (this.searchBox.value) this.search(this.searchBox.value);
  }

  search(term: string): number {
    if (this.searchBox.value !== term) this.searchBox.value = term;
    if (!this.chart) return 0;
    let count = 0;
    this.chart.setSearchHandler((results: unknown[]) => {
      count = results.length;
    });
    if (term) this.chart.search(term);
    else this.chart.clear();
    this.matchCount = term ? count : 0;
    return this.matchCount;
  }

  frameCount(): number {
    return this.chartBox.querySelectorAll("g.frame").length;
  }
}
