/**
 * Node entry point (`npm start`). Turns on Node's on-disk compile cache before loading the server,
 * which halves start-up (most of it is compiling and type-stripping modules), then starts it.
 */
import { enableCompileCache } from "node:module";
import { join } from "node:path";

enableCompileCache(join(import.meta.dirname, "../node_modules/.cache/cairn-compile"));
await import("./serve-node.ts");
