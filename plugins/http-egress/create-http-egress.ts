/**
 * Outbound HTTP for the sandbox broker on Node's http/https. The address check runs in the
 * socket's DNS lookup, so the address connected to is the address checked (no rebinding
 * between a check and the request). Redirects are returned, not followed: a secret sent to an
 * allowed host must not travel on to another.
 */
import { lookup as dnsLookup } from "node:dns";
import { request as httpRequest, type IncomingHttpHeaders } from "node:http";
import { request as httpsRequest } from "node:https";
import { isIP, type LookupFunction } from "node:net";
import { type Egress, isUnsafeAddress, ServiceError } from "../../core/index.ts";

function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, "", 0);
      const list = addresses as Array<{ address: string; family: number }>;
      const unsafe = list.find((entry) => isUnsafeAddress(entry.address));
      if (unsafe && !allowPrivate) {
        return callback(
          Object.assign(new Error("egress to a private address refused"), { code: "CAIRN_EGRESS_DENIED" }),
          "",
          0,
        );
      }
      if (options.all) return callback(null, list as never);
      callback(null, list[0].address, list[0].family);
    });
  };
}

function flattenHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return flat;
}

export function createHttpEgress(): Egress {
  return {
    resolve: (host) =>
      new Promise((resolve) => {
        dnsLookup(host, { all: true }, (error, addresses) =>
          resolve(error ? [] : addresses.map((entry) => entry.address)),
        );
      }),
    request(request) {
      const url = new URL(request.url);
      // Node connects to an IP literal without a lookup, so literals are checked here.
      const literal = url.hostname.replace(/^\[|\]$/g, "");
      if (isIP(literal) && isUnsafeAddress(literal) && !request.allowPrivate) {
        return Promise.reject(
          new ServiceError("egress_denied", `${url.hostname} is a private or internal address`),
        );
      }
      const send = url.protocol === "https:" ? httpsRequest : httpRequest;
      return new Promise((resolvePromise, rejectPromise) => {
        let deadline: ReturnType<typeof setTimeout> | undefined;
        const resolve = (response: Parameters<typeof resolvePromise>[0]) => {
          clearTimeout(deadline);
          resolvePromise(response);
        };
        const reject = (error: unknown) => {
          clearTimeout(deadline);
          rejectPromise(error);
        };
        const outgoing = send(
          url,
          {
            method: request.method,
            headers: request.headers,
            lookup: guardedLookup(request.allowPrivate),
            timeout: request.timeoutSeconds * 1000,
            signal: request.signal,
          },
          (response) => {
            const chunks: Buffer[] = [];
            let size = 0;
            let truncated = false;
            response.on("data", (chunk: Buffer) => {
              if (size >= request.maxResponseBytes) {
                truncated = true;
                return;
              }
              const room = request.maxResponseBytes - size;
              if (chunk.length > room) truncated = true;
              chunks.push(chunk.subarray(0, room));
              size += Math.min(chunk.length, room);
            });
            response.on("end", () =>
              resolve({
                statusCode: response.statusCode ?? 0,
                headers: flattenHeaders(response.headers),
                body: Buffer.concat(chunks).toString("utf8"),
                truncated,
              }),
            );
            response.on("error", reject);
          },
        );
        // Node's `timeout` fires only on an idle socket; a server sending a byte now and then
        // would hold the request (and the caller) for as long as it likes. This bounds the whole.
        deadline = setTimeout(() => {
          reject(new Error("egress request timed out"));
          outgoing.destroy();
        }, request.timeoutSeconds * 1000);
        outgoing.on("timeout", () => outgoing.destroy(new Error("egress request timed out")));
        outgoing.on("error", (error: Error & { code?: string }) => {
          if (error.code === "CAIRN_EGRESS_DENIED") {
            reject(
              new ServiceError("egress_denied", `${url.hostname} resolves to a private or internal address`),
            );
          } else if (error.code === "ENOTFOUND") {
            // The name does not exist or has no address: the request names nothing, and a retry
            // cannot help, so it is the caller's error. EAI_AGAIN (the resolver did not answer)
            // may pass, and stays a retryable upstream failure with refused and reset connections.
            reject(
              new ServiceError("validation_error", "Invalid request", {
                details: [
                  {
                    type: "value_error",
                    loc: ["url"],
                    msg: "the URL's host name does not resolve (no such name or no address)",
                  },
                ],
                cause: error,
              }),
            );
          } else reject(error);
        });
        if (request.body !== null) outgoing.write(request.body);
        outgoing.end();
      });
    },
  };
}
