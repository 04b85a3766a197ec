// Summary: the findings (each with buttons that open its evidence in the timeline), the per-step
// time breakdown as stacked bars, and the import problems the importer counted.

import { axisBottom, axisLeft } from "d3-axis";
import { scaleBand, scaleLinear, scaleOrdinal } from "d3-scale";
import { select } from "d3-selection";
import type { TraceData } from "../data/trace_data";
import { button, el } from "../util/dom";
import { CATEGORY_COLORS, FINDING_COLORS } from "../util/color";
import { formatCount, formatDuration, formatPercent } from "../util/format";

export class SummaryView {
  readonly element: HTMLElement;
  private rendered = false;

  onEvidence: (finding: number, evidence: number) => void = () => {};

  constructor(private readonly data: TraceData) {
    this.element = el("div", { class: "summary" });
  }

  setActive(active: boolean): void {
    if (active && !this.rendered) this.render();
  }

  private render(): void {
    this.rendered = true;
    const d = this.data;
    const h = d.header;
    const facts = el("table", { class: "kv facts" });
    const add = (k: string, v: string) => facts.appendChild(el("tr", {}, el("th", {}, k), el("td", {}, v)));
    add("Trace", h.title);
    add("Source format", h.source_format || "unknown");
    add("Shown range", `${formatDuration(h.range_start_ns)} – ${formatDuration(h.range_end_ns)} (${formatDuration(h.range_end_ns - h.range_start_ns)})`);
    add("Tracks / slices", `${formatCount(d.tracks.n)} / ${formatCount(d.slices.n)}`);
    add("Steps", h.steps.length ? `${h.steps.length}, mean ${formatDuration(h.steps.reduce((a, s) => a + s.dur_ns, 0) / h.steps.length)}` : "none detected");
    for (const [k, v] of h.metadata) add(k, v);
    this.element.appendChild(el("section", {}, el("h3", {}, "Trace"), facts));
    this.element.appendChild(this.findingsSection());
    const bars = this.stepBars();
    if (bars) this.element.appendChild(bars);
    if (h.import_stats.length) {
      const t = el("table", { class: "grid" }, el("tr", {}, el("th", {}, "Import problem"), el("th", {}, "Severity"), el("th", {}, "Count"), el("th", {}, "Meaning")));
      for (const s of h.import_stats) {
        t.appendChild(el("tr", {}, el("td", {}, s.name), el("td", {}, s.severity), el("td", { class: "num" }, formatCount(s.count)), el("td", {}, s.description)));
      }
      this.element.appendChild(el("section", {}, el("h3", {}, "Import statistics"), t));
    }
  }

  private findingsSection(): HTMLElement {
    const h = this.data.header;
    const sec = el("section", { class: "findings" }, el("h3", {}, `Findings (${h.findings.length})`));
    if (h.findings_source) sec.appendChild(el("p", { class: "note" }, `From ${h.findings_source}.`));
    if (h.findings.length === 0) {
      sec.appendChild(el("p", { class: "placeholder" }, "No findings. Run `cann-profiler diagnose` and pass its report with --diagnosis."));
      return sec;
    }
    h.findings.forEach((f, fi) => {
      const card = el("div", { class: "finding", "data-finding": fi });
      card.style.borderLeftColor = FINDING_COLORS[fi % FINDING_COLORS.length];
      const meta: string[] = [f.category];
      if (f.confidence !== null) meta.push(`confidence ${formatPercent(f.confidence)}`);
      if (f.saving_ns !== null) meta.push(`possible saving ${formatDuration(f.saving_ns)}`);
      card.appendChild(el("div", { class: "finding-title" }, f.title));
      card.appendChild(el("div", { class: "finding-meta" }, meta.join(" · ")));
      if (f.description) card.appendChild(el("p", {}, f.description));
      const ev = el("ul", { class: "evidence" });
      f.evidence.forEach((e, ei) => {
        const where = [e.name, e.track_path, e.ts_ns !== null ? `at ${formatDuration(e.ts_ns)}` : "", e.dur_ns !== null ? `for ${formatDuration(e.dur_ns)}` : ""]
          .filter((x) => x)
          .join(" · ");
        const li = el("li", {}, where + (e.note ? ` — ${e.note}` : ""));
        if (e.slice !== null || e.ts_ns !== null) {
          li.appendChild(document.createTextNode(" "));
          li.appendChild(button("show in timeline", () => this.onEvidence(fi, ei), "link evidence-link"));
        } else {
          li.appendChild(el("span", { class: "note" }, " (not found in this trace)"));
        }
        ev.appendChild(li);
      });
      card.appendChild(ev);
      sec.appendChild(card);
    });
    return sec;
  }

  private stepBars(): HTMLElement | null {
    const h = this.data.header;
    let categories: string[];
    let rows: { name: string; values: number[] }[];
    let title: string;
    if (h.step_breakdown && h.step_breakdown.steps.length) {
      categories = h.step_breakdown.categories;
      rows = h.step_breakdown.steps;
      title = "Device time per step";
    } else if (h.steps.length) {
      categories = ["step duration"];
      rows = h.steps.map((s) => ({ name: s.name, values: [s.dur_ns] }));
      title = "Step durations";
    } else {
      return null;
    }
    const width = Math.max(600, Math.min(1400, (this.element.clientWidth || 1000) - 40));
    const height = 280;
    const m = { top: 10, right: 180, bottom: 60, left: 70 };
    const x = scaleBand<string>().domain(rows.map((_, i) => String(i))).range([m.left, width - m.right]).padding(0.15);
    const max = Math.max(1, ...rows.map((r) => r.values.reduce((a, b) => a + b, 0)));
    const y = scaleLinear().domain([0, max]).nice().range([height - m.bottom, m.top]);
    const color = scaleOrdinal<string, string>().domain(categories).range(CATEGORY_COLORS);
    const svg = select(document.createElementNS("http://www.w3.org/2000/svg", "svg"))
      .attr("width", width).attr("height", height).attr("class", "step-bars");
    rows.forEach((r, i) => {
      let acc = 0;
      const g = svg.append("g");
      r.values.forEach((v, c) => {
        g.append("rect")
          .attr("x", x(String(i)) ?? 0).attr("width", x.bandwidth())
          .attr("y", y(acc + v)).attr("height", Math.max(0, y(acc) - y(acc + v)))
          .attr("fill", color(categories[c]))
          .append("title").text(`${r.name}: ${categories[c]} ${formatDuration(v)}`);
        acc += v;
      });
    });
    const every = Math.max(1, Math.ceil(rows.length / 30));
    svg.append("g").attr("transform", `translate(0,${height - m.bottom})`)
      .call(axisBottom(x).tickValues(x.domain().filter((_, i) => i % every === 0)).tickFormat((i) => rows[Number(i)].name))
      .selectAll("text").attr("transform", "rotate(-35)").style("text-anchor", "end");
    svg.append("g").attr("transform", `translate(${m.left},0)`).call(axisLeft(y).ticks(6).tickFormat((v) => formatDuration(Number(v))));
    categories.forEach((c, i) => {
      const g = svg.append("g").attr("transform", `translate(${width - m.right + 16},${m.top + i * 18})`);
      g.append("rect").attr("width", 12).attr("height", 12).attr("fill", color(c));
      g.append("text").attr("x", 18).attr("y", 10).text(c);
    });
    return el("section", {}, el("h3", {}, title), svg.node() as SVGSVGElement);
  }
}
