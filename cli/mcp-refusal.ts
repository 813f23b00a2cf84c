/**
 * What a Cairn server's /mcp said when it refused a request at its door, read from the SDK's
 * `StreamableHTTPError` message (which ends with the answer's body): a JSON-RPC error whose `data`
 * is the REST error body, or a REST error envelope (a refusal made before /mcp, such as the body limit).
 */
export interface Refusal {
  code: string;
  message: string;
  retryable?: boolean;
  remediation?: string | null;
  details?: Array<{ msg?: string }>;
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export function refusalIn(errorMessage: string): Refusal | null {
  const start = errorMessage.indexOf("{");
  if (start === -1) return null;
  const answer = parsed(errorMessage.slice(start)) as
    | { error?: { data?: unknown } & Partial<Refusal> }
    | undefined;
  const body = (answer?.error?.data ?? answer?.error) as Partial<Refusal> | undefined;
  return typeof body?.code === "string" && typeof body.message === "string" ? (body as Refusal) : null;
}
