// esbuild bundles CSS imports into app.css; TypeScript only needs to know they exist.
declare module "*.css";
