/**
 * Streams over an open host file of a sandbox (file-system.ts opens it safely first): a file's
 * bytes read out chunk by chunk, and a stream written into a file with a byte limit, so the raw
 * file routes never hold a whole file (docs/api.md#raw-files).
 */
import type { FileHandle } from "node:fs/promises";
import { ServiceError } from "../../core/index.ts";

/** How much of a file one read of a download stream takes. */
const streamChunkBytes = 1024 * 1024;

/**
 * Exactly `size` bytes of the open file, read as the stream is pulled; the stream closes the
 * file when it ends, fails or is cancelled. A file that shrank meanwhile fails the stream.
 */
export function fileReadStream(
  file: FileHandle,
  size: number,
  sandboxPath: string,
): ReadableStream<Uint8Array> {
  let position = 0;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const length = Math.min(streamChunkBytes, size - position);
          if (length === 0) {
            await file.close();
            controller.close();
            return;
          }
          const buffer = Buffer.alloc(length);
          const { bytesRead } = await file.read(buffer, 0, length, position);
          if (bytesRead === 0) throw new Error(`${sandboxPath} shrank while it was read`);
          position += bytesRead;
          controller.enqueue(buffer.subarray(0, bytesRead));
        } catch (error) {
          await file.close().catch(() => {});
          controller.error(error);
        }
      },
      async cancel() {
        await file.close().catch(() => {});
      },
    },
    { highWaterMark: 0 },
  );
}

/** Writes the stream into the open file; past `maxBytes` it stops with payload_too_large. */
export async function writeStreamInto(
  file: FileHandle,
  content: ReadableStream<Uint8Array>,
  maxBytes: number,
): Promise<void> {
  const reader = content.getReader();
  let written = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      written += value.length;
      if (written > maxBytes) {
        throw new ServiceError("payload_too_large", `Request body is larger than ${maxBytes} bytes`, {
          details: { max_bytes: maxBytes },
        });
      }
      for (let offset = 0; offset < value.length; ) {
        const { bytesWritten } = await file.write(value, offset, value.length - offset);
        offset += bytesWritten;
      }
    }
  } catch (error) {
    await reader.cancel().catch(() => {});
    throw error;
  } finally {
    reader.releaseLock();
  }
}
