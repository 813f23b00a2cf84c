import { describe, expect, it } from "vitest";
import { mountPathProblem, overlappingMounts, volumeSizeBytes } from "./volumes.ts";

describe("volume mount paths", () => {
  it("accepts absolute paths of plain segments outside the reserved ones", () => {
    for (const path of [
      "/data",
      "/srv/cache",
      "/home/agent/v1",
      "/opt/x_y-z.1",
      "/workspaces",
      "/tmpfiles",
      "/mnt2",
    ]) {
      expect(mountPathProblem(path), path).toBeNull();
    }
  });

  it("refuses relative paths, odd segments, and the sandbox's and system's own directories", () => {
    const refused: Array<[string, RegExp]> = [
      ["data", /absolute/],
      ["", /absolute/],
      ["/", /plain segments/],
      ["//data", /plain segments/],
      ["/data/", /plain segments/],
      ["/data/../etc", /plain segments/],
      ["/data/.", /plain segments/],
      ["/da ta", /plain segments/],
      ["/data\u0000", /plain segments/],
      ["/workspace", /outside \/workspace/],
      ["/workspace/data", /outside \/workspace/],
      ["/tmp/x", /outside \/tmp/],
      ["/mnt", /outside \/mnt/],
      ["/mnt/data", /outside \/mnt/],
      ["/cairn", /outside \/cairn/],
      ["/cairn/lsp", /outside \/cairn/],
      ["/opt/cairn/image", /outside \/opt\/cairn/],
      ["/opt", /outside \/opt\/cairn/],
      ["/usr/local/data", /outside \/usr/],
      ["/proc", /outside \/proc/],
      ["/lib64/x", /outside \/lib64/],
      [`/${"a".repeat(4096)}`, /absolute/],
    ];
    for (const [path, reason] of refused) expect(mountPathProblem(path), path).toMatch(reason);
  });

  it("finds two mounts where one would hide the other", () => {
    expect(overlappingMounts(["/data", "/srv", "/database"])).toBeNull();
    expect(overlappingMounts(["/srv", "/data", "/data/inner"])).toEqual(["/data", "/data/inner"]);
    expect(overlappingMounts(["/data/inner", "/data"])).toEqual(["/data/inner", "/data"]);
    expect(overlappingMounts(["/data", "/data"])).toEqual(["/data", "/data"]);
  });

  it("sizes a volume in GiB, rounded up to whole 4 KiB blocks", () => {
    expect(volumeSizeBytes(1)).toBe(1024 ** 3);
    expect(volumeSizeBytes(0.1)).toBe(107_376_640);
    expect(volumeSizeBytes(0.000001) % 4096).toBe(0);
    expect(volumeSizeBytes(0.000001)).toBe(4096);
  });
});
