// Paints slice lanes with level of detail into a pixel buffer.
//
// Measured in Chromium without a GPU, a canvas frame's cost is the rasterization of what was drawn
// (tens of thousands of rectangle paths took ~100 ms per frame), not the drawing calls. So lanes
// are painted as pixel spans: one row buffer per lane (TypedArray.fill per slice), copied into
// the lane's rows of an ImageData, which is put on the canvas once per frame. The cost is
// bounded by the canvas's pixel count. Labels are drawn on top with fillText.

import type { TraceData } from "../data/trace_data";
import type { Lanes } from "./lanes";

const PALETTE_SIZE = 48;
export const FADED = PALETTE_SIZE; // palette index of slices that do not match the search

// A fixed palette (golden-angle hues, three lightness bands) that names hash into.
export const PALETTE: string[] = (() => {
  const out: string[] = [];
  for (let i = 0; i < PALETTE_SIZE; i++) {
    const hue = Math.round((i * 137.508) % 360);
    const sat = 50 + (i % 3) * 8;
    const light = 58 + ((i >> 1) % 3) * 6;
    out.push(`hsl(${hue},${sat}%,${light}%)`);
  }
  out.push("#dddddd");
  return out;
})();

function hashString(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 16777619);
  }
  return h >>> 0;
}

// Palette index per interned name, computed once per name.
export class NamePalette {
  private readonly cache: Uint8Array;

  constructor(private readonly strings: string[]) {
    this.cache = new Uint8Array(strings.length).fill(255);
  }

  index(nameId: number): number {
    let c = this.cache[nameId];
    if (c === 255) {
      c = hashString(this.strings[nameId] ?? "") % PALETTE_SIZE;
      this.cache[nameId] = c;
    }
    return c;
  }

  color(nameId: number): string {
    return PALETTE[this.index(nameId)];
  }
}

export interface Label {
  x: number;
  y: number;
  text: string;
  faded: boolean;
}

// Palette entries as 0xAABBGGRR (ImageData's byte order on little-endian machines).
function cssToAbgr(css: string): number {
  let r = 0, g = 0, b = 0;
  const hsl = /hsl\((\d+),(\d+)%,(\d+)%\)/.exec(css);
  if (hsl) {
    const h = Number(hsl[1]) / 360, sat = Number(hsl[2]) / 100, l = Number(hsl[3]) / 100;
    const q = l < 0.5 ? l * (1 + sat) : l + sat - l * sat;
    const p = 2 * l - q;
    const hue = (t: number) => {
      t = t < 0 ? t + 1 : t > 1 ? t - 1 : t;
      return t < 1 / 6 ? p + (q - p) * 6 * t : t < 1 / 2 ? q : t < 2 / 3 ? p + (q - p) * (2 / 3 - t) * 6 : p;
    };
    [r, g, b] = [hue(h + 1 / 3), hue(h), hue(h - 1 / 3)].map((v) => Math.round(v * 255));
  } else {
    const n = parseInt(css.slice(1), 16);
    [r, g, b] = [(n >> 16) & 255, (n >> 8) & 255, n & 255];
  }
  return ((255 << 24) | (b << 16) | (g << 8) | r) >>> 0;
}
export const PALETTE_ABGR = Uint32Array.from(PALETTE, cssToAbgr);
export const WHITE_ABGR = 0xffffffff;

// The slice area as pixels, in device pixels; callers pass CSS pixels relative to the area.
export class LaneRaster {
  img: ImageData | null = null;
  private buf = new Uint32Array(0);
  private row = new Uint32Array(0);
  private width = 0;
  private height = 0;
  private dpr = 1;
  readonly labels: Label[] = [];

  begin(cssWidth: number, cssHeight: number, dpr: number): void {
    const w = Math.max(1, Math.floor(cssWidth * dpr));
    const h = Math.max(1, Math.floor(cssHeight * dpr));
    if (!this.img || this.img.width !== w || this.img.height !== h) {
      this.img = new ImageData(w, h);
      this.buf = new Uint32Array(this.img.data.buffer);
      this.row = new Uint32Array(w);
    }
    this.width = w;
    this.height = h;
    this.dpr = dpr;
    this.buf.fill(WHITE_ABGR);
    this.labels.length = 0;
  }

  // Fills whole rows [y, y + h) (CSS px) with one colour.
  fillRows(y: number, h: number, color: number): void {
    const a = Math.max(0, Math.round(y * this.dpr));
    const b = Math.min(this.height, Math.round((y + h) * this.dpr));
    if (b > a) this.buf.fill(color, a * this.width, b * this.width);
  }

  startLane(): void {
    this.row.fill(WHITE_ABGR);
  }

  // Paints [x0, x1) (CSS px) of the current lane.
  span(x0: number, x1: number, color: number): void {
    const a = Math.max(0, Math.round(x0 * this.dpr));
    const b = Math.min(this.width, Math.round(x1 * this.dpr));
    if (b > a) this.row.fill(color, a, b);
  }

  // Copies the current lane into rows [y, y + h) (CSS px).
  commitLane(y: number, h: number): void {
    const a = Math.max(0, Math.round(y * this.dpr));
    const b = Math.min(this.height, Math.round((y + h) * this.dpr));
    for (let r = a; r < b; r++) this.buf.set(this.row, r * this.width);
  }
}

export interface LaneView {
  t0: number; // time at x = left
  t1: number; // time at x = right
  left: number; // x of the drawing area's left edge
  right: number; // x of its right edge
  top: number; // y of the raster's top edge
  charWidth: number;
}

// Paints one lane. Slices wider than a pixel are painted one by one (with a label when there is
// room); runs of sub-pixel slices become one mark per pixel column and are skipped with a
// binary search, so the cost per lane is bounded by the width in pixels, not the slice count.
export function paintLane(
  data: TraceData, lanes: Lanes, palette: NamePalette, lane: number, y: number, h: number,
  v: LaneView, match: Uint8Array | null, out: LaneRaster,
): void {
  const s = data.slices;
  const strings = data.strings;
  const starts = lanes.laneStarts;
  const slices = lanes.laneSlices;
  const lo = lanes.laneBegin[lane];
  const hi = lanes.laneBegin[lane + 1];
  const { t0, t1, left, right } = v;
  const colors = PALETTE_ABGR;
  out.startLane();
  const scale = (right - left) / (t1 - t0);
  let k = lanes.lowerBound(t0 - lanes.laneMaxDur[lane], lo, hi);
  while (k < hi) {
    const st = starts[k];
    if (st >= t1) break;
    const i = slices[k];
    const x0 = left + (st - t0) * scale;
    const x1 = x0 + s.dur[i] * scale;
    if (x1 < left) {
      k++;
      continue;
    }
    const faded = match !== null && match[s.name[i]] === 0;
    const color = faded ? FADED : palette.index(s.name[i]);
    if (x1 - x0 >= 1) {
      const a = Math.round(Math.max(x0, left - 1));
      const b = Math.round(Math.min(x1, right + 1));
      const w = Math.max(1, b - a - (b - a > 3 ? 1 : 0));
      out.span(a - left, a - left + w, colors[color]);
      const room = w - 6;
      if (room > 3 * v.charWidth) {
        const name = strings[s.name[i]];
        const chars = Math.floor(room / v.charWidth);
        const text = name.length > chars ? name.slice(0, Math.max(1, chars - 1)) + "…" : name;
        out.labels.push({ x: Math.max(a, left) + 3, y: y + h / 2 + 0.5, text, faded });
      }
      k++;
      continue;
    }
    // Sub-pixel: everything that starts in this pixel column becomes one mark.
    const px = Math.floor(x0);
    const tNext = t0 + (px + 1 - left) / scale;
    const kk = lanes.lowerBound(tNext, k + 1, hi);
    const last = kk - 1;
    if (last === k) {
      out.span(px - left, px - left + 1, colors[color]);
      k = kk;
      continue;
    }
    // Same-depth slices do not overlap, so only the last one can reach past this column.
    const li = slices[last];
    const lx0 = left + (starts[last] - t0) * scale;
    const lx1 = lx0 + s.dur[li] * scale;
    if (lx1 - lx0 >= 1) {
      out.span(px - left, px - left + 1, colors[color]);
      k = last; // wide: painted on its own next
    } else {
      out.span(px - left, Math.max(px + 1, Math.ceil(lx1)) - left, colors[color]);
      k = kk;
    }
  }
  out.commitLane(y - v.top, h);
}
