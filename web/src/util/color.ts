// Stable colours: the same name gets the same colour in every view.

const cache = new Map<number, string>();

function hashString(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 16777619);
  }
  return h >>> 0;
}

// Colour of a slice by its interned name id (strings table of the page).
export function colorForName(id: number, strings: string[]): string {
  let c = cache.get(id);
  if (c === undefined) {
    const h = hashString(strings[id] ?? "");
    const hue = h % 360;
    const sat = 45 + ((h >>> 9) % 25);
    const light = 55 + ((h >>> 17) % 15);
    c = `hsl(${hue},${sat}%,${light}%)`;
    cache.set(id, c);
  }
  return c;
}

export function colorForText(s: string): string {
  const h = hashString(s);
  return `hsl(${h % 360},55%,60%)`;
}

export const FINDING_COLORS = ["#d62728", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22"];

// Tableau 10, for categories (the same palette d3-scale-chromatic calls schemeTableau10).
export const CATEGORY_COLORS = [
  "#4e79a7", "#f28e2c", "#e15759", "#76b7b2", "#59a14f", "#edc949", "#af7aa1", "#ff9da7", "#9c755f", "#bab0ab",
];

// ColorBrewer YlOrRd (9 classes), linearly interpolated; v in [0, 1].
const YL_OR_RD = [
  [255, 255, 204], [255, 237, 160], [254, 217, 118], [254, 178, 76], [253, 141, 60],
  [252, 78, 42], [227, 26, 28], [189, 0, 38], [128, 0, 38],
];
export function heatColor(v: number): string {
  const x = Math.min(1, Math.max(0, v)) * (YL_OR_RD.length - 1);
  const i = Math.min(YL_OR_RD.length - 2, Math.floor(x));
  const f = x - i;
  const a = YL_OR_RD[i];
  const b = YL_OR_RD[i + 1];
  return `rgb(${Math.round(a[0] + (b[0] - a[0]) * f)},${Math.round(a[1] + (b[1] - a[1]) * f)},${Math.round(a[2] + (b[2] - a[2]) * f)})`;
}
