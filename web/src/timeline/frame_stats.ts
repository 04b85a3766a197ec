// Frame statistics of the timeline, read by the panning benchmark (web/test/pan_bench.mjs): how
// many frames were drawn while recording, and how long each draw took.
//
//   const rec = new FrameStatsRecorder();   // starts recording
//   rec.record(drawMs);                     // once per frame
//   const stats = rec.finish();             // { frames, fps, p95_draw_ms, ... }

export interface FrameStats {
  frames: number;
  elapsed_ms: number;
  fps: number;
  mean_draw_ms: number;
  p95_draw_ms: number;
  max_draw_ms: number;
}

export class FrameStatsRecorder {
  private readonly start = performance.now();
  private readonly draws: number[] = [];

  record(drawMs: number): void {
    this.draws.push(drawMs);
  }

  finish(): FrameStats {
    const elapsed = performance.now() - this.start;
    const sorted = this.draws.slice().sort((a, b) => a - b);
    const n = sorted.length;
    return {
      frames: n,
      elapsed_ms: elapsed,
      fps: (n * 1000) / Math.max(1, elapsed),
      mean_draw_ms: sorted.reduce((a, b) => a + b, 0) / Math.max(1, n),
      p95_draw_ms: n ? sorted[Math.min(n - 1, Math.floor(n * 0.95))] : 0,
      max_draw_ms: n ? sorted[n - 1] : 0,
    };
  }
}
