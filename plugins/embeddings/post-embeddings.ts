/**
 * One `POST {base}/embeddings` over web-standard fetch, bounded in time and in answer size, that
 * returns the parsed JSON of a 2xx answer and turns everything else into an EmbeddingFailure.
 * Redirects are refused, so the texts reach only the configured address.
 */
import { type EmbeddingDestination, EmbeddingFailure } from "../../core/ports/embeddings.ts";

export interface EmbeddingsPost {
  endpoint: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
  timeoutSeconds: number;
  /** Answers longer than this many bytes are refused unread. */
  maxAnswerBytes: number;
  destination: EmbeddingDestination;
  signal?: AbortSignal;
}

export const describeDestination = (destination: EmbeddingDestination): string =>
  destination === "model_server" ? "the embedding model server" : "the embedding provider";

export async function postEmbeddings(post: EmbeddingsPost): Promise<unknown> {
  const { destination, signal } = post;
  const who = describeDestination(destination);
  const failure = (
    kind: EmbeddingFailure["kind"],
    message: string,
    extra: { status?: number; cause?: unknown } = {},
  ) => new EmbeddingFailure(kind, message, { destination, ...extra });
  const timeout = AbortSignal.timeout(post.timeoutSeconds * 1000);
  let status: number;
  let text: string | null;
  try {
    const response = await fetch(post.endpoint, {
      method: "POST",
      headers: post.headers,
      body: JSON.stringify(post.body),
      signal: signal === undefined ? timeout : AbortSignal.any([signal, timeout]),
      redirect: "manual",
    });
    status = response.status;
    text = await readBounded(response, post.maxAnswerBytes);
  } catch (error) {
    // Connecting and reading fail alike: by who aborted, else the server is unreachable.
    if (signal?.aborted) throw failure("aborted", "the embedding call was cancelled", { cause: error });
    if (timeout.aborted) {
      throw failure("timeout", `${who} did not answer within ${post.timeoutSeconds} s`, { cause: error });
    }
    const code = (error as { cause?: { code?: unknown } }).cause?.code;
    const reason = typeof code === "string" ? ` (${code})` : "";
    throw failure("unreachable", `${who} is unreachable${reason}`, { cause: error });
  }
  if (status < 200 || status > 299) {
    throw failure("rejected", `${who} answered ${status}${errorDetail(status, text ?? "")}`, { status });
  }
  if (text === null)
    throw failure("bad_answer", `${who} answered with more than ${post.maxAnswerBytes} bytes`);
  try {
    return JSON.parse(text);
  } catch (error) {
    throw failure("bad_answer", `${who} answered ${status} with a body that is not JSON`, { cause: error });
  }
}

/** The body as text, or null (and the rest left unread) once it passes `limit` bytes. */
async function readBounded(response: Response, limit: number): Promise<string | null> {
  if (response.body === null) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(bytes);
}

/**
 * `: code` from an error body in OpenAI's or Cairn's shape. The server's message is left out: it
 * may quote the input, and a failure's message must never carry memory content.
 */
function errorDetail(status: number, text: string): string {
  if (status >= 300 && status < 400) return " with a redirect, which is not followed";
  try {
    const error = (JSON.parse(text) as { error?: { code?: unknown; type?: unknown } }).error;
    const code = typeof error?.code === "string" ? error.code : error?.type;
    return typeof code === "string" && /^[\w.-]{1,64}$/.test(code) ? `: ${code}` : "";
  } catch {
    return "";
  }
}
