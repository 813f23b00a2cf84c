/**
 * The /docs page: Swagger UI, served from the swagger-ui-dist package's own files under
 * /docs/assets and pointed at /v1/openapi.json, so the page needs no network beyond this server.
 */
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import type { Env, Hono } from "hono";

/** The package files the page uses, by the name they are served under, with their content types. */
const packageAssets: Record<string, string> = {
  "swagger-ui.css": "text/css; charset=utf-8",
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
  "favicon-32x32.png": "image/png",
  "favicon-16x16.png": "image/png",
};

/**
 * Starts the viewer from a file rather than an inline script, so the page works under a CSP
 * without 'unsafe-inline'. The document's server becomes this page's origin, so "Try it out"
 * calls the server that served the page. No validator: Swagger UI would otherwise send the
 * document to validator.swagger.io.
 */
const initializer = `fetch("/v1/openapi.json")
  .then((response) => response.json())
  .then((spec) => {
    spec.servers = [{ url: window.location.origin }];
    window.ui = SwaggerUIBundle({
      spec,
      dom_id: "#swagger-ui",
      deepLinking: true,
      validatorUrl: null,
      presets: [SwaggerUIBundle.presets.apis],
      layout: "BaseLayout",
    });
  });
`;

const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Cairn API</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
<link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png" sizes="32x32">
<link rel="icon" type="image/png" href="/docs/assets/favicon-16x16.png" sizes="16x16">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/assets/initializer.js"></script>
</body>
</html>
`;

const assetCache = new Map<string, Promise<Uint8Array<ArrayBuffer>>>();

/** Read once per process: the bundle is about 1.7 MB and never changes while the server runs. */
function packageAsset(name: string): Promise<Uint8Array<ArrayBuffer>> {
  let content = assetCache.get(name);
  if (!content) {
    const path = fileURLToPath(import.meta.resolve(`swagger-ui-dist/${name}`));
    content = readFile(path).then((file) => new Uint8Array(file));
    assetCache.set(name, content);
  }
  return content;
}

/** Mounts the page on any app: it reads none of the app's variables. */
export function mountDocs<AppEnv extends Env>(app: Hono<AppEnv>) {
  app.get("/docs", (context) => context.html(page));
  app.get("/docs/assets/initializer.js", (context) =>
    context.body(initializer, 200, { "content-type": "text/javascript; charset=utf-8" }),
  );
  app.get("/docs/assets/:name", async (context, next) => {
    const name = context.req.param("name");
    const contentType = Object.hasOwn(packageAssets, name) ? packageAssets[name] : undefined;
    if (!contentType) return next();
    return context.body(await packageAsset(name), 200, {
      "content-type": contentType,
      "cache-control": "public, max-age=3600",
    });
  });
}
