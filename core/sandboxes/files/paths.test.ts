import { describe, expect, it } from "vitest";
import { ServiceError } from "../../errors.ts";
import { resolveSandboxPath } from "./paths.ts";

const roots = ["/workspace", "/tmp", "/mnt/data"];

function errorOf(input: string): ServiceError {
  try {
    resolveSandboxPath(input, roots);
  } catch (error) {
    if (error instanceof ServiceError) return error;
    throw error;
  }
  throw new Error(`expected ${input} to be refused`);
}

describe("resolveSandboxPath", () => {
  it.each([
    ["/", "/workspace"],
    [".", "/workspace"],
    ["./", "/workspace"],
    ["workspace", "/workspace"],
    ["workspace/", "/workspace"],
    ["/workspace", "/workspace"],
    ["/workspace/", "/workspace"],
    ["a.txt", "/workspace/a.txt"],
    ["./src/main.py", "/workspace/src/main.py"],
    ["src//lib///x.ts", "/workspace/src/lib/x.ts"],
    ["src/./lib/../x.ts", "/workspace/src/x.ts"],
    // The counterpart's spelling (CONTRACT §2.7): a relative path starting workspace/ is under /workspace.
    ["workspace/x", "/workspace/x"],
    ["workspace/src/app.py", "/workspace/src/app.py"],
    ["./workspace/x", "/workspace/x"],
    ["workspaces/x", "/workspace/workspaces/x"],
    ["/workspace/a/b/../../c", "/workspace/c"],
    ["/tmp", "/tmp"],
    ["/tmp/build/out.log", "/tmp/build/out.log"],
    ["/mnt/data/file", "/mnt/data/file"],
    ["//workspace//x", "/workspace/x"],
    ["/../workspace/x", "/workspace/x"],
    ["a/..", "/workspace"],
    ["..foo", "/workspace/..foo"],
    ["a/...", "/workspace/a/..."],
    ["with space/ünïcode.txt", "/workspace/with space/ünïcode.txt"],
  ])("%j → %s", (input, expected) => {
    expect(resolveSandboxPath(input, roots)).toBe(expected);
  });

  it.each([
    "..",
    "../",
    "../etc/passwd",
    "./../etc",
    "a/../../etc",
    "a/b/../../../x",
    "/workspace/..",
    "/workspace/../etc/passwd",
    "/workspace/./../root",
    "/workspace//..//etc",
    "/tmp/../etc",
    "/mnt/data/../other",
    "/mnt/data/../../etc",
    "/etc/passwd",
    "/workspace2/x",
    "/workspacex",
    "/tmpfile",
    "/mnt/database",
    "/mnt",
    "/..",
    "/proc/self/root",
    "/workspace/../workspace2",
  ])("refuses %j as path_outside_sandbox", (input) => {
    const error = errorOf(input);
    expect(error.code).toBe("path_outside_sandbox");
  });

  it("refuses a component over 255 bytes of UTF-8, and a path over 4095, as validation errors", () => {
    for (const input of [
      "a".repeat(256),
      `/workspace/${"b".repeat(256)}/c.txt`,
      `dir/${"é".repeat(128)}`, // 128 characters, 256 bytes
      `/tmp/${"✓".repeat(86)}`, // 86 characters, 258 bytes
      `${"a/".repeat(2048)}x`,
    ]) {
      const error = errorOf(input);
      expect([error.code, error.toBody().retryable]).toEqual(["validation_error", false]);
      expect(error.details).toEqual([
        expect.objectContaining({
          loc: ["path"],
          msg: expect.stringMatching(/at most (255|4095) bytes/),
        }),
      ]);
    }
    // At the limits, accepted.
    expect(resolveSandboxPath("a".repeat(255), roots)).toBe(`/workspace/${"a".repeat(255)}`);
    expect(resolveSandboxPath(`dir/${"é".repeat(127)}`, roots)).toBe(`/workspace/dir/${"é".repeat(127)}`);
  });

  it("refuses NUL bytes and empty paths as validation errors", () => {
    expect(errorOf("a\0b").code).toBe("validation_error");
    expect(errorOf("/workspace/\0").code).toBe("validation_error");
    expect(errorOf("").code).toBe("validation_error");
  });

  it("never treats / as a root", () => {
    expect(() => resolveSandboxPath("/etc/passwd", ["/", "/workspace"])).toThrow(ServiceError);
  });

  it("accepts roots written with trailing slashes", () => {
    expect(resolveSandboxPath("/mnt/vol/x", ["/workspace", "/mnt/vol/"])).toBe("/mnt/vol/x");
  });
});
