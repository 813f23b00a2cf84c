/**
 * The /terminal page: the takeover terminal in a browser (docs/sandboxes.md#takeover-terminal),
 * xterm.js from the @xterm/xterm package's own files under /terminal/assets, so the page needs no
 * network beyond this server. It reads the sandbox id and a single-use token from its URL's
 * fragment (`/terminal#sandbox=ID&token=TOKEN`), which browsers never send to a server, so the
 * token stays out of logs; the page holds no API key.
 */
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import type { Env, Hono } from "hono";

const packageAssets: Record<string, { file: string; type: string }> = {
  "xterm.js": { file: "@xterm/xterm/lib/xterm.js", type: "text/javascript; charset=utf-8" },
  "xterm.css": { file: "@xterm/xterm/css/xterm.css", type: "text/css; charset=utf-8" },
};

/** Opens the socket once the terminal is on the page; binary frames both ways, resize as JSON. */
const initializer = `const params = new URLSearchParams(location.hash.slice(1));
const term = new Terminal({ rows: Number(params.get("rows")) || 30, cols: Number(params.get("cols")) || 100 });
term.open(document.getElementById("terminal"));
const url = new URL("/v1/sandboxes/" + encodeURIComponent(params.get("sandbox") || "") + "/takeover", location.href);
url.protocol = location.protocol === "https:" ? "wss:" : "ws:";
url.searchParams.set("token", params.get("token") || "");
url.searchParams.set("rows", String(term.rows));
url.searchParams.set("cols", String(term.cols));
history.replaceState(null, "", location.pathname);
const socket = new WebSocket(url);
socket.binaryType = "arraybuffer";
const encoder = new TextEncoder();
socket.onopen = () => { document.body.dataset.state = "open"; term.focus(); };
socket.onmessage = (event) => term.write(typeof event.data === "string" ? event.data : new Uint8Array(event.data));
socket.onclose = (event) => {
  document.body.dataset.state = "closed";
  document.body.dataset.closeCode = String(event.code);
  term.write("\\r\\n[closed: " + (event.reason || event.code) + "]\\r\\n");
};
term.onData((data) => socket.readyState === 1 && socket.send(encoder.encode(data)));
term.onResize(({ rows, cols }) => socket.readyState === 1 && socket.send(JSON.stringify({ type: "resize", rows, cols })));
window.cairnTerminal = term;
`;

const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Cairn terminal</title>
<link rel="stylesheet" href="/terminal/assets/xterm.css">
<style>body { margin: 0; background: #000; } #terminal { padding: 4px; }</style>
</head>
<body>
<div id="terminal"></div>
<script src="/terminal/assets/xterm.js"></script>
<script src="/terminal/assets/terminal.js"></script>
</body>
</html>
`;

const assetCache = new Map<string, Promise<Uint8Array<ArrayBuffer>>>();

function packageAsset(file: string): Promise<Uint8Array<ArrayBuffer>> {
  let content = assetCache.get(file);
  if (!content) {
    content = readFile(fileURLToPath(import.meta.resolve(file))).then((bytes) => new Uint8Array(bytes));
    assetCache.set(file, content);
  }
  return content;
}

export function mountTerminalPage<AppEnv extends Env>(app: Hono<AppEnv>) {
  app.get("/terminal", (context) => context.html(page));
  app.get("/terminal/assets/terminal.js", (context) =>
    context.body(initializer, 200, { "content-type": "text/javascript; charset=utf-8" }),
  );
  app.get("/terminal/assets/:name", async (context, next) => {
    const name = context.req.param("name");
    const asset = Object.hasOwn(packageAssets, name) ? packageAssets[name] : undefined;
    if (!asset) return next();
    return context.body(await packageAsset(asset.file), 200, {
      "content-type": asset.type,
      "cache-control": "public, max-age=3600",
    });
  });
}
