/**
 * The local image builder on this machine, for real: bubblewrap jails whose only way out is the
 * egress proxy, reaching the public npm registry. A pinned npm package lands in the layer and
 * loads from it; a version that does not exist fails with the npm step's reason and log; a
 * registry left off the proxy's list is unreachable from the jail (the proxy's denial is in the
 * log); equal builds give the same digest and share one layer directory; a pinned Python package
 * lands in the layer's python directory and imports from it. Each build runs in its own jail
 * (builder-jail.test.ts tries that jail as an attacker would).
 */
import { execFileSync } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ImageBuilder, ImageBuildSpec } from "../../core/ports/image-builder.ts";
import { silentLogger } from "../../core/ports/logger.ts";
import { createLocalImageBuilder } from "./create-local-image-builder.ts";

let dataDir: string;
const builders: ImageBuilder[] = [];
beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "cairn-image-builder-"));
});
afterAll(async () => {
  for (const builder of builders) await builder.close?.();
  await rm(dataDir, { recursive: true, force: true });
});

const spec = (npmPackages: string[]): ImageBuildSpec => ({
  id: crypto.randomUUID(),
  accountId: crypto.randomUUID(),
  base: "default",
  pythonPackages: [],
  aptPackages: [],
  npmPackages,
  specHash: "0".repeat(64),
});

function builderWith(registryHosts: string[]) {
  const builder = createLocalImageBuilder({
    dataDir,
    registryHosts,
    // This machine's resolver answers the registries with an address of a documentation range
    // (203.0.113.0/24, its network's mirror), which the proxy counts as private: allowed here.
    allowPrivateEgress: true,
    timeoutSeconds: 240,
    // Room for these small packages; the 10 GiB default would be preallocated for each build.
    diskBytes: 512 * 1024 * 1024,
    logger: silentLogger,
  });
  builders.push(builder);
  return builder;
}

describe("the local image builder", () => {
  it("builds a pinned npm package through the proxy into a content-addressed layer that loads it", async () => {
    const builder = builderWith(["registry.npmjs.org"]);
    const result = await builder.build(spec(["is-number==7.0.0"]), new AbortController().signal);
    expect(result, result.status === "failed" ? result.log : "").toMatchObject({
      status: "completed",
      registryRef: null,
    });
    if (result.status !== "completed") return;
    expect(result.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(result.layerPath).toBe(join(dataDir, "images", result.digest.slice(7)));
    const layer = result.layerPath as string;
    const manifest = JSON.parse(
      await readFile(join(layer, "npm/node_modules/is-number/package.json"), "utf8"),
    );
    expect(manifest.version).toBe("7.0.0");
    expect((await readdir(layer)).sort()).toEqual(["apt", "npm", "python"]);
    // Kept as the server's, not the build's uid; the build's own disk is gone.
    expect((await stat(join(layer, "npm/node_modules/is-number/package.json"))).uid).toBe(0);
    expect(await readdir(join(dataDir, "image-builds", "disks"))).toEqual([]);
    // What a sandbox started from the image does: NODE_PATH at the layer's node_modules.
    const output = execFileSync(process.execPath, ["-e", "console.log(require('is-number')(5))"], {
      env: { NODE_PATH: join(layer, "npm/node_modules") },
    });
    expect(output.toString().trim()).toBe("true");

    const again = await builder.build(spec(["is-number==7.0.0"]), new AbortController().signal);
    expect(again).toMatchObject({ status: "completed", digest: result.digest, layerPath: layer });
    expect((await readdir(join(dataDir, "images"))).filter((name) => !name.includes("."))).toEqual([
      result.digest.slice(7),
    ]);
  }, 300_000);

  it("builds a pinned Python package with pip into the layer's python directory", async () => {
    const builder = builderWith(["pypi.org", "files.pythonhosted.org"]);
    const result = await builder.build(
      { ...spec([]), pythonPackages: ["six==1.16.0"] },
      new AbortController().signal,
    );
    expect(result, result.status === "failed" ? result.log : "").toMatchObject({ status: "completed" });
    if (result.status !== "completed") return;
    const layer = result.layerPath as string;
    const output = execFileSync("python3", ["-c", "import six; print(six.__version__)"], {
      env: { PYTHONPATH: join(layer, "python"), PATH: "/usr/bin:/bin" },
    });
    expect(output.toString().trim()).toBe("1.16.0");
  }, 300_000);

  it("fails a version that does not exist, saying which step and why", async () => {
    const builder = builderWith(["registry.npmjs.org"]);
    const result = await builder.build(spec(["is-number==99.99.99"]), new AbortController().signal);
    expect(result.status).toBe("failed");
    if (result.status !== "failed") return;
    expect(result.reason).toMatch(/^The npm step failed \(exit code 1\): npm error notarget/);
    expect(result.log).toContain("== step npm");
    expect(result.log).toMatch(/No matching version found for is-number@99\.99\.99/);
  }, 300_000);

  it("cannot reach a registry the proxy does not list: the jail has no other way out", async () => {
    const builder = builderWith(["pypi.org"]);
    const result = await builder.build(spec(["is-number==7.0.0"]), new AbortController().signal);
    expect(result.status).toBe("failed");
    if (result.status !== "failed") return;
    expect(result.reason).toMatch(/^The npm step failed/);
    expect(result.log).toContain("egress proxy: denied registry.npmjs.org:443 (host_not_allowed)");
  }, 300_000);
});
