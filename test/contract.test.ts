/**
 * The operation manifest (sdks/contract/operations.json) and every file generated from it — the
 * OpenAPI document, the SDKs' wire types, the CLI's schemas, the docs' parameter tables — are
 * current: each is rendered again from the registry and compared with the committed file. Run
 * `npm run contract` after changing an operation.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { allOperations } from "../core/index.ts";
import { contractOutputs, type Output, root } from "../scripts/contract/outputs.ts";

const outputs: Output[] = await contractOutputs();

describe("the operation manifest", () => {
  it("has every operation of the registry, in its order", async () => {
    const manifest = JSON.parse(await readFile(join(root, "sdks/contract/operations.json"), "utf8"));
    expect(manifest.operations.map((operation: { name: string }) => operation.name)).toEqual(
      allOperations.map((tool) => tool.name),
    );
  });

  it.each(outputs.map((output) => [output.path, output]))(
    "%s is not stale (run `npm run contract` after changing an operation)",
    async (_path, output) => {
      const committed = await readFile(join(root, output.path), "utf8").catch(() => "(missing)");
      expect(committed).toBe(output.content);
    },
  );
});
