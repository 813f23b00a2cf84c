import { describe, expect, it } from "vitest";
import { createOutputLog, incompleteTail } from "./output-log.ts";

const bytes = (text: string) => new TextEncoder().encode(text);
const text = (chunks: Array<{ stream: string; bytes: Uint8Array }>, stream: string) =>
  chunks
    .filter((chunk) => chunk.stream === stream)
    .map((chunk) => new TextDecoder().decode(chunk.bytes))
    .join("");

describe("the output log", () => {
  it("gives both streams one offset space, and pages from next_offset lose and repeat nothing", () => {
    const log = createOutputLog(1 << 20);
    let out = "";
    let err = "";
    for (let index = 0; index < 500; index++) {
      log.append("stdout", bytes(`o${index}é\n`));
      log.append("stderr", bytes(`e${index}✓😀\n`));
      out += `o${index}é\n`;
      err += `e${index}✓😀\n`;
    }
    for (const size of [1, 2, 3, 5, 64, 1000]) {
      let since = 0;
      let readOut = "";
      let readErr = "";
      for (;;) {
        const page = log.read(since, size);
        if (page.nextOffset === since) break;
        expect([page.offset, page.truncated]).toEqual([since, false]);
        readOut += text(page.chunks, "stdout");
        readErr += text(page.chunks, "stderr");
        since = page.nextOffset;
      }
      expect([readOut, readErr, since]).toEqual([out, err, log.totalBytes]);
    }
  });

  it("holds a character split across reads until its rest arrives", () => {
    const log = createOutputLog(1024);
    const check = bytes("✓");
    log.append("stdout", check.subarray(0, 1));
    expect(log.totalBytes).toBe(0);
    log.append("stdout", check.subarray(1));
    expect(text(log.read(0, 1024).chunks, "stdout")).toBe("✓");
    expect([incompleteTail(check.subarray(0, 2)), incompleteTail(check)]).toEqual([2, 0]);
  });

  it("drops the oldest bytes past its capacity, at a character boundary, and says so", () => {
    const log = createOutputLog(10);
    log.append("stdout", bytes("0123456789"));
    log.append("stderr", bytes("éé"));
    expect([log.totalBytes, log.startOffset]).toEqual([14, 4]);
    const page = log.read(0, 100);
    expect([page.offset, page.nextOffset, page.truncated]).toEqual([4, 14, true]);
    expect([text(page.chunks, "stdout"), text(page.chunks, "stderr")]).toEqual(["456789", "éé"]);
  });
});
