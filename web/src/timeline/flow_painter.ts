// Flow arrows on the timeline: which flows to draw in the visible window, and how (a curve from
// the end of the source slice to the start of the destination, with an arrow head).
//
//   const list = showAll ? flowsInView(data, viewStart, viewEnd) : [];
//   paintFlows(ctx, data, list.concat(flowsOfSelection), selected, (slice, isSource) => point);

import type { TraceData } from "../data/trace_data";

export interface Point {
  x: number;
  y: number;
}

// Flows with either end overlapping [start, end], at most `limit` of them (in flow order).
export function flowsInView(data: TraceData, start: number, end: number, limit = 5000): number[] {
  const f = data.flows;
  const s = data.slices;
  const inView = (x: number) => s.ts[x] <= end && s.ts[x] + s.dur[x] >= start;
  const list: number[] = [];
  for (let i = 0; i < f.n && list.length < limit; i++) {
    if (inView(f.out[i]) || inView(f.in[i])) list.push(i);
  }
  return list;
}

// Draws the flows in `list`. `anchor(slice, isSource)` places an end on the canvas (null: its track
// is not shown). Flows that touch `selected` are drawn red, the others grey.
export function paintFlows(
  ctx: CanvasRenderingContext2D,
  data: TraceData,
  list: number[],
  selected: number,
  anchor: (slice: number, isSource: boolean) => Point | null,
): void {
  const f = data.flows;
  ctx.lineWidth = 1.2;
  for (const i of list) {
    const a = anchor(f.out[i], true);
    const b = anchor(f.in[i], false);
    if (!a || !b) continue;
    const hot = f.out[i] === selected || f.in[i] === selected;
    ctx.strokeStyle = hot ? "#d62728" : "rgba(60,60,60,0.55)";
    ctx.fillStyle = ctx.strokeStyle;
    ctx.beginPath();
    ctx.moveTo(a.x, a.y);
    const mx = (a.x + b.x) / 2;
    ctx.bezierCurveTo(mx, a.y, mx, b.y, b.x, b.y);
    ctx.stroke();
    ctx.beginPath();
    ctx.moveTo(b.x, b.y);
    ctx.lineTo(b.x - 6, b.y - 3.5);
    ctx.lineTo(b.x - 6, b.y + 3.5);
    ctx.closePath();
    ctx.fill();
  }
}
