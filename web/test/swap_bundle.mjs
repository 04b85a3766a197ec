// Development aid: replaces the front end inside an existing performance map page with a fresh
// build of web/ (app.js, app.css from `node build.mjs --outdir DIR`), updating the page's CSP
// hash, so front-end changes can be tried on real pages without relinking cann-profiler.
//
//   node web/build.mjs --outdir /tmp/web && node web/test/swap_bundle.mjs IN.html /tmp/web OUT.html
import { readFileSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import path from "node:path";

const [input, dir, output] = process.argv.slice(2);
let html = readFileSync(input, "utf8");
const js = readFileSync(path.join(dir, "app.js"), "utf8");
const css = readFileSync(path.join(dir, "app.css"), "utf8");
const sha = createHash("sha256").update(js, "utf8").digest("base64");
html = html.replace(/script-src 'sha256-[^']*'/, `script-src 'sha256-${sha}'`);
html = html.replace(/<style>[\s\S]*?<\/style>/, () => `<style>${css}</style>`);
const last = html.lastIndexOf("<script>");
const end = html.lastIndexOf("</script>");
html = html.slice(0, last + "<script>".length) + js + html.slice(end);
writeFileSync(output, html);
