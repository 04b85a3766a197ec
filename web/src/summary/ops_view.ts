// Sortable tables of the top host operators and device kernels, from the operator statistics
// of src/analysis (op_stats.h). Click a header to sort; click a name to search for it in the
// timeline.

import type { OpStat, TraceData } from "../data/trace_data";
import { button, clear, el } from "../util/dom";
import { formatCount, formatDuration, formatPercent } from "../util/format";

type Key = "name" | "count" | "total_ns" | "self_ns" | "mean_ns" | "p50_ns" | "p99_ns";
const COLUMNS: [Key, string][] = [
  ["name", "Name"], ["count", "Count"], ["total_ns", "Total"], ["self_ns", "Self"],
  ["mean_ns", "Mean"], ["p50_ns", "p50"], ["p99_ns", "p99"],
];

export class OpsView {
  readonly element: HTMLElement;
  private rendered = false;

  onFind: (name: string) => void = () => {};

  constructor(private readonly data: TraceData) {
    this.element = el("div", { class: "ops" });
  }

  setActive(active: boolean): void {
    if (active && !this.rendered) this.render();
  }

  private render(): void {
    this.rendered = true;
    const ops = this.data.header.op_stats;
    const device = ops.filter((o) => o.device);
    const host = ops.filter((o) => !o.device);
    if (ops.length === 0) {
      this.element.appendChild(el("p", { class: "placeholder" }, "No operator statistics for this trace."));
    }
    if (device.length) this.element.appendChild(this.table("Device kernels", device));
    if (host.length) this.element.appendChild(this.table("Host operators", host));
  }

  private table(title: string, rows: OpStat[]): HTMLElement {
    const total = rows.reduce((a, r) => a + r.total_ns, 0) || 1;
    const box = el("section", {});
    const table = el("table", { class: "grid sortable", "data-title": title });
    let key: Key = "total_ns";
    let desc = true;
    const fill = () => {
      clear(table);
      const head = el("tr", {});
      for (const [k, label] of COLUMNS) {
        const th = el("th", { class: k === "name" ? "" : "num", "data-key": k }, label + (k === key ? (desc ? " ▼" : " ▲") : ""));
        th.addEventListener("click", () => {
          desc = k === key ? !desc : k !== "name";
          key = k;
          fill();
        });
        head.appendChild(th);
      }
      head.appendChild(el("th", { class: "num" }, "% of total"));
      table.appendChild(head);
      const sorted = rows.slice().sort((a, b) => {
        const va = a[key];
        const vb = b[key];
        const c = typeof va === "string" ? va.localeCompare(vb as string) : (va as number) - (vb as number);
        return desc ? -c : c;
      });
      for (const r of sorted) {
        const tr = el("tr", {});
        tr.appendChild(el("td", { class: "name" }, button(r.name, () => this.onFind(r.name), "link")));
        tr.appendChild(el("td", { class: "num" }, formatCount(r.count)));
        for (const k of ["total_ns", "self_ns", "mean_ns", "p50_ns", "p99_ns"] as const) {
          tr.appendChild(el("td", { class: "num" }, formatDuration(r[k])));
        }
        tr.appendChild(el("td", { class: "num" }, formatPercent(r.total_ns / total)));
        table.appendChild(tr);
      }
    };
    fill();
    box.appendChild(el("h3", {}, `${title} (${rows.length})`));
    box.appendChild(table);
    return box;
  }
}
