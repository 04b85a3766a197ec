// Browser tests of the performance map (ctest label `browser`): Debian's chromium driven by
// playwright-core opens pages made by `cann-profiler visualize` from disk and checks that they
// load with no console error and no network request, show the right tracks, select and search
// slices, render the flame graph and heatmaps, jump from a finding to its evidence, and keep
// hostile trace strings inert; and `tune`'s report renders its convergence plot. Screenshots of
// every view land in --artifacts.
//
//   node web/test/browser_test.mjs --cli build/cann-profiler --work build/browser_tests \
//        [--fixtures ../shared/fixtures] [--only basic|xss|fixture|tune_report]
import { chromium } from "playwright-core";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync, readFileSync, existsSync, statSync } from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { basicTrace, xssTrace, EVIL_STRINGS } from "./gen_trace.mjs";

const args = process.argv.slice(2);
const opt = (name, def) => (args.includes(name) ? args[args.indexOf(name) + 1] : def);
const cli = path.resolve(opt("--cli", "build/cann-profiler"));
const work = path.resolve(opt("--work", "build/browser_tests"));
const fixtures = path.resolve(opt("--fixtures", "../shared/fixtures"));
const only = opt("--only", "");
const artifacts = path.resolve(opt("--artifacts", path.join(work, "screenshots")));
const chromePath = process.env.CHROMIUM ?? "/usr/bin/chromium";
mkdirSync(work, { recursive: true });
mkdirSync(artifacts, { recursive: true });

function visualize(trace, out, extra = []) {
  execFileSync(cli, ["visualize", "--trace", trace, "--output", out, ...extra], { stdio: ["ignore", "pipe", "inherit"] });
  return out;
}

// Opens a page from disk; collects console errors, page errors, dialogs and requests. A scripted
// page (the performance map) is waited for until it says it is ready.
async function openPage(browser, file, { scripted = true } = {}) {
  const context = await browser.newContext({ viewport: { width: 1500, height: 900 } });
  const page = await context.newPage();
  const problems = { console: [], errors: [], dialogs: [], requests: [] };
  const url = "file://" + file;
  page.on("console", (m) => {
    if (m.type() === "error" || m.type() === "warning") problems.console.push(`${m.type()}: ${m.text()}`);
  });
  page.on("pageerror", (e) => problems.errors.push(String(e)));
  page.on("dialog", async (d) => {
    problems.dialogs.push(d.message());
    await d.dismiss();
  });
  page.on("request", (r) => {
    if (r.url() !== url) problems.requests.push(r.url());
  });
  await page.goto(url);
  if (!scripted) return { page, context, problems };
  await page.waitForFunction(() => document.body.dataset.ready !== undefined, null, { timeout: 60000 });
  const ready = await page.evaluate(() => document.body.dataset.ready);
  assert.equal(ready, "1", `page did not load: ${await page.textContent("body")}`);
  return { page, context, problems };
}

function assertClean(problems, name) {
  assert.deepEqual(problems.errors, [], `${name}: page errors`);
  assert.deepEqual(problems.console, [], `${name}: console errors`);
  assert.deepEqual(problems.dialogs, [], `${name}: dialogs opened`);
  assert.deepEqual(problems.requests, [], `${name}: network requests`);
}

async function tab(page, view) {
  await page.click(`button.tab[data-view="${view}"]`);
  await page.waitForTimeout(400);
}

async function shot(page, name) {
  const file = path.join(artifacts, `${name}.png`);
  await page.screenshot({ path: file });
  return file;
}

// Index of the first slice with this exact name (the page's own data), or -1.
async function sliceNamed(page, name) {
  return page.evaluate((n) => {
    const d = window.cprof.data;
    for (let i = 0; i < d.slices.n; i++) if (d.strings[d.slices.name[i]] === n) return i;
    return -1;
  }, name);
}

// Clicks the slice where the timeline drew it, after revealing it.
async function clickSlice(page, index) {
  await page.evaluate((i) => window.cprof.app.timeline.reveal(i), index);
  await page.waitForTimeout(300);
  const pos = await page.evaluate((i) => window.cprof.app.timeline.slicePosition(i), index);
  assert.ok(pos, "slice is on screen after reveal");
  const box = await page.locator("canvas.timeline-canvas").boundingBox();
  await page.evaluate(() => window.cprof.app.timeline.select(-1, false));
  await page.mouse.click(box.x + pos.x, box.y + pos.y);
  await page.waitForTimeout(200);
  return page.evaluate(() => window.cprof.app.timeline.selectedSlice());
}

async function detailsField(page, field) {
  return page.textContent(`.details td[data-field="${field}"]`);
}

const tests = [];
const test = (name, fn) => tests.push({ name, fn });

test("basic", async (browser) => {
  const trace = path.join(work, "basic.json");
  writeFileSync(trace, JSON.stringify(basicTrace()));
  // A diagnosis whose evidence is the known slice (track path as Trace::TrackPath spells it is
  // unknown here, so the resolver's name + time fallback is exercised: ts is an offset).
  const yaml = path.join(work, "basic_diagnosis.yaml");
  writeFileSync(yaml, [
    "schema_version: 1",
    "findings:",
    "  - id: F1",
    "    category: host_device_sync",
    "    title: A known op blocks the step",
    "    confidence: 0.7",
    "    saving_ns: 850000",
    "    evidence:",
    "      events:",
    "        - {name: \"aten::special_known_op\", ts_ns: 38100000, dur_ns: 850000}",
    "",
  ].join("\n"));
  const html = visualize(trace, path.join(work, "basic.html"), ["--view", "timeline,flamegraph,heatmap,summary,ops,memory", "--diagnosis", yaml]);
  const { page, context, problems } = await openPage(browser, html);

  // Tracks: main thread, dataloader, streams 7 and 8, and the queue-depth counter.
  const tracks = Number(await page.getAttribute(".timeline", "data-track-count"));
  assert.equal(tracks, 5, "tracks shown");
  await shot(page, "basic_timeline");

  // Click the known slice: its name and duration show in the details panel.
  const known = await sliceNamed(page, "aten::special_known_op");
  assert.ok(known >= 0);
  const clicked = await clickSlice(page, known);
  assert.equal(clicked, known, "the click selected the known slice");
  assert.equal(await detailsField(page, "name"), "aten::special_known_op");
  assert.equal(await detailsField(page, "duration"), "850 us");
  assert.match(await detailsField(page, "shapes"), /7,\s*7/);
  await shot(page, "basic_timeline_selected");

  // Search finds it.
  await page.fill(".timeline input.search", "special_known");
  await page.keyboard.press("Enter");
  await page.waitForTimeout(200);
  assert.match(await page.textContent(".search-info"), /1 of 1/);
  assert.equal(await page.evaluate(() => window.cprof.app.timeline.selectedSlice()), known);

  // Flows: the launch's flow leads to its kernel.
  const launch = await sliceNamed(page, "cudaLaunchKernel");
  await page.evaluate((i) => window.cprof.app.timeline.select(i, true), launch);
  await page.waitForTimeout(200);
  assert.match(await page.textContent(".details ul.flows"), /ampere_sgemm_128x64_tn/);

  // W/A/S/D zoom and pan.
  await page.evaluate(() => window.cprof.app.timeline.setRange(0, 50e6));
  await page.focus("canvas.timeline-canvas"); // keys typed into the search box are not shortcuts
  await page.mouse.move(800, 400);
  const before = await page.evaluate(() => window.cprof.app.timeline.visibleRange());
  await page.keyboard.down("w");
  await page.waitForTimeout(300);
  await page.keyboard.up("w");
  await page.keyboard.down("d");
  await page.waitForTimeout(300);
  await page.keyboard.up("d");
  const after = await page.evaluate(() => window.cprof.app.timeline.visibleRange());
  assert.ok(after[1] - after[0] < (before[1] - before[0]) * 0.8, "W zooms in");

  // The finding marker jumps to its evidence.
  await page.evaluate(() => window.cprof.app.timeline.setRange(0, 50e6));
  await page.evaluate(() => window.cprof.app.timeline.select(-1, false));
  await page.waitForTimeout(200);
  const marker = await page.evaluate(() => window.cprof.app.timeline.markerPosition(0, 0));
  assert.ok(marker, "finding marker is drawn");
  const box = await page.locator("canvas.timeline-canvas").boundingBox();
  await page.mouse.click(box.x + marker.x, box.y + marker.y);
  await page.waitForTimeout(300);
  assert.equal(await page.evaluate(() => window.cprof.app.timeline.selectedSlice()), known, "marker selects the evidence");
  await shot(page, "basic_timeline_evidence");

  // Summary: findings with a working evidence button, step bars.
  await tab(page, "summary");
  assert.match(await page.textContent(".finding-title"), /A known op blocks the step/);
  assert.ok(await page.locator("svg.step-bars rect").count() > 0, "step breakdown bars");
  await shot(page, "basic_summary");
  await page.evaluate(() => window.cprof.app.timeline.select(-1, false));
  await page.click(".evidence-link");
  await page.waitForTimeout(300);
  assert.equal(await page.evaluate(() => window.cprof.app.currentView()), "timeline");
  assert.equal(await page.evaluate(() => window.cprof.app.timeline.selectedSlice()), known);

  // Flame graph: frames drawn; search finds the op; click zooms.
  await tab(page, "flamegraph");
  const frames = await page.evaluate(() => window.cprof.app.flame.frameCount());
  assert.ok(frames > 3, `flame graph frames: ${frames}`);
  const found = await page.evaluate(() => window.cprof.app.flame.search("addmm"));
  assert.ok(found > 0, "flame search");
  await shot(page, "basic_flamegraph");
  await page.evaluate(() => window.cprof.app.flame.search(""));

  // Heatmaps: non-empty cells, and non-blank pixels.
  await tab(page, "heatmap");
  const cells = await page.evaluate(() => window.cprof.app.heatmap.cellCount());
  assert.ok(cells.busy > 10 && cells.ops > 3, `heatmap cells ${JSON.stringify(cells)}`);
  const colored = await page.evaluate(() => {
    const c = document.querySelector("canvas.heatmap-canvas");
    const d = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 0; i < d.length; i += 4) if (d[i] > 200 && d[i + 2] < 150) n++; // yellow..red
    return n;
  });
  assert.ok(colored > 100, `heatmap pixels ${colored}`);
  await shot(page, "basic_heatmap");

  await tab(page, "ops");
  assert.ok(await page.locator("table.sortable tr").count() > 4);
  await page.click("table.sortable th[data-key=count]");
  await shot(page, "basic_ops");
  await tab(page, "memory");
  assert.ok(await page.locator("svg.memory-chart path").count() > 0, "memory curve");
  await shot(page, "basic_memory");

  assertClean(problems, "basic");
  await context.close();
});

test("xss", async (browser) => {
  const trace = path.join(work, "xss.json");
  writeFileSync(trace, JSON.stringify(xssTrace()));
  const yaml = path.join(work, "xss_diagnosis.yaml");
  writeFileSync(yaml, `findings:\n  - category: ${JSON.stringify(EVIL_STRINGS[0])}\n    title: ${JSON.stringify(EVIL_STRINGS[1])}\n    description: ${JSON.stringify(EVIL_STRINGS[2])}\n    evidence:\n      - {name: ${JSON.stringify(EVIL_STRINGS[4])}, ts_ns: 0}\n`);
  const html = visualize(trace, path.join(work, "xss.html"), ["--diagnosis", yaml]);
  const { page, context, problems } = await openPage(browser, html);
  // Show every hostile string somewhere: details of each hostile slice, the summary, flame graph.
  for (const s of [EVIL_STRINGS[0], EVIL_STRINGS[1], EVIL_STRINGS[4], EVIL_STRINGS[5]]) {
    const i = await sliceNamed(page, s);
    assert.ok(i >= 0, `slice named ${JSON.stringify(s)} is in the page`);
    await page.evaluate((k) => window.cprof.app.timeline.select(k, true), i);
    await page.waitForTimeout(150);
    assert.equal(await detailsField(page, "name"), s, "shown as text, unchanged");
  }
  // Direction overrides and zero-width characters are shown as visible escapes, not applied.
  const label = await page.evaluate(() => window.cprof.app.timeline.layout.rows.map((r) => r.label).join("\n"));
  assert.match(label, /⟨U\+202E⟩gnp\.exe⟨U\+202C⟩ zero⟨U\+200B⟩width ⟨U\+0000⟩nul/);
  await shot(page, "xss_timeline");
  for (const v of ["summary", "flamegraph", "heatmap", "ops", "memory", "timeline"]) {
    await tab(page, v);
    await shot(page, `xss_${v}`);
  }
  await page.evaluate((s) => window.cprof.app.flame.search(s), "script");
  const state = await page.evaluate(() => ({
    xss: window.__xss,
    scripts: document.scripts.length,
    imgs: document.getElementsByTagName("img").length,
    injected: [...document.querySelectorAll("*")].filter((e) => [...e.attributes].some((a) => a.name.startsWith("on"))).length,
    title: document.title,
    summaryText: document.querySelector(".summary")?.textContent ?? "",
  }));
  assert.equal(state.xss, undefined, "no hostile script ran");
  assert.equal(state.scripts, 2, "only the page's own data and code scripts");
  assert.equal(state.imgs, 0);
  assert.equal(state.injected, 0, "no element has an event-handler attribute");
  assert.ok(state.summaryText.includes(EVIL_STRINGS[1]), "finding title shown as text");
  assertClean(problems, "xss");
  await context.close();
});

test("baseline", async (browser) => {
  // Differential flame graph: addmm takes twice as long as in the baseline, which also has an op
  // the target lacks.
  const base = path.join(work, "baseline_before.json");
  const target = path.join(work, "baseline_after.json");
  writeFileSync(base, JSON.stringify(basicTrace({ opDur: 650, known: "aten::only_in_baseline" })));
  writeFileSync(target, JSON.stringify(basicTrace()));
  const html = visualize(target, path.join(work, "baseline.html"), ["--baseline", base, "--view", "flamegraph,timeline"]);
  const { page, context, problems } = await openPage(browser, html);
  await tab(page, "flamegraph");
  assert.match(await page.textContent(".flame .note"), /Red: more time than the baseline.*only in the baseline/);
  const fill = await page.evaluate(() => {
    const g = [...document.querySelectorAll("g.frame")].find((e) => e.getAttribute("name") === "aten::addmm");
    return g ? getComputedStyle(g.querySelector("rect")).fill : null;
  });
  const [r, , b] = (fill ?? "").match(/\d+/g)?.map(Number) ?? [];
  assert.ok(r > b + 50, `addmm is drawn red (slower than the baseline): ${fill}`);
  await shot(page, "baseline_flamegraph");
  assertClean(problems, "baseline");
  await context.close();
});

test("fixture", async (browser) => {
  // A real Kineto trace from the shared fixtures: tracks as the trace's distinct threads/streams.
  const file = path.join(fixtures, "kineto/hta/trace_filter/sampled_rank-0.json.gz");
  if (!existsSync(file)) {
    console.log(`skip fixture: ${file} not found`);
    return;
  }
  const json = JSON.parse(zlib.gunzipSync(readFileSync(file)).toString("utf8"));
  const lanes = new Set();
  for (const e of json.traceEvents ?? []) {
    if (e.ph === "X") lanes.add(`${e.pid}/${e.tid}`);
  }
  const html = visualize(file, path.join(work, "fixture.html"));
  const { page, context, problems } = await openPage(browser, html);
  const shown = Number(await page.getAttribute(".timeline", "data-track-count"));
  const counters = await page.evaluate(() => window.cprof.data.counters.length);
  assert.equal(shown - counters, lanes.size, "one slice track per distinct (pid, tid) of X events");
  await shot(page, "fixture_timeline");
  for (const v of ["flamegraph", "heatmap", "summary"]) {
    await tab(page, v);
    await shot(page, `fixture_${v}`);
  }
  assertClean(problems, "fixture");
  console.log(`fixture: ${lanes.size} slice tracks, html ${statSync(html).size} bytes, json ${statSync(file).size} bytes gz`);
  await context.close();
});

test("tune_report", async (browser) => {
  // `tune`'s HTML report (static HTML and SVG) of a replayed study: it renders, asks for nothing
  // over the network, draws one dot per complete trial inside the plot, and labels its axis.
  const cache = path.join(fixtures, "tuning/gemm_RTX_3090.json.gz");
  if (!existsSync(cache)) {
    console.log(`skip tune_report: ${cache} not found`);
    return;
  }
  const html = path.join(work, "tune_report.html");
  execFileSync(cli, ["tune", "--replay", cache, "--budget", "30", "--seed", "1", "--storage", "memory", "-q",
    "--report", html], { stdio: ["ignore", "pipe", "inherit"] });
  const { page, context, problems } = await openPage(browser, html, { scripted: false });
  const seen = await page.evaluate(() => {
    const svg = document.querySelector("svg[aria-label=convergence]");
    const box = svg.getBoundingClientRect();
    const dots = [...svg.querySelectorAll("circle.trial")].map((c) => c.getBoundingClientRect());
    const rows = [...document.querySelectorAll("tr")].filter((r) => r.cells[1]?.textContent === "complete");
    const labels = [...svg.querySelectorAll("text[text-anchor=end]")].map((t) => t.textContent);
    return {
      width: box.width, height: box.height, dots: dots.length, complete: rows.length, labels,
      inside: dots.every((d) => d.top >= box.top && d.bottom <= box.bottom && d.left >= box.left && d.right <= box.right),
      best: svg.querySelectorAll("circle.trial[fill='#12a150']").length,
    };
  });
  assert.ok(seen.width > 600 && seen.height > 200, `plot drawn at ${seen.width}x${seen.height}`);
  assert.equal(seen.dots, 30, "one dot per evaluation (a replay has no failed trial here)");
  assert.equal(seen.complete, seen.dots, "as many dots as complete trials in the table");
  assert.ok(seen.inside, "every dot inside the plot");
  assert.equal(seen.best, 1, "one best dot");
  assert.ok(seen.labels.length >= 3 && seen.labels.every((l) => Number.isFinite(Number(l))), `axis labels: ${seen.labels}`);
  await shot(page, "tune_report");
  assertClean(problems, "tune_report");
  await context.close();
});

const browser = await chromium.launch({
  executablePath: chromePath,
  headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"],
});
let failed = 0;
try {
  for (const t of tests) {
    if (only && t.name !== only) continue;
    const start = Date.now();
    try {
      await t.fn(browser);
      console.log(`ok   ${t.name} (${Date.now() - start} ms)`);
    } catch (e) {
      failed++;
      console.log(`FAIL ${t.name}: ${e.stack ?? e}`);
    }
  }
} finally {
  await browser.close();
}
console.log(`screenshots: ${artifacts}`);
process.exit(failed ? 1 : 0);
