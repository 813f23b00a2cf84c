import { describe, expect, it } from "vitest";
import { asksForHistory } from "./history.ts";

describe("asksForHistory", () => {
  it.each([
    "What was my favorite color before green?",
    "what was the deployment strategy",
    "my former employer",
    "Where did I formerly live?",
    "the original plan",
    "How did we originally deploy?",
    "previous address",
    "prior version of the API",
    "retired services",
    "superseded decisions",
    "Where did I use to live? I used to live in Rome",
    "earlier notes",
    "historical rollout",
    "my old phone number",
    "what did I like before?",
    "WHAT  WAS the plan",
  ])("%j asks for history", (query) => {
    expect(asksForHistory(query)).toBe(true);
  });

  it.each([
    "favorite color",
    "current deployment",
    "beforehand",
    "bold plans",
    "gold prices",
    "priority list",
    "",
  ])("%j does not", (query) => {
    expect(asksForHistory(query)).toBe(false);
  });
});
