// The timeline's frame around the slices: the track labels (gutter), the time axis with search
// hits and finding markers, and the vertical scrollbar.

import { FINDING_COLORS } from "../util/color";
import { formatDuration, formatTimeTick } from "../util/format";
import { LANE_HEIGHT, type TrackLayout } from "./track_layout";

export const GUTTER = 230;
export const AXIS_HEIGHT = 24;
export const MARKER_HEIGHT = 16;
export const TOP = AXIS_HEIGHT + MARKER_HEIGHT;
export const CHAR_WIDTH = 6.2; // average glyph width of the 11px label font, for truncation

export interface Marker {
  t: number;
  finding: number;
  evidence: number;
}

// What the frame needs to know about the view.
export interface FrameView {
  width: number;
  height: number;
  viewStart: number;
  viewEnd: number;
  scrollY: number;
  timeToX: (t: number) => number;
}

export function paintGutter(ctx: CanvasRenderingContext2D, f: FrameView, layout: TrackLayout): void {
  const h = f.height;
  ctx.fillStyle = "#fafbfc";
  ctx.fillRect(0, TOP, GUTTER, h - TOP);
  ctx.strokeStyle = "#d0d4da";
  ctx.beginPath();
  ctx.moveTo(GUTTER - 0.5, TOP);
  ctx.lineTo(GUTTER - 0.5, h);
  ctx.stroke();
  const rows = layout.rows;
  ctx.save();
  ctx.beginPath();
  ctx.rect(0, TOP, GUTTER - 1, h - TOP);
  ctx.clip();
  for (let r = layout.firstVisible(f.scrollY); r < rows.length; r++) {
    const row = rows[r];
    const y = TOP + row.y - f.scrollY;
    if (y > h) break;
    const maxChars = Math.floor((GUTTER - 24 - row.indent * 12) / CHAR_WIDTH);
    const label = row.label.length > maxChars ? row.label.slice(0, maxChars - 1) + "…" : row.label;
    if (row.kind === "header") {
      ctx.fillStyle = "#e4e8ee";
      ctx.fillRect(0, y, GUTTER - 1, row.height);
      ctx.fillStyle = "#1d2733";
      ctx.font = "bold 11px system-ui, sans-serif";
      const g = layout.groups[row.group];
      ctx.fillText(`${g.collapsed ? "▸" : "▾"} ${label}`, 6, y + row.height / 2);
      ctx.font = "11px system-ui, sans-serif";
    } else {
      ctx.fillStyle = "#333";
      ctx.fillText(label, 8 + row.indent * 12, y + Math.min(row.height, LANE_HEIGHT) / 2);
    }
  }
  ctx.restore();
}

export function paintAxis(
ctx: CanvasRenderingContext2D, f: FrameView, step: number, matchTimes: number[], markers: Marker[],
): void {
  const w = f.width;
  ctx.fillStyle = "#f7f8fa";
  ctx.fillRect(0, 0, w, TOP);
  ctx.strokeStyle = "#c8ccd2";
  ctx.beginPath();
  ctx.moveTo(0, TOP - 0.5);
  ctx.lineTo(w, TOP - 0.5);
  ctx.moveTo(0, AXIS_HEIGHT - 0.5);
  ctx.lineTo(w, AXIS_HEIGHT - 0.5);
  ctx.stroke();
  const span = f.viewEnd - f.viewStart;
      ctx.fillStyle = "#333";
  ctx.strokeStyle = "#888";
  ctx.beginPath();
  for (let t = Math.ceil(f.viewStart / step) * step; t < f.viewEnd; t += step) {
    const x = Math.round(f.timeToX(t)) + 0.5;
    if (x < GUTTER) continue;
    ctx.moveTo(x, AXIS_HEIGHT - 6);
    ctx.lineTo(x, AXIS_HEIGHT);
    ctx.fillText(formatTimeTick(t, step), x + 3, AXIS_HEIGHT / 2 - 1);
  }
  ctx.stroke();
  ctx.fillStyle = "#555";
  ctx.fillText(`span ${formatDuration(span)}`, 8, AXIS_HEIGHT / 2);
  ctx.fillText(`findings (${markers.length})`, 8, AXIS_HEIGHT + MARKER_HEIGHT / 2);

  // Search hits as ticks along the axis.
  if (matchTimes.length > 0) {
    ctx.fillStyle = "rgba(230,0,230,0.7)";
    let lastX = -1;
    for (const t of matchTimes) {
      const x = Math.floor(f.timeToX(t));
      if (x < GUTTER || x > w || x === lastX) continue;
      ctx.fillRect(x, AXIS_HEIGHT - 4, 1, 4);
      lastX = x;
    }
  }
  // Finding markers.
  for (const m of markers) {
    const x = f.timeToX(m.t);
    if (x < GUTTER - 6 || x > w + 6) continue;
    ctx.fillStyle = FINDING_COLORS[m.finding % FINDING_COLORS.length];
    ctx.beginPath();
    ctx.moveTo(x, TOP - 2);
    ctx.lineTo(x - 5, AXIS_HEIGHT + 3);
    ctx.lineTo(x + 5, AXIS_HEIGHT + 3);
    ctx.closePath();
    ctx.fill();
  }
}

export function paintScrollbar(ctx: CanvasRenderingContext2D, f: FrameView, contentHeight: number): void {
  const viewH = f.height - TOP;
  const total = contentHeight;
  if (total <= viewH) return;
  const barH = Math.max(20, (viewH * viewH) / total);
  const y = TOP + (f.scrollY / (total - viewH + 20)) * (viewH - barH);
  ctx.fillStyle = "rgba(0,0,0,0.25)";
  ctx.fillRect(f.width - 6, y, 4, barH);
}

// Vertical grid lines at the axis ticks, over the slice area.
export function paintGridLines(ctx: CanvasRenderingContext2D, f: FrameView, step: number): void {
  ctx.strokeStyle = "rgba(0,0,0,0.07)";
  ctx.lineWidth = 1;
  ctx.beginPath();
  for (let t = Math.ceil(f.viewStart / step) * step; t < f.viewEnd; t += step) {
    const x = Math.round(f.timeToX(t)) + 0.5;
    ctx.moveTo(x, TOP);
    ctx.lineTo(x, f.height);
  }
  ctx.stroke();
}

// The finding marker within 7 px of x on the marker strip, the nearest one, if any.
export function markerNear(markers: Marker[], x: number, timeToX: (t: number) => number): Marker | undefined {
  let best: Marker | undefined;
  let bestD = 7;
  for (const m of markers) {
    const d = Math.abs(timeToX(m.t) - x);
    if (d < bestD) {
      best = m;
      bestD = d;
    }
  }
  return best;
}
