/**
 * Requests Node's HTTP parser refuses before the app sees them (its `clientError`): answered with
 * the error envelope and the headers every answer carries, as the contract asks of every failure,
 * then the connection is closed. Node's own answer was a bare status line.
 */
import { STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import { ServiceError } from "../core/index.ts";
import { httpStatus } from "../transports/http-status.ts";
import { newRequestId, securityHeaders } from "../transports/rest/create-app.ts";

/** Node's parse failures as the contract's errors: every answer, even these, is the error envelope. */
function unparsableError(error: Error & { code?: string }): ServiceError {
  if (error.code === "HPE_HEADER_OVERFLOW")
    return new ServiceError(
      "payload_too_large",
      "Request headers are too large: at most 16 KiB, the URL included",
      {
        remediation: "Send fewer or shorter headers, or move long values from the URL into a request body.",
      },
    );
  if (error.code === "ERR_HTTP_REQUEST_TIMEOUT")
    return new ServiceError("request_timeout", "The request's headers or body did not arrive in time");
  // llhttp's reason names the rule broken ("Invalid method encountered"), never the bytes sent.
  const reason = (error as { reason?: unknown }).reason;
  const detail =
    typeof reason === "string" && reason !== "" ? `: ${reason.replace(/[^\x20-\x7e]/g, "")}` : "";
  return new ServiceError("malformed_request", `The request is not valid HTTP/1.1${detail}`);
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
  const answer = unparsableError(error);
  const body = JSON.stringify({ error: answer.toBody() });
  const status = httpStatus(answer.code);
  const headers = {
    "Content-Type": "application/json",
    "Content-Length": String(Buffer.byteLength(body)),
    "X-Request-ID": newRequestId(),
    ...securityHeaders,
    Connection: "close",
  };
  socket.end(
    [
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? "Error"}`,
      ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
      "",
      body,
    ].join("\r\n"),
  );
}
