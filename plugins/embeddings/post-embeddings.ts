/**
 * One `POST {base}/embeddings`, bounded in time and in answer size, that
 * returns the parsed JSON of a 2xx answer and turns everything else into an EmbeddingFailure.
 * Redirects are refused, so the texts reach only the configured address.
 */
import { Agent as HttpAgent, request as httpRequest } from "node:http";
import { Agent as HttpsAgent, globalAgent as httpsGlobalAgent, request as httpsRequest } from "node:https";
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
  let answer: Answer;
  try {
    answer = await exchange(post, signal === undefined ? timeout : AbortSignal.any([signal, timeout]));
  } catch (error) {
    // Connecting and reading fail alike: by who aborted, else the server is unreachable.
    if (signal?.aborted) throw failure("aborted", "the embedding call was cancelled", { cause: error });
    if (timeout.aborted) {
      throw failure("timeout", `${who} did not answer within ${post.timeoutSeconds} s`, { cause: error });
    }
    const code = (error as { code?: unknown }).code;
    const reason = typeof code === "string" ? ` (${code})` : "";
    throw failure("unreachable", `${who} is unreachable${reason}`, { cause: error });
  }
  const { status, text } = answer;
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

interface Answer {
  status: number;
  /** The body, or null (and the rest left unread) once it passed `maxAnswerBytes`. */
  text: string | null;
}

/**
 * Connections kept alive as the global agents keep them (and through the proxy NODE_USE_ENV_PROXY
 * sets, as theirs), but an idle one is closed after 4 s: the model server (uvicorn) closes its end
 * after 5 s, and the global agents' 5 s would now and then send a request down a connection the
 * server was closing.
 */
const idleConnectionMilliseconds = 4_000;
const agentOptions = {
  keepAlive: true,
  timeout: idleConnectionMilliseconds,
  // The environment's proxy settings when NODE_USE_ENV_PROXY is on (both global agents hold them).
  proxyEnv: httpsGlobalAgent.options.proxyEnv,
};
const httpAgent = new HttpAgent(agentOptions);
const httpsAgent = new HttpsAgent(agentOptions);

/**
 * The POST over node:http or node:https. Nothing follows a redirect: its status is the answer.
 * Not the global fetch: through it a query's embedding cost the serving thread about 1 ms more of
 * CPU, and took about as much longer (test/bench/model-server.ts).
 */
function exchange(post: EmbeddingsPost, signal: AbortSignal): Promise<Answer> {
  const url = new URL(post.endpoint);
  const secure = url.protocol === "https:";
  const body = Buffer.from(JSON.stringify(post.body));
  // Identity asked for: node:http does not decompress, and a request naming no encoding leaves
  // the server free to choose one.
  const headers = {
    ...post.headers,
    "content-length": String(body.byteLength),
    "accept-encoding": "identity",
  };
  return new Promise((resolve, reject) => {
    const outgoing = (secure ? httpsRequest : httpRequest)(
      url,
      { method: "POST", headers, signal, agent: secure ? httpsAgent : httpAgent },
      (incoming) => {
        const status = incoming.statusCode ?? 0;
        const chunks: Buffer[] = [];
        let size = 0;
        incoming.on("data", (chunk: Buffer) => {
          size += chunk.byteLength;
          if (size <= post.maxAnswerBytes) chunks.push(chunk);
          else {
            incoming.destroy();
            resolve({ status, text: null });
          }
        });
        incoming.on("end", () => resolve({ status, text: Buffer.concat(chunks).toString("utf8") }));
        incoming.on("error", reject);
      },
    );
    outgoing.on("error", reject);
    outgoing.end(body);
  });
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
