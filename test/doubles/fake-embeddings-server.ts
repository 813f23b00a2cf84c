/**
 * For the embeddings tests: a real HTTP server on a loopback port that speaks OpenAI's embeddings
 * shape and records every request it receives, standing in for the model server or a managed
 * provider. Its answer can be replaced per test (errors, bad bodies, silence).
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
  /** The body parsed as JSON, or the raw text when it is not JSON. */
  body: unknown;
}

export interface EmbeddingsRequestBody {
  model?: string;
  input: string[];
  dimensions?: number;
}

/** What the recorder sends back: a status and a body (objects are sent as JSON), or no answer at all. */
export type RecorderAnswer =
  | { status: number; body: unknown; headers?: Record<string, string> }
  | "no_answer";

export interface FakeEmbeddingsServer {
  url: string;
  requests: RecordedRequest[];
  answer: (request: RecordedRequest) => RecorderAnswer;
  close(): Promise<void>;
}

/**
 * A deterministic, unnormalised vector for a text: its length, its character-code sum and a
 * constant, padded or cut to `dimensions`, so tests can check both order and normalisation.
 */
export function rawVector(text: string, dimensions = 4): number[] {
  const sum = [...text].reduce((total, character) => total + (character.codePointAt(0) ?? 0), 0);
  const base = [text.length, sum % 997, 3, 1 + (sum % 7)];
  return Array.from({ length: dimensions }, (_, position) => base[position % base.length] + position);
}

/** OpenAI's answer for a request, with `data` deliberately in reverse order (clients must use `index`). */
export function openAiAnswer(request: RecordedRequest, model = "recorded-model"): RecorderAnswer {
  const body = request.body as EmbeddingsRequestBody;
  const data = body.input.map((text, index) => ({
    object: "embedding",
    embedding: rawVector(text, body.dimensions ?? 4),
    index,
  }));
  return { status: 200, body: { object: "list", data: data.reverse(), model: body.model ?? model } };
}

export async function startFakeEmbeddingsServer(): Promise<FakeEmbeddingsServer> {
  const requests: RecordedRequest[] = [];
  const held: ServerResponse[] = [];
  const recorder = { answer: openAiAnswer } as Pick<FakeEmbeddingsServer, "answer">;
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // kept as text
    }
    const recorded = {
      method: request.method ?? "",
      path: request.url ?? "",
      headers: request.headers,
      body,
    };
    requests.push(recorded);
    const answer = recorder.answer(recorded);
    if (answer === "no_answer") {
      held.push(response);
      return;
    }
    const payload = typeof answer.body === "string" ? answer.body : JSON.stringify(answer.body);
    response.writeHead(answer.status, { "content-type": "application/json", ...answer.headers });
    response.end(payload);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  return Object.assign(recorder, {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    async close() {
      for (const response of held) response.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  });
}
