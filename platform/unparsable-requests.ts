/**
 * Requests Node's HTTP parser refuses before the app sees them (its `clientError`): answered with
 * the error envelope and the headers every answer carries, as the contract asks of every failure,
 * then the connection is closed. Node's own answer was a bare status line.
 */
import { STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import { type ErrorCode, errorCodes } from "../core/index.ts";
import { httpStatuses } from "../transports/http-status.ts";

/** Node's parse failures as the contract's codes: every answer, even these, is the error envelope. */
function unparsableError(error: Error & { code?: string }): {
  code: ErrorCode;
  message: string;
  remediation?: string;
} {
  if (error.code === "HPE_HEADER_OVERFLOW")
    return {
      code: "payload_too_large",
      message: "Request headers are too large: at most 16 KiB, the URL included",
      remediation: "Send fewer or shorter headers, or move long values from the URL into a request body.",
    };
  if (error.code === "ERR_HTTP_REQUEST_TIMEOUT")
    return { code: "request_timeout", message: "The request's headers or body did not arrive in time" };
  // llhttp's reason names the rule broken ("Invalid method encountered"), never the bytes sent.
  const reason = (error as { reason?: unknown }).reason;
  const detail =
    typeof reason === "string" && reason !== "" ? `: ${reason.replace(/[^\x20-\x7e]/g, "")}` : "";
  return { code: "malformed_request", message: `The request is not valid HTTP/1.1${detail}` };
}

/**
 * Answers a request Node could not parse, before the app sees it: headers past Node's limit
 * (16 KiB, the URL included), a request that is not HTTP/1.1 (a raw non-ASCII byte in the URL, a
 * bad header) or one that arrived too slowly get the error envelope and the headers every answer
 * carries, and the connection is closed.
 */
export function answerUnparsable(error: Error & { code?: string }, socket: Duplex): void {
  if (!socket.writable || error.code === "ECONNRESET") {
    socket.destroy();
    return;
  }
  const { code, message, remediation = errorCodes[code].remediation } = unparsableError(error);
  const { retryable } = errorCodes[code];
  const body = JSON.stringify({ error: { code, message, retryable, remediation } });
  const status = httpStatuses[code];
  socket.end(
    [
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? "Error"}`,
      "Content-Type: application/json",
      `Content-Length: ${Buffer.byteLength(body)}`,
      `X-Request-ID: ${crypto.randomUUID().replaceAll("-", "")}`,
      "X-Frame-Options: DENY",
      "Content-Security-Policy: frame-ancestors 'none'",
      "X-Content-Type-Options: nosniff",
      "Connection: close",
      "",
      body,
    ].join("\r\n"),
  );
}
