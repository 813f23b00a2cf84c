/**
 * The takeover terminal's socket half (cli/takeover-terminal.ts), which `cairn attach` and the
 * TUI share, where a live sandbox cannot make the case: a refused connection, and keys arriving
 * as strings (Ink puts stdin in utf8) with the detach key in the middle of a chunk. The sandbox's
 * side is covered live by test/cli/attach.test.ts and test/tui/terminal-live.test.ts.
 */
import { once } from "node:events";
import { createServer } from "node:net";
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { WebSocketServer } from "ws";
import { attachSocket, type LocalTerminal } from "../../cli/takeover-terminal.ts";

const servers: WebSocketServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

function localTerminal(): LocalTerminal & { shown: () => string } {
  const input = new PassThrough();
  const output = Object.assign(new PassThrough(), { rows: 30, columns: 100 });
  let shown = "";
  output.on("data", (chunk: Buffer) => {
    shown += chunk.toString();
  });
  return {
    input: input as unknown as NodeJS.ReadStream,
    output: output as unknown as NodeJS.WriteStream,
    shown: () => shown,
  };
}

/** A port that nothing listens on: taken, then given back. */
async function closedPort(): Promise<number> {
  const server = createServer().listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe("attachSocket", () => {
  it("ends as failed, with a reason, when the terminal cannot be reached", async () => {
    const port = await closedPort();
    const end = await attachSocket(() => `ws://127.0.0.1:${port}/takeover`, localTerminal());
    expect(end).toEqual({ kind: "failed", code: 1006, reason: "could not connect to the terminal" });
  });

  it("sends the size first, keys as bytes up to the detach key, and nothing after it", async () => {
    const server = new WebSocketServer({ port: 0, host: "127.0.0.1" });
    servers.push(server);
    await once(server, "listening");
    const received: Buffer[] = [];
    let textFrames = 0;
    let requested = "";
    const closed = new Promise<number>((resolve) => {
      server.on("connection", (socket, request) => {
        requested = request.url ?? "";
        socket.send(Buffer.from("$ "));
        // A text frame is a control message to the server: keys must go as binary ones.
        socket.on("message", (data: Buffer, isBinary) => {
          if (isBinary) received.push(data);
          else textFrames++;
        });
        socket.on("close", (code) => resolve(code));
      });
    });
    const local = localTerminal();
    const { port } = server.address() as { port: number };
    const ended = attachSocket(
      ({ rows, cols }) => `ws://127.0.0.1:${port}/t?rows=${rows}&cols=${cols}`,
      local,
    );
    await new Promise<void>((resolve) => {
      const check = () => (local.shown() === "$ " ? resolve() : setTimeout(check, 10));
      check();
    });
    local.input.setEncoding("utf8");
    (local.input as unknown as PassThrough).write("ls é\r");
    (local.input as unknown as PassThrough).write(Buffer.from("pwd\r\u001dnot sent"));
    expect(await ended).toEqual({ kind: "detached" });
    expect(await closed).toBe(1000);
    expect(requested).toBe("/t?rows=30&cols=100");
    expect(Buffer.concat(received).toString()).toBe("ls é\rpwd\r");
    expect(textFrames).toBe(0);
  });
});
