/**
 * `CAIRN_BASE_URL` and `CAIRN_API_KEY` (CONTRACT §0), where the runtime has an environment: Node's
 * and Deno's `process.env`. Browsers have none, and Deno without `--allow-env` refuses the read:
 * both give `undefined`, as an empty value does.
 */
export function environmentValue(name: "CAIRN_BASE_URL" | "CAIRN_API_KEY"): string | undefined {
  const runtime = globalThis as { process?: { env?: Record<string, string | undefined> } };
  try {
    return runtime.process?.env?.[name] || undefined;
  } catch {
    return undefined;
  }
}
