/**
 * The JavaScript runner of test/conformance/scenario.json: each step calls the SDK's public method
 * for its operation and checks the answer as the scenario says. Runs under Node (the vitest suite)
 * and Deno (`deno run --allow-net --allow-read run-conformance.ts <base URL>`).
 */
import { CairnApiError, CairnClient } from "../src/index.ts";

// biome-ignore lint/suspicious/noExplicitAny: scenario arguments are JSON; the SDK method each goes to types it.
type Arguments = Record<string, any>;
type Step = {
  title: string;
  call: string;
  as?: string;
  args: Arguments;
  expect?: Record<string, unknown>[];
  error?: { status: number; code: string; api_error_type?: string };
  save?: Record<string, string>;
};

const calls: Record<string, (client: CairnClient, args: Arguments) => Promise<unknown>> = {
  signup: (client, args) => client.signup(args.email, args.password),
  create_api_key: (client, args) => client.createApiKey(args.access_token, args.name),
  remember: (client, args) =>
    client.remember(args.content, {
      scope: args.scope,
      kind: args.kind,
      metadata: args.metadata,
      importance: args.importance,
    }),
  recall: (client, args) => client.recall(args.query, { scope: args.scope, limit: args.limit }),
  memory_profile: (client, args) => client.memoryProfile({ scope: args.scope, limit: args.limit }),
  memory_relations: (client, args) => client.memoryRelations(args.memory_id, { limit: args.limit }),
  export_memories: (client, args) => client.exportMemories({ scope: args.scope }),
  import_memories: (client, args) => client.importMemories(args.memories, args.relations),
  forget_memory: (client, args) => client.forgetMemory(args.memory_id),
  get_memory: (client, args) => client.getMemory(args.memory_id),
  create_sandbox: (client, args) => client.createSandbox({ label: args.label }),
  get_sandbox: (client, args) => client.getSandbox(args.session_id),
  destroy_sandbox: (client, args) => client.destroySandbox(args.session_id),
  exec: (client, args) => client.exec(args.session_id, args.command, { timeout: args.timeout }),
  file_create: (client, args) => client.fileCreate(args.session_id, args.path, args.content),
  view: (client, args) => client.view(args.session_id, args.path),
  str_replace: (client, args) => client.strReplace(args.session_id, args.path, args.old_str, args.new_str),
  list_tools: (client) => client.listTools(),
  call_tool: (client, args) => client.callTool(args.name, args.input),
};

/** `{{name}}` alone is the saved value itself; inside a longer string it is written into the text. */
function substitute(value: unknown, variables: Record<string, unknown>): unknown {
  if (typeof value === "string") {
    const whole = value.match(/^\{\{(\w+)\}\}$/);
    if (whole) return variables[whole[1]];
    return value.replace(/\{\{(\w+)\}\}/g, (_, name: string) => String(variables[name]));
  }
  if (Array.isArray(value)) return value.map((item) => substitute(item, variables));
  if (value && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, substitute(item, variables)]));
  return value;
}

function pick(value: unknown, path: string): unknown {
  let current: unknown = value;
  for (const [index, part] of path.split(".").entries()) {
    if (part === "*") {
      const rest = path
        .split(".")
        .slice(index + 1)
        .join(".");
      return (current as unknown[]).map((item) => (rest ? pick(item, rest) : item));
    }
    current = (current as Record<string, unknown> | undefined)?.[part];
  }
  return current;
}

const typeOf = (value: unknown) => (Array.isArray(value) ? "array" : value === null ? "null" : typeof value);

function check(result: unknown, expectation: Record<string, unknown>): string | null {
  const actual = pick(result, expectation.path as string);
  const shown = JSON.stringify(actual);
  if ("equals" in expectation && JSON.stringify(actual) !== JSON.stringify(expectation.equals))
    return `${expectation.path} is ${shown}, expected ${JSON.stringify(expectation.equals)}`;
  if ("prefix" in expectation && !String(actual).startsWith(expectation.prefix as string))
    return `${expectation.path} is ${shown}, expected it to start with ${expectation.prefix}`;
  if ("contains" in expectation && !String(actual).includes(expectation.contains as string))
    return `${expectation.path} is ${shown}, expected it to contain ${expectation.contains}`;
  if ("includes" in expectation && !(Array.isArray(actual) && actual.includes(expectation.includes)))
    return `${expectation.path} is ${shown}, expected it to include ${expectation.includes}`;
  if ("type" in expectation && typeOf(actual) !== expectation.type)
    return `${expectation.path} is ${shown}, expected a ${expectation.type}`;
  if (
    "length_at_least" in expectation &&
    !((actual as unknown[])?.length >= (expectation.length_at_least as number))
  )
    return `${expectation.path} is ${shown}, expected at least ${expectation.length_at_least} items`;
  return null;
}

async function runStep(
  step: Step,
  variables: Record<string, unknown>,
  baseUrl: string,
): Promise<string | null> {
  const call = calls[step.call];
  if (!call) return `no SDK method for ${step.call}`;
  const apiKey = step.as ? String(variables[step.as]) : undefined;
  const client = new CairnClient({ baseUrl, apiKey, timeoutMs: 60_000 });
  let result: unknown;
  try {
    result = await call(client, substitute(step.args, variables) as Arguments);
  } catch (error) {
    if (!step.error || !(error instanceof CairnApiError)) return `failed: ${error}`;
    if (error.statusCode !== step.error.status || error.code !== step.error.code)
      return `failed with ${error.statusCode} ${error.code}, expected ${step.error.status} ${step.error.code}`;
    if (step.error.api_error_type && error.apiErrorType !== step.error.api_error_type)
      return `apiErrorType is ${error.apiErrorType}, expected ${step.error.api_error_type}`;
    return null;
  }
  if (step.error) return `succeeded, expected ${step.error.status} ${step.error.code}`;
  for (const expectation of step.expect ?? []) {
    const problem = check(result, substitute(expectation, variables) as Record<string, unknown>);
    if (problem) return problem;
  }
  for (const [name, path] of Object.entries(step.save ?? {})) variables[name] = pick(result, path);
  return null;
}

/** Runs every step in order; returns one line per step and stops at the first failure. */
export async function runConformance(
  baseUrl: string,
  scenarioText: string,
): Promise<{ ok: boolean; lines: string[] }> {
  const scenario = JSON.parse(scenarioText) as { variables: Record<string, unknown>; steps: Step[] };
  const run = Array.from(crypto.getRandomValues(new Uint8Array(6)), (byte) =>
    byte.toString(16).padStart(2, "0"),
  ).join("");
  const variables: Record<string, unknown> = { ...scenario.variables, run };
  const lines: string[] = [];
  for (const step of scenario.steps) {
    const problem = await runStep(step, variables, baseUrl);
    lines.push(problem ? `FAIL ${step.title}: ${problem}` : `ok ${step.title}`);
    if (problem) return { ok: false, lines };
  }
  return { ok: true, lines };
}
