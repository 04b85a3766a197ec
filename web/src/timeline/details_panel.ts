// The panel under the timeline that describes the selected slice: name, category, times, self
// time, track, shapes, args, flows and the findings that cite it. Text only.

import { argValueText, FLOW_KIND_NAMES, type TraceData } from "../data/trace_data";
import { button, clear, el } from "../util/dom";
import { formatDuration } from "../util/format";
import type { TimelineView } from "./timeline_view";
import { trackPathLabel } from "./track_layout";

const SHAPE_KEYS = ["Input Dims", "Input Shapes", "input_shapes", "shapes", "Input type", "Input Strides"];

export class DetailsPanel {
  readonly element: HTMLElement;

  constructor(private readonly data: TraceData, private readonly timeline: TimelineView) {
    this.element = el("div", { class: "details", "aria-live": "polite" });
    this.show(-1);
  }

  selfTime(slice: number): number {
    const s = this.data.slices;
    const t = s.track[slice];
    let self = s.dur[slice];
    const end = this.data.tracks.sliceBegin[t + 1];
    for (let i = slice + 1; i < end && s.ts[i] < s.ts[slice] + s.dur[slice]; i++) {
      if (s.parent[i] === slice) self -= Math.min(s.dur[i], s.ts[slice] + s.dur[slice] - s.ts[i]);
    }
    return Math.max(0, self);
  }

  show(slice: number): void {
    const e = this.element;
    clear(e);
    if (slice < 0) {
      e.appendChild(el("div", { class: "placeholder" }, "Click a slice to see its details."));
      return;
    }
    const d = this.data;
    const s = d.slices;
    const name = d.strings[s.name[slice]];
    const rows: [string, string][] = [
      ["Name", name],
      ["Category", d.strings[s.cat[slice]] || "—"],
      ["Start", `${formatDuration(s.ts[slice])} from trace start`],
      ["Duration", s.unfinished.has(slice) ? `${formatDuration(s.dur[slice])} (did not end)` : formatDuration(s.dur[slice])],
      ["Self time", formatDuration(this.selfTime(slice))],
      ["Track", trackPathLabel(d, s.track[slice])],
      ["Depth", String(s.depth[slice])],
    ];
    const argRows: [string, string][] = [];
    const set = s.args[slice];
    if (set >= 0) {
      for (let i = d.args.setBegin[set]; i < d.args.setBegin[set + 1]; i++) {
        argRows.push([d.strings[d.args.key[i]], argValueText(d, i)]);
      }
    }
    for (const k of SHAPE_KEYS) {
      const a = argRows.find((r) => r[0] === k);
      if (a && (k === "Input Dims" || k === "Input Shapes" || k === "input_shapes" || k === "shapes")) {
        rows.push(["Shapes", a[1]]);
        break;
      }
    }

    const table = el("table", { class: "kv" });
    for (const [k, v] of rows) {
      table.appendChild(el("tr", {}, el("th", {}, k), el("td", { "data-field": k.toLowerCase().replace(/ /g, "_") }, v)));
    }
    const left = el("div", { class: "details-col" }, el("h3", { class: "details-title" }, name), table);

    const right = el("div", { class: "details-col" });
    if (argRows.length) {
      const at = el("table", { class: "kv args" });
      for (const [k, v] of argRows) at.appendChild(el("tr", {}, el("th", {}, k), el("td", {}, v)));
      right.appendChild(el("h4", {}, `Args (${argRows.length})`));
      right.appendChild(at);
    }
    const flows = this.timeline.flowsOf(slice);
    if (flows.length) {
      right.appendChild(el("h4", {}, `Flows (${flows.length})`));
      const list = el("ul", { class: "flows" });
      for (const f of flows.slice(0, 50)) {
        const out = d.flows.out[f] === slice;
        const other = out ? d.flows.in[f] : d.flows.out[f];
        const label = `${out ? "→" : "←"} ${FLOW_KIND_NAMES[d.flows.kind[f]] ?? "flow"}: ${d.strings[s.name[other]]} (${formatDuration(s.dur[other])})`;
        list.appendChild(el("li", {}, button(label, () => this.timeline.select(other, true), "link")));
      }
      right.appendChild(list);
    }
    const cited = this.timeline.findingsFor(slice);
    if (cited.length) {
      right.appendChild(el("h4", {}, "Findings citing this slice"));
      const list = el("ul", { class: "flows" });
      for (const c of cited) list.appendChild(el("li", {}, `${c.finding.category}: ${c.finding.title}`));
      right.appendChild(list);
    }
    e.appendChild(left);
    e.appendChild(right);
  }
}
