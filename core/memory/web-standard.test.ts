import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

// Deno runs core: the memory modules may import each other, types of core's ports, core's
// web-crypto hashing, core's event-loop turns (setImmediate or setTimeout) and two plain-JavaScript
// packages (lru-cache, and porter2, the Porter2 stemmer), and nothing else (no `node:`, no I/O
// globals).
const folder = new URL(".", import.meta.url);
const modules = readdirSync(folder).filter((name) => name.endsWith(".ts") && !name.includes(".test"));

describe("core/memory modules", () => {
  it.each(modules)("%s imports only sibling modules and uses no I/O", (name) => {
    const source = readFileSync(new URL(name, folder), "utf8");
    for (const [statement, specifier] of source.matchAll(/^import[^;]*?\bfrom\s+"([^"]+)"/gms)) {
      if (specifier.startsWith("../ports/")) expect(statement).toMatch(/^import type /);
      else if (specifier === "lru-cache" || specifier === "porter2") continue;
      else expect(specifier).toMatch(/^(\.\/[a-z-]+|\.\.\/auth\/api-keys|\.\.\/event-loop-turns)\.ts$/);
    }
    expect(source).not.toMatch(/\b(require|process|Deno|fetch|Bun)\s*[.(]/);
  });
});
