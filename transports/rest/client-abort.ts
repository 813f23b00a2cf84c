/**
 * A client that closes its connection while still sending the request body makes the body read
 * fail. That is no fault of the server (no one is left to answer), so it is logged as a client
 * abort below error level, and answered 400 for the access log and metrics, never 500.
 */
import { ServiceError } from "../../core/index.ts";

/** Whether `thrown` is a request body read cut short by the client hanging up. */
export function isClientAbort(thrown: unknown, request: Request): boolean {
  if (thrown instanceof ServiceError) return false;
  const error = thrown as { code?: unknown; message?: unknown } | null | undefined;
  // Node's IncomingMessage fails the read with ECONNRESET "aborted" (a reset from anywhere else,
  // a database socket say, has another message); a stream closed early says so by its code.
  if (error?.code === "ECONNRESET" && error.message === "aborted") return true;
  if (error?.code === "ERR_STREAM_PREMATURE_CLOSE") return true;
  // Elsewhere (Deno) the read fails otherwise; the request's own signal says the client is gone.
  // The failure's message is still logged, so a coincident server fault is not lost.
  return request.signal.aborted;
}
