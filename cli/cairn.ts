#!/usr/bin/env node
/**
 * The `cairn` command. For now it holds one command, `cairn mcp serve`, the stdio MCP server;
 * the rest of the CLI joins it here. Configuration errors print one line on stderr and exit 1.
 */
import { parseArgs } from "node:util";
import { toolProfiles } from "../transports/mcp/profiles.ts";
import { checkBaseUrl, defaultBaseUrl } from "./base-url.ts";
import { serveMcpOverStdio } from "./mcp-serve.ts";

const usage = `Usage: cairn mcp serve [--tools memory|sandbox|all]

Serves Cairn's MCP tools on stdio, forwarding to the server at CAIRN_BASE_URL
(default ${defaultBaseUrl}) with the API key in CAIRN_API_KEY.`;

/** The server's own words when it refused (its error envelope sits at the end of the SDK's message). */
function upstreamProblem(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const envelope = message.match(/\{"error":.*\}$/)?.[0];
  if (envelope) {
    try {
      const { error: body } = JSON.parse(envelope) as { error: { code: string; message: string } };
      return `the server refused: ${body.message} [${body.code}]`;
    } catch {}
  }
  return message;
}

function fail(message: string, code = 1): never {
  process.stderr.write(`cairn: ${message}\n`);
  process.exit(code);
}

async function main(argv: string[]) {
  let parsed: ReturnType<
    typeof parseArgs<{
      options: { tools: { type: "string" }; help: { type: "boolean"; short: "h" } };
      allowPositionals: true;
    }>
  >;
  try {
    parsed = parseArgs({
      args: argv,
      options: { tools: { type: "string" }, help: { type: "boolean", short: "h" } },
      allowPositionals: true,
    });
  } catch (error) {
    fail(`${(error as Error).message}\n${usage}`, 2);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(`${usage}\n`);
    return;
  }
  if (positionals.join(" ") !== "mcp serve")
    fail(`unknown command: ${positionals.join(" ") || "(none)"}\n${usage}`, 2);
  const tools = values.tools ?? "all";
  if (!(toolProfiles as readonly string[]).includes(tools))
    fail(`--tools must be one of ${toolProfiles.join(", ")}, not ${JSON.stringify(tools)}`);
  const checked = checkBaseUrl(process.env.CAIRN_BASE_URL || defaultBaseUrl);
  if ("problem" in checked) fail(checked.problem);
  const apiKey = process.env.CAIRN_API_KEY;
  if (!apiKey) fail("CAIRN_API_KEY is not set: create an API key (POST /v1/api-keys) and export it");
  try {
    await serveMcpOverStdio({ baseUrl: checked.url, apiKey, tools });
  } catch (error) {
    fail(`cannot connect to the Cairn MCP server at ${checked.url}/mcp: ${upstreamProblem(error)}`);
  }
}

await main(process.argv.slice(2));
