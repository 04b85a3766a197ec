// Bundles the page's TypeScript and CSS into dist files that the C++ build embeds in the binary.
//
//   node build.mjs --outdir DIR     -> DIR/app.js, DIR/app.css
//
// One IIFE script, minified, no external requests: the page must work offline, from disk.
import { build } from "esbuild";
import { readFile, writeFile, mkdir } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const outdir = path.resolve(args[args.indexOf("--outdir") + 1] ?? path.join(here, "dist"));
const dev = args.includes("--dev");

await mkdir(outdir, { recursive: true });
await build({
  entryPoints: { app: path.join(here, "src/main.ts") },
  outdir,
  bundle: true,
  minify: !dev,
  format: "iife",
  target: ["es2020", "chrome90", "firefox90", "safari15"],
  legalComments: "eof",
  logLevel: "warning",
  absWorkingDir: here,
});

// d3-flame-graph's stylesheet is not in its package exports; add it by path.
const require = createRequire(import.meta.url);
const flameCss = path.join(path.dirname(require.resolve("d3-flame-graph")), "d3-flamegraph.css");
const css = (await readFile(flameCss, "utf8")) + "\n" + (await readFile(path.join(outdir, "app.css"), "utf8"));
await writeFile(path.join(outdir, "app.css"), css);

// The bundle is inlined into <script> and <style>: these sequences would end the element early.
const js = await readFile(path.join(outdir, "app.js"), "utf8");
for (const [name, text, bad] of [["app.js", js, /<\/script|<!--/i], ["app.css", css, /<\/style/i]]) {
  if (bad.test(text)) throw new Error(`${name} contains a sequence that cannot be inlined: ${bad}`);
}
