import { beforeEach, describe, expect, it } from "vitest";
import { createFakeFileSystem, type FakeFileSystem } from "../../../test/doubles/fake-file-system.ts";
import { ServiceError } from "../../errors.ts";
import {
  createFile,
  globFiles,
  listDirectory,
  maxViewBytes,
  strReplace,
  viewFile,
} from "./file-operations.ts";

const fixedTime = new Date("2025-03-04T05:06:07.000Z");
let files: FakeFileSystem;

beforeEach(() => {
  files = createFakeFileSystem({ roots: ["/workspace", "/tmp", "/mnt/data"], now: () => fixedTime });
});

async function rejection(promise: Promise<unknown>): Promise<ServiceError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ServiceError) return error;
    throw error;
  }
  throw new Error("expected a ServiceError");
}

describe("createFile", () => {
  it("creates a file under /workspace from a relative path and reports its size in bytes", async () => {
    expect(await createFile(files, { path: "src/ü.txt", content: "héllo" })).toEqual({
      path: "/workspace/src/ü.txt",
      size: 6,
      created: true,
    });
    expect(files.contentOf("/workspace/src/ü.txt")).toBe("héllo");
  });

  it("overwrites an existing file with created false", async () => {
    files.seed({ "/workspace/a.txt": "old" });
    expect(await createFile(files, { path: "/workspace/a.txt", content: "new" })).toMatchObject({
      created: false,
    });
    expect(files.contentOf("/workspace/a.txt")).toBe("new");
  });

  it("refuses paths outside the sandbox", async () => {
    expect((await rejection(createFile(files, { path: "../etc/x", content: "" }))).code).toBe(
      "path_outside_sandbox",
    );
  });

  it("refuses writes through a link that leads outside", async () => {
    files.linkOutside("/workspace/escape");
    const error = await rejection(createFile(files, { path: "escape/x", content: "" }));
    expect(error.code).toBe("path_outside_sandbox");
  });

  it("refuses to overwrite a directory", async () => {
    files.seed({ "/workspace/dir/a": "" });
    expect((await rejection(createFile(files, { path: "dir", content: "" }))).code).toBe("validation_error");
  });
});

describe("bytes through base64", () => {
  const allBytes = new Uint8Array(256).map((_, index) => index);
  const base64 = btoa(String.fromCharCode(...allBytes));

  it("writes decoded base64 exactly and views it back the same", async () => {
    expect(await createFile(files, { path: "all.bin", content: base64, encoding: "base64" })).toEqual({
      path: "/workspace/all.bin",
      size: 256,
      created: true,
    });
    expect([...(await files.readBytes("/workspace/all.bin", 1000))]).toEqual([...allBytes]);
    expect(await viewFile(files, { path: "all.bin", encoding: "base64" })).toEqual({
      content: base64,
      encoding: "base64",
      lines: 2,
      is_directory: false,
      entries: null,
    });
  });

  it("accepts unpadded and line-wrapped base64", async () => {
    await createFile(files, { path: "a.bin", content: "aGk", encoding: "base64" });
    expect(files.contentOf("/workspace/a.bin")).toBe("hi");
    await createFile(files, { path: "b.bin", content: "aGVs\nbG8=\n", encoding: "base64" });
    expect(files.contentOf("/workspace/b.bin")).toBe("hello");
  });

  it.each(["a", "ab$c", "aGk=aGk=", "aGk===", "-_8="])(
    "refuses %j as base64, naming content",
    async (content) => {
      const error = await rejection(createFile(files, { path: "x.bin", content, encoding: "base64" }));
      expect([error.code, (error.details as Array<{ loc: string[] }>)[0].loc]).toEqual([
        "validation_error",
        ["content"],
      ]);
      expect(files.contentOf("/workspace/x.bin")).toBeUndefined();
    },
  );

  it("refuses a text view or edit of bytes that are not UTF-8, and never replaces them", async () => {
    await files.writeBytes("/workspace/blob.gz", new Uint8Array([0x1f, 0x8b, 0x08, 0x61]));
    const viewed = await rejection(viewFile(files, { path: "blob.gz" }));
    expect([viewed.code, viewed.details]).toEqual(["file_not_utf8", { path: "/workspace/blob.gz" }]);
    expect(viewed.remediation).toContain('encoding "base64"');
    const edited = await rejection(strReplace(files, { path: "blob.gz", old_str: "a", new_str: "b" }));
    expect(edited.code).toBe("file_not_utf8");
    expect([...(await files.readBytes("/workspace/blob.gz", 10))]).toEqual([0x1f, 0x8b, 0x08, 0x61]);
  });

  it("refuses view_range with base64", async () => {
    files.seed({ "/workspace/t.txt": "a\nb\n" });
    const error = await rejection(viewFile(files, { path: "t.txt", encoding: "base64", view_range: [1, 1] }));
    expect((error.details as Array<{ loc: string[] }>)[0].loc).toEqual(["view_range"]);
  });
});

describe("viewFile", () => {
  beforeEach(() => files.seed({ "/workspace/five.txt": "one\ntwo\nthree\nfour\nfive\n" }));

  it("returns the whole file and its line count", async () => {
    expect(await viewFile(files, { path: "five.txt" })).toEqual({
      content: "one\ntwo\nthree\nfour\nfive\n",
      encoding: "utf-8",
      lines: 5,
      is_directory: false,
      entries: null,
    });
  });

  it.each([
    [[2, 3], "two\nthree\n"],
    [[4, -1], "four\nfive\n"],
    [[5, 5], "five\n"],
    [[4, 99], "four\nfive\n"],
  ] as Array<[[number, number], string]>)("view_range %j", async (range, content) => {
    expect(await viewFile(files, { path: "five.txt", view_range: range })).toMatchObject({
      content,
      lines: 5,
    });
  });

  it.each([[[0, 2]], [[3, 2]], [[6, -1]], [[1, -2]], [[1.5, 2]]] as Array<[[number, number]]>)(
    "refuses view_range %j",
    async (range) => {
      const error = await rejection(viewFile(files, { path: "five.txt", view_range: range }));
      expect(error.code).toBe("validation_error");
    },
  );

  it("counts a last line without a newline", async () => {
    files.seed({ "/workspace/two.txt": "a\nb" });
    expect(await viewFile(files, { path: "two.txt", view_range: [2, -1] })).toMatchObject({
      content: "b",
      lines: 2,
    });
  });

  it("views an empty file", async () => {
    files.seed({ "/workspace/empty": "" });
    expect(await viewFile(files, { path: "empty", view_range: [1, -1] })).toMatchObject({
      content: "",
      lines: 0,
    });
  });

  it("lists a directory's entries instead of failing", async () => {
    files.seed({ "/workspace/src/b.py": "", "/workspace/src/a/x.py": "" });
    expect(await viewFile(files, { path: "src" })).toEqual({
      content: "",
      encoding: "utf-8",
      lines: 0,
      is_directory: true,
      entries: ["a/", "b.py"],
    });
  });

  it("refuses files over 25 MiB", async () => {
    files.seed({ "/tmp/big": "x".repeat(maxViewBytes + 1) });
    const error = await rejection(viewFile(files, { path: "/tmp/big" }));
    expect(error.code).toBe("validation_error");
    expect(error.message).toBe("Invalid request");
    expect(error.details).toEqual([
      { type: "value_error", loc: ["path"], msg: "/tmp/big is larger than 25 MiB" },
    ]);
  });

  it("reports a missing file as not_found", async () => {
    expect((await rejection(viewFile(files, { path: "nope.txt" }))).code).toBe("not_found");
  });
});

describe("strReplace", () => {
  beforeEach(() => files.seed({ "/workspace/code.py": "a = 1\nb = 1\nc = 2\n" }));

  it("replaces a unique occurrence", async () => {
    expect(await strReplace(files, { path: "code.py", old_str: "c = 2", new_str: "c = $&3" })).toEqual({
      path: "/workspace/code.py",
      replaced: 1,
      occurrences: 1,
    });
    expect(files.contentOf("/workspace/code.py")).toBe("a = 1\nb = 1\nc = $&3\n");
  });

  it("refuses an ambiguous old_str and says how many times it occurs", async () => {
    const error = await rejection(strReplace(files, { path: "code.py", old_str: "= 1", new_str: "= 9" }));
    expect(error.code).toBe("validation_error");
    expect(error.details).toEqual([
      {
        type: "value_error",
        loc: ["old_str"],
        msg: "old_str occurs 2 times in /workspace/code.py; make it unique or pass replace_all",
      },
    ]);
    expect(files.contentOf("/workspace/code.py")).toBe("a = 1\nb = 1\nc = 2\n");
  });

  it("replaces every occurrence with replace_all", async () => {
    expect(
      await strReplace(files, { path: "code.py", old_str: "= 1", new_str: "= 9", replace_all: true }),
    ).toEqual({
      path: "/workspace/code.py",
      replaced: 2,
      occurrences: 2,
    });
    expect(files.contentOf("/workspace/code.py")).toBe("a = 9\nb = 9\nc = 2\n");
  });

  it("says clearly when old_str is absent", async () => {
    const error = await rejection(strReplace(files, { path: "code.py", old_str: "zzz", new_str: "" }));
    expect(error.code).toBe("validation_error");
    // Every 422 reads the same (CONTRACT §5); the detail says what is wrong with which field.
    expect(error.message).toBe("Invalid request");
    expect(error.details).toEqual([
      { type: "value_error", loc: ["old_str"], msg: "old_str not found in /workspace/code.py" },
    ]);
  });

  it("counts non-overlapping occurrences", async () => {
    files.seed({ "/workspace/aaa": "aaaa" });
    expect(
      await strReplace(files, { path: "aaa", old_str: "aa", new_str: "b", replace_all: true }),
    ).toMatchObject({
      occurrences: 2,
    });
    expect(files.contentOf("/workspace/aaa")).toBe("bb");
  });

  it("refuses paths outside the sandbox and missing files", async () => {
    expect(
      (await rejection(strReplace(files, { path: "/etc/passwd", old_str: "x", new_str: "" }))).code,
    ).toBe("path_outside_sandbox");
    expect((await rejection(strReplace(files, { path: "missing", old_str: "x", new_str: "" }))).code).toBe(
      "not_found",
    );
  });
});

describe("listDirectory", () => {
  it("lists /workspace by default, directories ending with /, sorted by path", async () => {
    files.seed({ "/workspace/b.txt": "bb", "/workspace/a/inner.txt": "x", "/workspace/A.txt": "" });
    expect(await listDirectory(files, {})).toEqual({
      entries: [
        { path: "/workspace/A.txt", is_dir: false, size: 0, modified_at: "2025-03-04T05:06:07.000Z" },
        { path: "/workspace/a/", is_dir: true, size: 0, modified_at: "2025-03-04T05:06:07.000Z" },
        { path: "/workspace/b.txt", is_dir: false, size: 2, modified_at: "2025-03-04T05:06:07.000Z" },
      ],
    });
  });

  it("lists other roots and refuses the rest", async () => {
    files.seed({ "/mnt/data/x": "" });
    expect((await listDirectory(files, { path: "/mnt/data" })).entries.map((entry) => entry.path)).toEqual([
      "/mnt/data/x",
    ]);
    expect((await rejection(listDirectory(files, { path: "/mnt" }))).code).toBe("path_outside_sandbox");
  });
});

describe("globFiles", () => {
  beforeEach(() =>
    files.seed({
      "/workspace/main.py": "",
      "/workspace/src/app.py": "",
      "/workspace/src/deep/er/mod.py": "",
      "/workspace/src/readme.md": "",
      "/workspace/.hidden.py": "",
    }),
  );

  it("matches files at any depth with **", async () => {
    const { matches } = await globFiles(files, { pattern: "**/*.py" });
    expect(matches.map((match) => match.path)).toEqual([
      "/workspace/.hidden.py",
      "/workspace/main.py",
      "/workspace/src/app.py",
      "/workspace/src/deep/er/mod.py",
    ]);
    expect(matches.every((match) => match.is_dir === false)).toBe(true);
  });

  it("keeps * within one directory", async () => {
    const { matches } = await globFiles(files, { pattern: "*.py", path: "src" });
    expect(matches.map((match) => match.path)).toEqual(["/workspace/src/app.py"]);
  });

  it("supports braces and absolute patterns", async () => {
    expect((await globFiles(files, { pattern: "src/*.{md,py}" })).matches).toHaveLength(2);
    expect((await globFiles(files, { pattern: "/workspace/src/**" })).matches).toHaveLength(3);
  });

  it("never leaves the search root", async () => {
    files.seed({ "/tmp/secret.py": "" });
    expect((await globFiles(files, { pattern: "../tmp/*.py" })).matches).toEqual([]);
    expect((await globFiles(files, { pattern: "/tmp/*.py" })).matches).toEqual([]);
  });
});
