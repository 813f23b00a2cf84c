/** Every package (server, CLI, the four SDKs) carries the version of the root package.json. */
import { describe, expect, it } from "vitest";
import { readVersion, rootVersion, versionSites } from "../scripts/set-version.ts";

describe("one version", () => {
  it.each(versionSites)("$file carries the root package.json's version", async (site) => {
    expect(await readVersion(site)).toBe(await rootVersion());
  });
});
