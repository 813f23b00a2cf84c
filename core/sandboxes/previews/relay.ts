/**
 * The preview relay: one process per sandbox, started in the sandbox itself (the runtime's
 * `spawnProcess`, so in its network namespace, as its user, with its limits), that opens TCP
 * connections to 127.0.0.1:<port> of the sandbox's own loopback and carries their bytes over its
 * stdin and stdout, many connections multiplexed. The sandbox keeps no network: nothing listens
 * for it, and the relay can reach only its own loopback (docs/sandboxes.md#previews).
 *
 * Frames both ways: type (1 byte), channel (uint32), length (uint32), payload. Server → relay:
 * open (payload: port as uint16), data, end (half close), close. Relay → server: connected, data,
 * end, close.
 */
import { ServiceError } from "../../errors.ts";
import type { SandboxProcess } from "../../ports/sandbox-runtime.ts";

const frame = { open: 1, data: 2, end: 3, close: 4, connected: 5 } as const;

/**
 * The relay runs in the sandbox, so what it writes is the tenant's: a frame longer than this ends
 * the relay, and a connection whose reader lags this many bytes behind is cut, so the server
 * never holds more than that of a sandbox's bytes per connection.
 */
const maxFrameBytes = 4 * 1_048_576;
const maxQueuedBytes = 8 * 1_048_576;

/** The relay program, run by the jail's /usr/bin/node. */
export const relaySource = `const net=require("net");const chans=new Map();let buf=Buffer.alloc(0);
function send(t,c,p){const h=Buffer.alloc(9);h[0]=t;h.writeUInt32BE(c,1);h.writeUInt32BE(p?p.length:0,5);process.stdout.write(p&&p.length?Buffer.concat([h,p]):h);}
function handle(t,c,p){if(t===1){const port=p.readUInt16BE(0);const s=net.connect({host:"127.0.0.1",port});s.setNoDelay(true);chans.set(c,s);
s.on("connect",()=>send(5,c));s.on("data",d=>send(2,c,d));s.on("end",()=>send(3,c));s.on("error",()=>{});s.on("close",()=>{if(chans.delete(c))send(4,c);});return;}
const s=chans.get(c);if(!s)return;if(t===2)s.write(p);else if(t===3)s.end();else if(t===4){chans.delete(c);s.destroy();}}
process.stdin.on("data",d=>{buf=buf.length?Buffer.concat([buf,d]):d;while(buf.length>=9){const n=buf.readUInt32BE(5);if(buf.length<9+n)break;const t=buf[0],c=buf.readUInt32BE(1),p=buf.subarray(9,9+n);buf=buf.subarray(9+n);handle(t,c,p);}});
process.stdin.on("end",()=>process.exit(0));`;

export const relayCommand = ["/usr/bin/node", "-e", relaySource];

/** One TCP connection to a port of the sandbox's loopback. */
export interface PortConnection {
  /** Settles true when the port refused the connection (nothing listens), false once connected. */
  refused: Promise<boolean>;
  readable: ReadableStream<Uint8Array>;
  write(bytes: Uint8Array): Promise<void>;
  /** No more bytes from this side (the peer may still answer). */
  end(): Promise<void>;
  /** Closes both ways; idempotent. */
  close(): void;
}

interface Channel {
  controller: ReadableStreamDefaultController<Uint8Array>;
  connected: (value: boolean) => void;
  closed: boolean;
}

function header(type: number, channel: number, length: number): Uint8Array {
  const bytes = new Uint8Array(9);
  const view = new DataView(bytes.buffer);
  view.setUint8(0, type);
  view.setUint32(1, channel);
  view.setUint32(5, length);
  return bytes;
}

function encode(type: number, channel: number, payload?: Uint8Array): Uint8Array {
  const head = header(type, channel, payload?.length ?? 0);
  if (!payload || payload.length === 0) return head;
  const bytes = new Uint8Array(9 + payload.length);
  bytes.set(head);
  bytes.set(payload, 9);
  return bytes;
}

export interface Relay {
  open(port: number): Promise<PortConnection>;
  /** Settles when the relay process has ended. */
  readonly ended: Promise<void>;
  close(): void;
}

/** The server's side of a relay process: opens channels and routes frames. */
export function connectRelay(process: SandboxProcess): Relay {
  const channels = new Map<number, Channel>();
  const writer = process.stdin.getWriter();
  let nextChannel = 1;
  let ended = false;
  const send = (type: number, channel: number, payload?: Uint8Array) =>
    ended ? Promise.resolve() : writer.write(encode(type, channel, payload)).catch(() => {});

  const finish = (channel: number) => {
    const entry = channels.get(channel);
    if (!entry) return;
    channels.delete(channel);
    entry.connected(false);
    if (!entry.closed) {
      entry.closed = true;
      try {
        entry.controller.close();
      } catch {}
    }
  };

  process.stderr?.cancel().catch(() => {});
  const reading = (async () => {
    const reader = process.stdout.getReader();
    let buffer: Uint8Array = new Uint8Array(0);
    for (;;) {
      const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (done || !value) break;
      if (buffer.length === 0) buffer = value;
      else {
        const joined = new Uint8Array(buffer.length + value.length);
        joined.set(buffer);
        joined.set(value, buffer.length);
        buffer = joined;
      }
      while (buffer.length >= 9) {
        const view = new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength);
        const length = view.getUint32(5);
        if (length > maxFrameBytes) {
          process.kill();
          buffer = new Uint8Array(0);
          break;
        }
        if (buffer.length < 9 + length) break;
        const type = view.getUint8(0);
        const channel = view.getUint32(1);
        const payload = buffer.slice(9, 9 + length);
        buffer = buffer.subarray(9 + length);
        const entry = channels.get(channel);
        if (!entry) continue;
        if (type === frame.connected) entry.connected(true);
        else if (type === frame.data && !entry.closed) {
          entry.controller.enqueue(payload);
          if ((entry.controller.desiredSize ?? 0) < -maxQueuedBytes) {
            entry.closed = true;
            entry.controller.error(new Error("the preview's reader fell too far behind"));
            void send(frame.close, channel);
            channels.delete(channel);
          }
        } else if (type === frame.end && !entry.closed) {
          entry.closed = true;
          entry.controller.close();
        } else if (type === frame.close) finish(channel);
      }
    }
    ended = true;
    for (const channel of [...channels.keys()]) finish(channel);
  })();

  return {
    ended: reading,
    async open(port) {
      if (ended) throw new ServiceError("sandbox_operation_failed", "The sandbox's preview relay has ended");
      const channel = nextChannel++;
      let connected!: (value: boolean) => void;
      const ready = new Promise<boolean>((resolve) => {
        connected = resolve;
      });
      const readable = new ReadableStream<Uint8Array>(
        {
          start(controller) {
            channels.set(channel, { controller, connected, closed: false });
          },
          cancel() {
            void send(frame.close, channel);
            channels.delete(channel);
          },
        },
        new ByteLengthQueuingStrategy({ highWaterMark: 65_536 }),
      );
      const portBytes = new Uint8Array(2);
      new DataView(portBytes.buffer).setUint16(0, port);
      // Bytes written before the connection is made wait in the relay's socket, so the caller
      // writes its request at once rather than after a round trip; only a refusal is waited for.
      void send(frame.open, channel, portBytes);
      const refused = ready.then((connected) => !connected);
      let closed = false;
      return {
        refused,
        readable,
        write: (bytes) => (closed ? Promise.resolve() : send(frame.data, channel, bytes)),
        end: () => (closed ? Promise.resolve() : send(frame.end, channel)),
        close() {
          if (closed) return;
          closed = true;
          void send(frame.close, channel);
          finish(channel);
        },
      };
    },
    close() {
      ended = true;
      writer.close().catch(() => {});
      process.kill();
    },
  };
}
