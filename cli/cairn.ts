#!/usr/bin/env node
/**
 * The `cairn` command from its TypeScript source, on Node 24 (tests, `cairn mcp serve --data-dir`,
 * and the bin when no bundle is built). The program is cli/main.ts; this entry first makes the
 * JavaScript SDK's workspace package resolve to its source (the `cairn-source` export condition)
 * rather than to its build, which a checkout need not have and which could be stale.
 */
import { registerHooks } from "node:module";

registerHooks({
  resolve(specifier, context, nextResolve) {
    if (specifier !== "cairn-client") return nextResolve(specifier, context);
    return nextResolve(specifier, { ...context, conditions: ["cairn-source", ...context.conditions] });
  },
});

await import("./main.ts");
