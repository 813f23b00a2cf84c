/**
 * An in-memory SandboxFileSystem for tests of the file operations and of anything built on
 * them. It keeps the port's promises: paths outside the roots and "links" that escape them are
 * `path_outside_sandbox`, missing files are `not_found`, writes create parent directories.
 */

import { ServiceError } from "../../core/errors.ts";
import type { FileStat, SandboxFileSystem } from "../../core/ports/sandbox-runtime.ts";
import { isWithinRoot, normalizeAbsolutePath } from "../../core/sandboxes/files/paths.ts";

type Node =
  | { kind: "file"; content: Uint8Array; modifiedAt: Date }
  | { kind: "directory"; modifiedAt: Date }
  | { kind: "escape"; modifiedAt: Date };

export interface FakeFileSystemOptions {
  roots?: string[];
  now?: () => Date;
}

export interface FakeFileSystem extends SandboxFileSystem {
  /** Test helper: writes a file (creating parents) without going through the port. */
  seed(files: Record<string, string>): void;
  /** Test helper: makes a path behave like a symlink to somewhere outside the roots. */
  linkOutside(path: string): void;
  /** Test helper: the stored content of a file, or undefined. */
  contentOf(path: string): string | undefined;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function createFakeFileSystem(options: FakeFileSystemOptions = {}): FakeFileSystem {
  const roots = (options.roots ?? ["/workspace", "/tmp"]).map(normalizeAbsolutePath);
  const now = options.now ?? (() => new Date());
  const nodes = new Map<string, Node>();
  for (const root of roots) nodes.set(root, { kind: "directory", modifiedAt: now() });

  const checkInside = (path: string): string => {
    const normalized = normalizeAbsolutePath(path);
    if (!roots.some((root) => isWithinRoot(normalized, root))) {
      throw new ServiceError("path_outside_sandbox", `${path} is outside the sandbox`);
    }
    for (const [candidate, node] of nodes) {
      if (node.kind === "escape" && isWithinRoot(normalized, candidate)) {
        throw new ServiceError("path_outside_sandbox", `${path} leads outside the sandbox`);
      }
    }
    return normalized;
  };

  const statOf = (path: string, node: Node): FileStat => ({
    path,
    isDirectory: node.kind === "directory",
    size: node.kind === "file" ? node.content.byteLength : 0,
    modifiedAt: node.modifiedAt,
  });

  const ensureDirectory = (path: string): void => {
    if (roots.includes(path)) return;
    const existing = nodes.get(path);
    if (existing?.kind === "directory") return;
    if (existing) throw new ServiceError("validation_error", `${path} exists and is not a directory`);
    ensureDirectory(parentOf(path));
    nodes.set(path, { kind: "directory", modifiedAt: now() });
  };

  const write = (path: string, content: Uint8Array): { created: boolean; size: number } => {
    const existing = nodes.get(path);
    if (existing?.kind === "directory") throw new ServiceError("validation_error", `${path} is a directory`);
    ensureDirectory(parentOf(path));
    nodes.set(path, { kind: "file", content: content.slice(), modifiedAt: now() });
    return { created: existing === undefined, size: content.byteLength };
  };

  const readBytes = (path: string, maxBytes: number): Uint8Array => {
    const node = nodes.get(checkInside(path));
    if (!node) throw new ServiceError("not_found", `No such file: ${path}`);
    if (node.kind !== "file") throw new ServiceError("validation_error", `${path} is a directory`);
    if (node.content.byteLength > maxBytes) {
      throw new ServiceError("validation_error", `${path} is larger than ${maxBytes} bytes`);
    }
    return node.content.slice();
  };

  const descendants = (path: string): FileStat[] =>
    [...nodes.entries()]
      .filter(
        ([candidate, node]) => candidate !== path && isWithinRoot(candidate, path) && node.kind !== "escape",
      )
      .map(([candidate, node]) => statOf(candidate, node))
      .sort((left, right) => (left.path < right.path ? -1 : 1));

  const directoryAt = (path: string): void => {
    const node = nodes.get(path);
    if (!node) throw new ServiceError("not_found", `No such directory: ${path}`);
    if (node.kind !== "directory") throw new ServiceError("validation_error", `${path} is not a directory`);
  };

  return {
    roots: () => [...roots],
    async stat(path) {
      const normalized = checkInside(path);
      const node = nodes.get(normalized);
      return node ? statOf(normalized, node) : null;
    },
    async readFile(path, maxBytes) {
      return decoder.decode(readBytes(path, maxBytes));
    },
    async writeFile(path, content) {
      return write(checkInside(path), encoder.encode(content));
    },
    async readBytes(path, maxBytes) {
      return readBytes(path, maxBytes);
    },
    async writeBytes(path, content) {
      return write(checkInside(path), content);
    },
    async readStream(path, maxBytes) {
      const bytes = readBytes(path, maxBytes);
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(bytes);
          controller.close();
        },
      });
      return { size: bytes.byteLength, stream };
    },
    async writeStream(path, content, maxBytes) {
      const normalized = checkInside(path);
      const chunks: Uint8Array[] = [];
      let total = 0;
      const reader = content.getReader();
      for (let read = await reader.read(); !read.done; read = await reader.read()) {
        total += read.value.byteLength;
        if (total > maxBytes) throw new ServiceError("payload_too_large", `more than ${maxBytes} bytes`);
        chunks.push(read.value);
      }
      const whole = new Uint8Array(total);
      let offset = 0;
      for (const chunk of chunks) {
        whole.set(chunk, offset);
        offset += chunk.byteLength;
      }
      return write(normalized, whole);
    },
    async list(path) {
      const normalized = checkInside(path);
      directoryAt(normalized);
      return descendants(normalized).filter((entry) => parentOf(entry.path) === normalized);
    },
    async walk(path, limit) {
      const normalized = checkInside(path);
      directoryAt(normalized);
      return descendants(normalized).slice(0, limit);
    },
    seed(files) {
      for (const [path, content] of Object.entries(files)) write(checkInside(path), encoder.encode(content));
    },
    linkOutside(path) {
      const normalized = checkInside(path);
      ensureDirectory(parentOf(normalized));
      nodes.set(normalized, { kind: "escape", modifiedAt: now() });
    },
    contentOf(path) {
      const node = nodes.get(normalizeAbsolutePath(path));
      return node?.kind === "file" ? decoder.decode(node.content) : undefined;
    },
  };
}

function parentOf(path: string): string {
  const slash = path.lastIndexOf("/");
  return slash <= 0 ? "/" : path.slice(0, slash);
}
