import { describe, expect, it } from "vitest";
import { createArgon2Hasher } from "./create-argon2-hasher.ts";

describe("argon2id password hashing", () => {
  it("uses argon2id with the OWASP parameters by default, salted, and verifies", async () => {
    const hasher = createArgon2Hasher();
    const first = await hasher.hash("correct horse");
    expect(first).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(await hasher.hash("correct horse")).not.toBe(first);
    expect(await hasher.verify(first, "correct horse")).toBe(true);
    expect(await hasher.verify(first, "correct horsE")).toBe(false);
    expect(await hasher.verify("not a hash", "x")).toBe(false);
  });
});
