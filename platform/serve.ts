/**
 * Node entry point (`npm start`). Turns on Node's on-disk compile cache before loading the server,
 * which halves start-up (most of it is compiling and type-stripping modules), then starts it.
 * Worker threads find the cache through the environment only: with it they load their modules
 * already stripped and never start the type stripper, about 4 MiB resident a thread
 * (docs/memory.md#what-the-server-keeps-in-memory). Sandboxes never see the variable: their
 * commands start with an empty environment.
 */
import { enableCompileCache } from "node:module";
import { join } from "node:path";

const compileCache = join(import.meta.dirname, "../node_modules/.cache/cairn-compile");
enableCompileCache(compileCache);
process.env.NODE_COMPILE_CACHE ??= compileCache;
await import("./serve-node.ts");
