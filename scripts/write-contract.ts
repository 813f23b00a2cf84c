/**
 * `npm run contract`: writes the operation manifest (sdks/contract/operations.json) and everything
 * generated from it — sdks/openapi.json, the SDKs' wire types, the CLI's schemas, the docs'
 * parameter tables — from the registry. test/contract.test.ts fails when any of them is stale.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { contractOutputs, root } from "./contract/outputs.ts";

for (const output of await contractOutputs()) {
  const target = join(root, output.path);
  await mkdir(dirname(target), { recursive: true });
  await writeFile(target, output.content);
  console.log(`wrote ${output.path}`);
}
