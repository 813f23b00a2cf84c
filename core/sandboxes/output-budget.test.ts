import { describe, expect, it } from "vitest";
import {
  budgetExecStream,
  budgetProcessOutput,
  budgetViewContent,
  cutText,
  formatCount,
} from "./output-budget.ts";

const encoder = new TextEncoder();
const bytesOf = (text: string) => encoder.encode(text).length;

describe("cutText", () => {
  const text = "0123456789abcdefghij"; // 20 bytes

  it("keeps a text that fits whole", () => {
    expect(cutText(text, 20, "both")).toMatchObject({ head: text, tail: "", omittedBytes: 0 });
  });

  it("keeps the head, the tail or half of each, with exact counts", () => {
    expect(cutText(text, 8, "head")).toMatchObject({
      head: "01234567",
      tail: "",
      from: 8,
      to: 20,
      omittedBytes: 12,
    });
    expect(cutText(text, 8, "tail")).toMatchObject({
      head: "",
      tail: "cdefghij",
      from: 0,
      to: 12,
      omittedBytes: 12,
    });
    expect(cutText(text, 7, "both")).toMatchObject({
      head: "0123",
      tail: "hij",
      from: 4,
      to: 17,
      omittedBytes: 13,
    });
  });

  it("never cuts a character: the kept bytes shrink to the nearest boundary", () => {
    const euros = "€€€€"; // 3 bytes each
    expect(cutText(euros, 5, "head")).toMatchObject({ head: "€", omittedBytes: 9 });
    expect(cutText(euros, 5, "tail")).toMatchObject({ tail: "€", omittedBytes: 9 });
    expect(cutText(euros, 7, "both")).toMatchObject({
      head: "€",
      tail: "€",
      from: 3,
      to: 9,
      omittedBytes: 6,
    });
    const emoji = "a😀b😀c"; // 1 + 4 + 1 + 4 + 1 bytes
    const cut = cutText(emoji, 4, "both");
    expect([cut.head, cut.tail, cut.omittedBytes]).toEqual(["a", "c", 9]);
    expect(cut.head + cut.tail).not.toContain("\uFFFD");
  });
});

describe("budgetExecStream", () => {
  it("changes nothing without a budget (REST's default)", () => {
    expect(budgetExecStream("x".repeat(100), "stdout", undefined, "both")).toEqual({
      text: "x".repeat(100),
      omittedBytes: 0,
    });
  });

  it("puts a marker where it cut, naming the bytes and how to get them", () => {
    const output = `${"a".repeat(5000)}${"b".repeat(5000)}`;
    const { text, omittedBytes } = budgetExecStream(output, "stderr", 1000, "both");
    expect(omittedBytes).toBe(9000);
    expect(text).toBe(
      `${"a".repeat(500)}\n… [cut 9,000 bytes of stderr (bytes 500–9,500); run again with a larger max_output_bytes or another keep, or send the output to a file and view it with a view_range] …\n${"b".repeat(500)}`,
    );
    expect(budgetExecStream(output, "stdout", 1000, "head").text.startsWith("a".repeat(1000))).toBe(true);
    expect(budgetExecStream(output, "stdout", 1000, "tail").text.endsWith(`] …\n${"b".repeat(1000)}`)).toBe(
      true,
    );
  });
});

describe("budgetViewContent", () => {
  const file = Array.from({ length: 100 }, (_, index) => `line ${index + 1}`).join("\n");

  it("names the lines the cut touched, counted from the range's first line", () => {
    const whole = budgetViewContent(file, 1, 30, "head");
    expect(whole.omittedBytes).toBe(bytesOf(file) - 30);
    // 30 bytes: "line 1\n" … "line 4\n" are 28, then "li" of line 5.
    expect(whole.omittedLines).toEqual([5, 100]);
    expect(whole.content).toContain("view_range [5, 100]");
    const ranged = budgetViewContent(file.split("\n").slice(9).join("\n"), 10, 16, "tail");
    // The last 16 bytes are "line 99\nline 100": the cut ends with line 98's line feed.
    expect(ranged.omittedLines).toEqual([10, 98]);
    expect(ranged.content.endsWith("] …\nline 99\nline 100")).toBe(true);
  });

  it("leaves a file within the budget whole", () => {
    expect(budgetViewContent("short\n", 1, 100, "head")).toEqual({
      content: "short\n",
      omittedBytes: 0,
      omittedLines: null,
    });
  });
});

describe("budgetProcessOutput", () => {
  const chunk = (stream: "stdout" | "stderr", text: string) => ({ stream, bytes: encoder.encode(text) });
  const page = {
    offset: 1000,
    chunks: [
      chunk("stdout", "a".repeat(40)),
      chunk("stderr", "é".repeat(20)),
      chunk("stdout", "z".repeat(40)),
    ],
  };

  it("keeps the whole page when it fits", () => {
    expect(budgetProcessOutput(page, 200, "both")).toEqual({
      stdout: `${"a".repeat(40)}${"z".repeat(40)}`,
      stderr: "é".repeat(20),
      omittedBytes: 0,
      omittedRange: null,
    });
  });

  it("names the offsets it cut across both streams, so the range can be read back", () => {
    const cut = budgetProcessOutput(page, 20, "both");
    expect(cut.omittedRange).toEqual([1010, 1110]);
    expect(cut.omittedBytes).toBe(100);
    expect(cut.stdout).toBe(
      `${"a".repeat(10)}\n… [cut 60 bytes of stdout (offsets 1,010–1,110 of the output, both streams); read them with since_offset 1010 and keep "head"] …\n${"z".repeat(10)}`,
    );
    expect(cut.stderr).toContain("[cut 40 bytes of stderr (offsets 1,010–1,110");
    const tail = budgetProcessOutput(page, 45, "tail");
    // 45 bytes back from the end start inside an "é": the cut moves to the next character.
    expect(tail.omittedRange).toEqual([1000, 1076]);
    expect(tail.stderr.endsWith("é".repeat(2))).toBe(true);
    expect(tail.stdout.endsWith("z".repeat(40))).toBe(true);
  });
});

it("formats counts with thousands separators", () => {
  expect([formatCount(0), formatCount(999), formatCount(1000), formatCount(1234567)]).toEqual([
    "0",
    "999",
    "1,000",
    "1,234,567",
  ]);
});
