import { describe, expect, it } from "vitest";
import { loadConfig } from "../../config.ts";
import { logTail, offeredBases, packageEntryProblem, specHash } from "./images.ts";

describe("package entries", () => {
  it.each([
    ["npm", "is-number==7.0.0"],
    ["npm", "@types/node==22.10.2"],
    ["npm", "pkg==1.0.0-beta.1+build.5"],
    ["python", "requests==2.32.3"],
    ["python", "Django==5.0"],
    ["python", "pkg==1.0rc1"],
    ["python", "pkg==1.0.post2"],
    ["apt", "jq==1.6-2.1+deb12u1"],
    ["apt", "libc6==2.36-9+deb12u4"],
    ["apt", "pkg==1:2.0~rc1-3"],
  ] as const)("accepts the exact %s pin %s", (kind, entry) => {
    expect(packageEntryProblem(kind, entry)).toBeNull();
  });

  it.each([
    ["npm", "is-number", /name==version/],
    ["npm", "is-number@7.0.0", /name==version/],
    ["npm", "is-number==^7.0.0", /exact version/],
    ["npm", "is-number==~7.0.0", /exact version/],
    ["npm", "is-number==7", /exact version/],
    ["npm", "is-number==latest", /exact version/],
    ["npm", "is-number==7.0.0 || 8.0.0", /exact version/],
    ["npm", "Is-Number==7.0.0", /package name/],
    ["python", "requests>=2", /name==version/],
    ["python", "requests==2.*", /exact version/],
    ["python", "requests==2.32.3,<3", /exact version/],
    ["python", "requests[socks]==2.32.3", /package name/],
    ["python", "==1.0", /package name/],
    ["apt", "jq", /name==version/],
    ["apt", "jq==", /exact version/],
    ["apt", "jq==1.6 ; reboot", /exact version/],
    ["apt", "jq==$(id)", /exact version/],
  ] as const)("refuses the %s entry %s", (kind, entry, problem) => {
    expect(packageEntryProblem(kind, entry)).toMatch(problem);
  });
});

describe("spec hashes", () => {
  it("ignore the order of each list but not which list a package is in, nor the base", async () => {
    const spec = {
      base: "default",
      pythonPackages: ["a==1", "b==2"],
      aptPackages: [],
      npmPackages: ["c==1.0.0"],
    };
    const hash = await specHash(spec);
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(await specHash({ ...spec, pythonPackages: ["b==2", "a==1"] })).toBe(hash);
    expect(await specHash({ ...spec, base: "minimal" })).not.toBe(hash);
    expect(await specHash({ ...spec, pythonPackages: [], aptPackages: ["a==1", "b==2"] })).not.toBe(hash);
  });
});

describe("log tails", () => {
  it("keep the last 4 KiB in whole characters", () => {
    expect(logTail("short")).toBe("short");
    const long = `${"é".repeat(3000)}end`;
    const tail = logTail(long);
    expect(new TextEncoder().encode(tail).length).toBeLessThanOrEqual(4096);
    expect(tail.endsWith("end")).toBe(true);
    expect(tail).not.toContain("\uFFFD");
    expect(long.endsWith(tail)).toBe(true);
  });
});

describe("offered bases", () => {
  it("are both known bases by default, or the configured known ones", () => {
    expect(offeredBases(loadConfig({}))).toEqual(["default", "minimal"]);
    expect(offeredBases(loadConfig({ SVC_IMAGE_BASES: "minimal,unknown" }))).toEqual(["minimal"]);
  });
});
