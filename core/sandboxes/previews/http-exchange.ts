/**
 * One HTTP/1.1 exchange over a raw connection to a sandbox port: the request written with
 * `Connection: close` (its body streamed, chunked when its length is unknown), the answer parsed
 * into a web Response whose body streams as the server in the sandbox writes it. Web-standard, so
 * previews work the same on Node and Deno.
 */
import { hopByHopHeaders } from "../hop-by-hop.ts";
import type { PortConnection } from "./relay.ts";

/** Not passed on: this connection's own framing sets them. */
const hopByHop = new Set([...hopByHopHeaders, "host", "content-length"]);

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The request head a sandbox server receives (also for upgrades, with `upgrade` set). */
export function requestHead(
  request: Request,
  target: string,
  port: number,
  options: { upgrade?: boolean; bodyLength?: number | null } = {},
): string {
  const lines = [`${request.method} ${target} HTTP/1.1`, `Host: localhost:${port}`];
  const original = new URL(request.url);
  request.headers.forEach((value, name) => {
    if (options.upgrade ? name === "host" : hopByHop.has(name)) return;
    lines.push(`${name}: ${value}`);
  });
  lines.push(
    `X-Forwarded-Host: ${original.host}`,
    `X-Forwarded-Proto: ${original.protocol.replace(":", "")}`,
  );
  if (!options.upgrade) {
    if (options.bodyLength !== undefined && options.bodyLength !== null)
      lines.push(`Content-Length: ${options.bodyLength}`);
    else if (options.bodyLength === null) lines.push("Transfer-Encoding: chunked");
    lines.push("Connection: close");
  }
  return `${lines.join("\r\n")}\r\n\r\n`;
}

export type ByteReader = ReturnType<typeof createByteReader>;

/** Reads bytes off a stream with push-back, for parsing a head then passing the rest on. */
function createByteReader(stream: ReadableStream<Uint8Array>) {
  const reader = stream.getReader();
  let pending: Uint8Array = new Uint8Array(0);
  return {
    async fill(): Promise<boolean> {
      const { done, value } = await reader.read();
      if (done || !value) return false;
      const joined = new Uint8Array(pending.length + value.length);
      joined.set(pending);
      joined.set(value, pending.length);
      pending = joined;
      return true;
    },
    get pending() {
      return pending;
    },
    take(count: number): Uint8Array {
      const taken = pending.slice(0, count);
      pending = pending.subarray(count);
      return taken;
    },
    cancel: () => reader.cancel().catch(() => {}),
  };
}

function indexOfHeadEnd(bytes: Uint8Array): number {
  for (let index = 0; index + 3 < bytes.length; index++) {
    if (bytes[index] === 13 && bytes[index + 1] === 10 && bytes[index + 2] === 13 && bytes[index + 3] === 10)
      return index;
  }
  return -1;
}

const maxHeadBytes = 65_536;

/** Proxies `request` to the server on `port` over `connection`; the answer streams its body. */
export async function exchange(
  connection: PortConnection,
  request: Request,
  target: string,
  port: number,
): Promise<Response> {
  const declared = request.headers.get("content-length");
  const hasBody = request.body !== null && request.method !== "GET" && request.method !== "HEAD";
  const bodyLength = hasBody ? (declared !== null ? Number(declared) : null) : undefined;
  await connection.write(encoder.encode(requestHead(request, target, port, { bodyLength })));
  if (hasBody && request.body) {
    const chunked = bodyLength === null;
    void (async () => {
      const reader = request.body!.getReader();
      for (;;) {
        const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
        if (done || !value) break;
        if (!chunked) await connection.write(value);
        else {
          await connection.write(encoder.encode(`${value.length.toString(16)}\r\n`));
          await connection.write(value);
          await connection.write(encoder.encode("\r\n"));
        }
      }
      if (chunked) await connection.write(encoder.encode("0\r\n\r\n"));
    })();
  }
  // Not an upgrade: a 101 is skipped like any informational answer, so a response comes back.
  const answer = await readAnswer(connection, request.method, port, false);
  return (answer as { response: Response }).response;
}

/** What a switch of protocols left: the answer's headers, and the bytes the server sent since. */
export interface SwitchedProtocols {
  headers: Headers;
  bytes: ByteReader;
}

/**
 * Reads the answer to a request written on `connection`. With `upgrade`, a 101 is the answer (the
 * connection then speaks the new protocol); otherwise an informational answer is skipped.
 */
export async function readAnswer(
  connection: PortConnection,
  method: string,
  port: number,
  upgrade: boolean,
): Promise<{ response: Response } | { switched: SwitchedProtocols }> {
  const bytes = createByteReader(connection.readable);
  for (;;) {
    let end = indexOfHeadEnd(bytes.pending);
    while (end < 0) {
      if (bytes.pending.length > maxHeadBytes || !(await bytes.fill())) {
        connection.close();
        const refused = await connection.refused;
        const reason = refused
          ? `Nothing listens on port ${port} in the sandbox`
          : "The sandbox server closed the connection without an answer";
        return {
          response: Response.json(
            { error: { code: "sandbox_operation_failed", message: reason, retryable: true } },
            { status: 502 },
          ),
        };
      }
      end = indexOfHeadEnd(bytes.pending);
    }
    const head = decoder.decode(bytes.take(end + 4)).split("\r\n");
    const status = Number(head[0]?.split(" ")[1]);
    const headers = new Headers();
    for (const line of head.slice(1)) {
      const colon = line.indexOf(":");
      if (colon <= 0) continue;
      const name = line.slice(0, colon).trim().toLowerCase();
      if (hopByHop.has(name) && name !== "content-length") continue;
      headers.append(name, line.slice(colon + 1).trim());
    }
    if (upgrade && status === 101) return { switched: { headers, bytes } };
    if (status >= 100 && status < 200) continue; // 100 Continue and the like: the answer follows.
    const chunked = /chunked/i.test(head.find((line) => /^transfer-encoding:/i.test(line)) ?? "");
    const length = headers.get("content-length");
    const noBody = method === "HEAD" || status === 204 || status === 304;
    if (noBody) {
      connection.close();
      bytes.cancel();
      return { response: new Response(null, { status, headers }) };
    }
    const body = chunked
      ? chunkedBody(bytes, connection)
      : lengthBody(bytes, connection, length === null ? Number.POSITIVE_INFINITY : Number(length));
    return { response: new Response(body, { status, headers }) };
  }
}

function lengthBody(
  bytes: ByteReader,
  connection: PortConnection,
  length: number,
): ReadableStream<Uint8Array> {
  let left = length;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (left <= 0) {
        connection.close();
        controller.close();
        return;
      }
      if (bytes.pending.length === 0 && !(await bytes.fill())) {
        connection.close();
        if (Number.isFinite(left)) controller.error(new Error("the sandbox server cut the answer short"));
        else controller.close();
        return;
      }
      const piece = bytes.take(Math.min(bytes.pending.length, left));
      left -= piece.length;
      controller.enqueue(piece);
    },
    cancel() {
      connection.close();
      bytes.cancel();
    },
  });
}

function chunkedBody(bytes: ByteReader, connection: PortConnection) {
  let left = 0;
  const line = async (): Promise<string | null> => {
    for (;;) {
      const index = bytes.pending.indexOf(10);
      if (index >= 0) return decoder.decode(bytes.take(index + 1)).trim();
      if (bytes.pending.length > maxHeadBytes) return null;
      if (!(await bytes.fill())) return null;
    }
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (left === 0) {
        const size = await line();
        if (size === null) {
          connection.close();
          controller.error(new Error("the sandbox server cut the answer short"));
          return;
        }
        left = Number.parseInt(size, 16);
        if (!(left > 0)) {
          connection.close();
          controller.close();
          return;
        }
      }
      if (bytes.pending.length === 0 && !(await bytes.fill())) {
        connection.close();
        controller.error(new Error("the sandbox server cut the answer short"));
        return;
      }
      const piece = bytes.take(Math.min(bytes.pending.length, left));
      left -= piece.length;
      if (left === 0) {
        // The CRLF after each chunk.
        while (bytes.pending.length < 2) if (!(await bytes.fill())) break;
        bytes.take(2);
      }
      controller.enqueue(piece);
    },
    cancel() {
      connection.close();
      bytes.cancel();
    },
  });
}
