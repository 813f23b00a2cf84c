/** Runs the conformance scenario against the server at the given base URL (Node or Deno); exit 1 on failure. */
import { readFile } from "node:fs/promises";
import { runConformance } from "./conformance-runner.ts";

const text = await readFile(new URL("../../../test/conformance/scenario.json", import.meta.url), "utf8");
const { ok, lines } = await runConformance(process.argv[2], text);
console.log(lines.join("\n"));
if (!ok) process.exit(1);
