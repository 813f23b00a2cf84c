/**
 * The size of tools/list for all built-in tools, as an agent's context receives it, from the
 * registry (no server): characters of JSON in total and per part, and tokens. Target: at most
 * 20,000 characters (test/mcp/tools-list-size.test.ts holds it). Tokens are counted with
 * `gpt-tokenizer` (o200k_base) when it can be imported (it is no dependency of Cairn:
 * `npm install --no-save gpt-tokenizer` first), else estimated as characters / 4.
 * Run with `node test/bench/tools-list-size.ts`.
 */
import { mcpTools } from "../../transports/mcp/tools.ts";

type Counter = { name: string; count(text: string): number };

async function tokenCounter(): Promise<Counter> {
  const module = "gpt-tokenizer";
  try {
    const { countTokens } = (await import(module)) as { countTokens(text: string): number };
    return { name: "o200k_base (gpt-tokenizer)", count: countTokens };
  } catch {
    return { name: "estimate (characters / 4)", count: (text) => Math.round(text.length / 4) };
  }
}

const tools = mcpTools();
const definitions = tools.map((tool) => tool.definition);
const structured = tools.map((tool) => ({
  ...tool.definition,
  title: tool.title,
  outputSchema: tool.outputSchema,
}));
const tokens = await tokenCounter();
const sizeOf = (value: unknown) => JSON.stringify(value).length;
const part = (key: string, listed: readonly object[] = definitions) =>
  listed.reduce((sum, definition) => sum + sizeOf((definition as Record<string, unknown>)[key] ?? ""), 0);

const rows: Array<[string, string]> = [
  ["tools", String(definitions.length)],
  ["tools/list (default, text, both)", `${sizeOf({ tools: definitions })} chars`],
  ["  descriptions", `${part("description")} chars`],
  ["  inputSchema", `${part("inputSchema")} chars`],
  ["  annotations", `${part("annotations")} chars`],
  [`tokens, ${tokens.name}`, String(tokens.count(JSON.stringify({ tools: definitions })))],
  ["tools/list (?results=structured)", `${sizeOf({ tools: structured })} chars`],
  ["  titles (listed there only)", `${part("title", structured)} chars`],
  ["  output schemas (listed there only)", `${part("outputSchema", structured)} chars`],
  [`tokens, ${tokens.name}`, String(tokens.count(JSON.stringify({ tools: structured })))],
];
for (const [label, value] of rows) console.log(`${label.padEnd(48)} ${value}`);
