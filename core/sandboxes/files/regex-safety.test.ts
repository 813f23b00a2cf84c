import { describe, expect, it } from "vitest";
import { compileUserPattern, hasNestedQuantifier } from "./regex-safety.ts";

describe("hasNestedQuantifier", () => {
  it.each(["(a+)+", "(a*)*", "(\\w+\\s?)*$", "((ab)+c)+", "(?:x+y)*", "(a+){2,}", "(.*a){10}"])(
    "flags %s",
    (pattern) => {
      expect(hasNestedQuantifier(pattern)).toBe(true);
    },
  );

  it.each(["a+b*", "(ab)+", "(a+)?", "(a|b)*c", "[(+)]+", "\\(a+\\)+", "(a+)x+", "(a{1})+", "^--output"])(
    "accepts %s",
    (pattern) => {
      expect(hasNestedQuantifier(pattern)).toBe(false);
    },
  );
});

describe("compileUserPattern", () => {
  it("compiles a plain pattern with search semantics", () => {
    const compiled = compileUserPattern("^status( |$)");
    expect(compiled.ok && compiled.regex.test("status --short")).toBe(true);
  });

  it("reports invalid syntax", () => {
    const compiled = compileUserPattern("[");
    expect(compiled.ok).toBe(false);
    if (!compiled.ok) expect(compiled.reason).toContain("invalid regular expression");
  });
});
