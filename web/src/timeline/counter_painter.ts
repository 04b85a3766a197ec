// Counter tracks as area charts: a step line through the values, at most a few vertices per
// pixel column (the highest value in a column is kept, so peaks survive any zoom).

import type { CounterSeries } from "../data/trace_data";

export function paintCounter(
  ctx: CanvasRenderingContext2D, c: CounterSeries, y: number, height: number,
  timeToX: (t: number) => number, left: number, right: number, endTime: number,
): void {
  if (c.ts.length === 0) return;
  const h = height - 4;
  const base = y + height - 2;
  const lo = Math.min(0, c.min);
  const range = c.max - lo || 1;
  const yOf = (v: number) => base - ((v - lo) / range) * h;
  // The last point at or before the left edge carries the level into view.
  let a = 0;
  let b = c.ts.length;
  while (a < b) {
    const mid = (a + b) >>> 1;
    if (timeToX(c.ts[mid]) <= left) a = mid + 1;
    else b = mid;
  }
  let k = Math.max(0, a - 1);
  ctx.fillStyle = "rgba(70,130,180,0.45)";
  ctx.strokeStyle = "rgb(70,130,180)";
  ctx.beginPath();
  let x = Math.max(left, timeToX(c.ts[k]));
  ctx.moveTo(x, base);
  let pxMax = c.value[k];
  let px = Math.floor(x);
  ctx.lineTo(x, yOf(pxMax));
  for (k = k + 1; k < c.ts.length; k++) {
    const nx = timeToX(c.ts[k]);
    if (Math.floor(nx) === px) {
      if (c.value[k] > pxMax) {
        pxMax = c.value[k];
        ctx.lineTo(nx, yOf(pxMax));
      }
      continue;
    }
    ctx.lineTo(nx, yOf(c.value[k - 1]));
    ctx.lineTo(nx, yOf(c.value[k]));
    pxMax = c.value[k];
    px = Math.floor(nx);
    x = nx;
    if (nx > right) break;
  }
  const endX = Math.min(right, timeToX(endTime));
  if (endX > x) ctx.lineTo(endX, yOf(c.value[Math.min(k, c.ts.length) - 1]));
  ctx.lineTo(Math.max(x, endX), base);
  ctx.closePath();
  ctx.fill();
  ctx.stroke();
}

// The counter's value at time t (the last sample at or before t), or null before its first sample.
export function counterValueAt(c: CounterSeries, t: number): number | null {
  let lo = 0;
  let hi = c.ts.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (c.ts[mid] <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo === 0 ? null : c.value[lo - 1];
}
