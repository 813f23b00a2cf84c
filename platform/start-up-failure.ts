/**
 * Start-up failures a user can fix (a port in use, a setting, the data directory, the database,
 * a required model server) end the start with one line on stderr, `cairn: <problem>; <fix>`,
 * and exit 1, never a stack trace (docs/configuration.md#when-the-server-does-not-start). Both
 * entries (serve-node.ts, serve-deno.ts) print `StartUpFailure.line`; anything else is a bug and
 * keeps its stack. explain-start-up-failure.ts turns the errors of each part into these.
 */
export class StartUpFailure extends Error {
  readonly line: string;
  constructor(line: string, options?: { cause?: unknown }) {
    super(line.replace(/^cairn: /, ""), options);
    this.name = "StartUpFailure";
    this.line = line.replace(/\s*\n\s*/g, " ");
  }
}

export type ErrorLike = Error & { code?: unknown; path?: unknown; severity?: unknown };

/** Where the listener was to listen, and where the data lives: what the lines name. */
export interface StartUpContext {
  host?: string;
  port?: number;
  dataDirectory?: string;
  databaseUrl?: string;
}

export function fileProblem(code: string): string | null {
  switch (code) {
    case "EEXIST":
    case "ENOTDIR":
      return "it, or a folder on its path, is a file, not a directory";
    case "EACCES":
    case "EPERM":
      return `permission denied to this user (uid ${process.getuid?.() ?? "?"})`;
    case "EROFS":
      return "it is on a read-only file system";
    case "ENOSPC":
      return "the disk is full";
    default:
      return null;
  }
}

/** A failure in the data directory itself (creating it, its lock, its files). */
export function dataDirectoryFailure(directory: string, error: unknown): unknown {
  const code = (error as ErrorLike)?.code;
  const problem = typeof code === "string" ? fileProblem(code) : null;
  if (problem === null) return error;
  return new StartUpFailure(
    `cairn: cannot use the data directory ${directory}: ${problem}; set SVC_DATA_DIR to a directory this user can create or write`,
    { cause: error },
  );
}
