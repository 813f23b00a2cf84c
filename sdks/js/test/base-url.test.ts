/** The base-URL rule (CONTRACT §7) on the table every SDK's tests share. */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { CairnClient, CairnError } from "../src/index.ts";

const table = JSON.parse(
  readFileSync(new URL("../../../test/conformance/base-urls.json", import.meta.url), "utf8"),
) as { accepted: { url: string; normalized: string }[]; refused: string[] };

describe("the base-URL rule", () => {
  it.each(table.accepted)("accepts $url", ({ url, normalized }) => {
    expect(new CairnClient({ baseUrl: url }).baseUrl).toBe(normalized);
  });

  it.each(table.refused)("refuses %j at construction", (url) => {
    expect(() => new CairnClient({ baseUrl: url })).toThrow(CairnError);
  });

  it("defaults to the local server", () => {
    expect(new CairnClient().baseUrl).toBe("http://127.0.0.1:8090");
  });
});
