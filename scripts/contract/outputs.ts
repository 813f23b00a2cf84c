/**
 * Every file `npm run contract` writes, rendered in memory: the manifest, the OpenAPI document,
 * each SDK's wire types, the CLI's schemas and the docs' parameter tables. test/contract.test.ts
 * compares them with the committed files.
 */
import { spawnSync } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { version } from "../../core/index.ts";
import { createOpenApiDocument } from "../../transports/rest/openapi.ts";
import { cliTarget, renderCli } from "./cli.ts";
import { docsTargets, renderDocument } from "./docs.ts";
import { goTarget, renderGo } from "./go.ts";
import { createManifest } from "./manifest.ts";
import { pythonTarget, renderPython } from "./python.ts";
import { renderRust, rustTarget } from "./rust.ts";
import {
  pythonToolSpecsTarget,
  renderPythonToolSpecs,
  renderTypescriptToolSpecs,
  typescriptToolSpecsTarget,
} from "./toolkits.ts";
import { renderTypescript, typescriptTarget } from "./typescript.ts";

export const root = resolve(import.meta.dirname, "../..");
export const manifestTarget = "sdks/contract/operations.json";

export interface Output {
  /** Relative to the repository root. */
  path: string;
  content: string;
}

/** Biome's formatting of a TypeScript or JSON file, so the generated file passes `biome check` as it is. */
function formatWithBiome(path: string, text: string): string {
  const biome = join(root, "node_modules/.bin/biome");
  const result = spawnSync(biome, ["format", `--stdin-file-path=${path}`], {
    cwd: root,
    input: text,
    encoding: "utf8",
  });
  if (result.status !== 0) throw new Error(`biome could not format ${path}:\n${result.stderr}`);
  return result.stdout;
}

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

export async function contractOutputs(): Promise<Output[]> {
  const manifest = createManifest();
  const docs = await Promise.all(
    docsTargets.map(async (path) => ({
      path,
      content: renderDocument(manifest, await readFile(join(root, path), "utf8"), path),
    })),
  );
  return [
    { path: manifestTarget, content: formatWithBiome(manifestTarget, json(manifest)) },
    { path: "sdks/openapi.json", content: json(createOpenApiDocument(version)) },
    { path: typescriptTarget, content: formatWithBiome(typescriptTarget, renderTypescript(manifest)) },
    { path: cliTarget, content: formatWithBiome(cliTarget, renderCli(manifest)) },
    { path: pythonTarget, content: renderPython(manifest) },
    { path: goTarget, content: renderGo(manifest) },
    { path: rustTarget, content: renderRust(manifest) },
    { path: pythonToolSpecsTarget, content: renderPythonToolSpecs(manifest) },
    {
      path: typescriptToolSpecsTarget,
      content: formatWithBiome(typescriptToolSpecsTarget, renderTypescriptToolSpecs(manifest)),
    },
    ...docs,
  ];
}
