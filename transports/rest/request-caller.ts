import type { Context } from "hono";
import { bearerCredential } from "../bearer-credential.ts";

/** Who asks, for \`invoke\`: a REST request's credential, client address, request id and signal. */
export function requestCaller(
  context: Context<{ Variables: { requestId: string } }>,
  options: { clientIp(request: Request, environment: unknown): string },
) {
  return {
    credential: bearerCredential(context.req.header("Authorization")),
    clientIp: options.clientIp(context.req.raw, context.env),
    requestId: context.get("requestId"),
    signal: context.req.raw.signal,
  };
}
