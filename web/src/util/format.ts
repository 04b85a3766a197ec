// Number and time formatting for labels, tables and tooltips.

export function formatDuration(ns: number): string {
  const a = Math.abs(ns);
  if (a >= 1e9) return `${trim(ns / 1e9)} s`;
  if (a >= 1e6) return `${trim(ns / 1e6)} ms`;
  if (a >= 1e3) return `${trim(ns / 1e3)} us`;
  return `${Math.round(ns)} ns`;
}

function trim(v: number): string {
  const a = Math.abs(v);
  const digits = a >= 100 ? 1 : a >= 10 ? 2 : 3;
  return v.toFixed(digits).replace(/\.?0+$/, "");
}

// A tick label: a time offset from the trace start, in the unit of the offset's magnitude, with as
// many decimals as the tick step needs (37.6 ms, 37.6002 ms, 1.25 s).
export function formatTimeTick(ns: number, step: number): string {
  const a = Math.max(Math.abs(ns), step);
  const [scale, unit] = a >= 1e9 ? [1e9, "s"] : a >= 1e6 ? [1e6, "ms"] : a >= 1e3 ? [1e3, "us"] : [1, "ns"];
  const decimals = Math.min(9, Math.max(0, Math.ceil(-Math.log10(step / scale) - 1e-9)));
  return `${(ns / scale).toFixed(decimals)} ${unit}`;
}

// Trace strings may hold bidirectional overrides, zero-width and control characters that would
// make a label read differently from what it is; they are shown as visible escapes instead.
const INVISIBLE = /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb]/g;
export function visibleText(s: string): string {
  return s.replace(INVISIBLE, (c) => `⟨U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}⟩`);
}

export function formatBytes(b: number): string {
  const a = Math.abs(b);
  if (a >= 2 ** 30) return `${(b / 2 ** 30).toFixed(2)} GiB`;
  if (a >= 2 ** 20) return `${(b / 2 ** 20).toFixed(2)} MiB`;
  if (a >= 2 ** 10) return `${(b / 2 ** 10).toFixed(1)} KiB`;
  return `${b} B`;
}

export function formatPercent(f: number): string {
  return `${(f * 100).toFixed(f < 0.1 ? 2 : 1)}%`;
}

export function formatCount(n: number): string {
  return n.toLocaleString("en-US");
}

// A "nice" tick step (1, 2, 5 x 10^k) so that `span` holds about `count` ticks.
export function niceStep(span: number, count: number): number {
  const raw = span / Math.max(1, count);
  const p = Math.pow(10, Math.floor(Math.log10(raw)));
  const m = raw / p;
  return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
}
