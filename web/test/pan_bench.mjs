// Panning frame rate of the performance map's timeline in a real browser (Debian chromium via
// playwright-core). Prints one JSON object.
//
//   node web/test/pan_bench.mjs PAGE.html [seconds]
//
// Scenarios: the whole trace in view (every lane at its densest, the level-of-detail path), and
// a 1/50 window; each panned with a held 'D' key and with mouse drags. fps counts frames the page
// drew per second of wall time (rAF-paced, so 60 is the ceiling); draw_ms is the time one frame's
// drawing took, which says how much headroom there is under that ceiling.
import { chromium } from "playwright-core";
import path from "node:path";

const [file, secondsArg] = process.argv.slice(2);
const seconds = Number(secondsArg ?? 3);
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"],
});
const page = await (await browser.newContext({ viewport: { width: 1600, height: 1000 } })).newPage();
const errors = [];
page.on("pageerror", (e) => errors.push(String(e)));
const t0 = Date.now();
await page.goto("file://" + path.resolve(file));
await page.waitForFunction(() => document.body.dataset.ready !== undefined, null, { timeout: 300000 });
const loadMs = Date.now() - t0;
const info = await page.evaluate(() => ({
  ready: document.body.dataset.ready,
  slices: window.cprof?.data.slices.n,
  tracks: Number(document.querySelector(".timeline")?.dataset.trackCount),
  heapMB: performance.memory ? performance.memory.usedJSHeapSize / 2 ** 20 : null,
}));

async function measure(label, setup, action) {
  await page.evaluate(setup);
  await page.waitForTimeout(300);
  await page.evaluate(() => window.cprof.app.timeline.startFrameStats());
  await action();
  const stats = await page.evaluate(() => window.cprof.app.timeline.stopFrameStats());
  return { scenario: label, ...Object.fromEntries(Object.entries(stats).map(([k, v]) => [k, Math.round(v * 100) / 100])) };
}

const full = () => {
  const h = window.cprof.data.header;
  window.cprof.app.timeline.setRange(h.range_start_ns, h.range_end_ns);
};
const fiftieth = () => {
  const h = window.cprof.data.header;
  const span = (h.range_end_ns - h.range_start_ns) / 50;
  window.cprof.app.timeline.setRange(h.range_start_ns + span * 10, h.range_start_ns + span * 11);
};
const holdD = async () => {
  await page.mouse.move(900, 500);
  await page.keyboard.down("d");
  await page.waitForTimeout(seconds * 1000);
  await page.keyboard.up("d");
};
const drag = async () => {
  const box = await page.locator("canvas.timeline-canvas").boundingBox();
  const y = box.y + box.height / 2;
  const end = Date.now() + seconds * 1000;
  while (Date.now() < end) {
    await page.mouse.move(box.x + box.width - 100, y);
    await page.mouse.down();
    for (let i = 1; i <= 20; i++) await page.mouse.move(box.x + box.width - 100 - i * 50, y, { steps: 2 });
    await page.mouse.up();
  }
};

const results = [];
results.push(await measure("whole trace, key D", full, holdD));
results.push(await measure("whole trace, mouse drag", full, drag));
results.push(await measure("1/50 of the trace, key D", fiftieth, holdD));
results.push(await measure("1/50 of the trace, mouse drag", fiftieth, drag));
console.log(JSON.stringify({ page: file, load_ms: loadMs, ...info, errors, results }, null, 1));
await browser.close();
