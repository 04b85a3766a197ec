// Flows by slice: which flows leave from or arrive at a slice, found by binary search over the
// flow table sorted once by each end.

import type { Flows } from "../data/trace_data";

export class FlowIndex {
  private readonly byOut: Uint32Array;
  private readonly byIn: Uint32Array;

  constructor(private readonly flows: Flows) {
    const order = (col: Uint32Array) => {
      const o = new Uint32Array(flows.n);
      for (let i = 0; i < flows.n; i++) o[i] = i;
      return o.sort((a, b) => col[a] - col[b]);
    };
    this.byOut = order(flows.out);
    this.byIn = order(flows.in);
  }

  // Flow rows that leave from or arrive at `slice`.
  of(slice: number): number[] {
    const out: number[] = [];
    const scan = (order: Uint32Array, col: Uint32Array) => {
      let lo = 0;
      let hi = order.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (col[order[mid]] < slice) lo = mid + 1;
        else hi = mid;
      }
      for (let k = lo; k < order.length && col[order[k]] === slice; k++) out.push(order[k]);
    };
    scan(this.byOut, this.flows.out);
    scan(this.byIn, this.flows.in);
    return out;
  }
}
