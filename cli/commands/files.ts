/** `cairn files view|create|edit|ls|glob|grep`: files inside a sandbox session. */
import { isUtf8 } from "node:buffer";
import type { Command } from "commander";
import { group, leaf, readInputBytes, readStdinBytes } from "../command-kit.ts";
import { authenticatedClient, type JsonOption, resolveSession } from "../context.ts";
import { CliError } from "../errors.ts";
import { colour, printJson, printLine, printTable, relativeTime, success } from "../output.ts";
import { schemaOption, toNumber, validateInput } from "../schemas.ts";

interface SessionOption extends JsonOption {
  session?: string;
}

const sessionFlag = () =>
  schemaOption("--session <id>", "view", "session_id", "default: the only active session");

async function sessionClient(options: SessionOption) {
  const { client } = await authenticatedClient();
  return { client, sessionId: await resolveSession(client, options.session) };
}

/** The most bytes `files create` sends (the API's 10 MiB); `cairn cp` takes up to 100 MiB. */
const maxContentBytes = 10 * 1024 * 1024;

const writeStdout = (bytes: Uint8Array) =>
  new Promise<void>((resolve, reject) =>
    process.stdout.write(bytes, (error) => (error ? reject(error) : resolve())),
  );

export const humanSize = (bytes: number) =>
  bytes < 1024
    ? `${bytes} B`
    : bytes < 1024 ** 2
      ? `${(bytes / 1024).toFixed(1)} KiB`
      : `${(bytes / 1024 ** 2).toFixed(1)} MiB`;

export function addFileCommands(program: Command): void {
  const files = group(program, "files", "Read, write and search files in a sandbox session", [
    "cairn files ls",
    "cairn files create app.py --content-file ./app.py",
    "cairn files grep 'def main' --glob '*.py'",
  ]);

  leaf(files, "view <path>", "Print a file (or a range of its lines); bytes exactly when piped", [
    "cairn files view app.py",
    "cairn files view app.py --start-line 10 --end-line 20",
    "cairn files view build/out.tar.gz > out.tar.gz",
  ])
    .addOption(sessionFlag())
    .option("--start-line <n>", "first line, 1-indexed (with --end-line)", toNumber)
    .option("--end-line <n>", "last line, inclusive (with --start-line)", toNumber)
    .addOption(
      schemaOption("--encoding <encoding>", "view", "encoding", "with --json: the API's content encoding"),
    )
    .action(
      async (
        path: string,
        options: SessionOption & { startLine?: number; endLine?: number; encoding?: "utf-8" | "base64" },
      ) => {
        const hasRange = options.startLine !== undefined || options.endLine !== undefined;
        if (hasRange && (options.startLine === undefined || options.endLine === undefined))
          throw new CliError("--start-line and --end-line go together", "validation_error");
        const viewRange = hasRange ? ([options.startLine, options.endLine] as [number, number]) : undefined;
        validateInput(
          "view",
          { session_id: "-", path, view_range: viewRange, encoding: options.encoding },
          { path: "PATH", view_range: "--start-line/--end-line", encoding: "--encoding" },
        );
        const { client, sessionId } = await sessionClient(options);
        if (options.json)
          return printJson(await client.view(sessionId, path, { viewRange, encoding: options.encoding }));
        // A line range is text; a whole file is fetched as bytes, so what is printed is the file.
        const result = await client.view(sessionId, path, {
          viewRange,
          encoding: hasRange ? "utf-8" : "base64",
        });
        if (result.entries) {
          for (const entry of result.entries) printLine(entry);
          return;
        }
        const bytes =
          result.encoding === "base64" ? Buffer.from(result.content, "base64") : Buffer.from(result.content);
        const isText = isUtf8(bytes);
        if (process.stdout.isTTY) {
          if (!isText)
            throw new CliError(
              `${path} is not UTF-8 text (${humanSize(bytes.length)}); copy it with \`cairn cp :${path} ./FILE\` or redirect stdout to a file`,
              "file_not_utf8",
            );
          const text = bytes.toString("utf8");
          process.stdout.write(text.endsWith("\n") || text === "" ? text : `${text}\n`);
          return;
        }
        // Piped or redirected: the file's bytes exactly, nothing added.
        await writeStdout(bytes);
      },
    );

  leaf(
    files,
    "create <path>",
    "Create or overwrite a file from --content, --content-file or stdin (bytes exactly)",
    [
      "cairn files create notes.txt --content 'hello'",
      "cairn files create app.py --content-file ./app.py",
      "cat data.csv | cairn files create data.csv",
    ],
  )
    .addOption(sessionFlag())
    .option("--content <text>", "the file's content")
    .option(
      "--content-file <file>",
      "read the content from a local file ('-' for stdin); any bytes, at most 10 MiB",
    )
    .action(async (path: string, options: SessionOption & { content?: string; contentFile?: string }) => {
      if (options.content !== undefined && options.contentFile !== undefined)
        throw new CliError("pass --content or --content-file, not both", "validation_error");
      const bytes =
        options.content !== undefined
          ? null
          : options.contentFile !== undefined
            ? await readInputBytes(options.contentFile)
            : await readStdinBytes();
      // UTF-8 text goes as text (as it always has); any other bytes go base64, so they arrive exactly.
      const asText = bytes === null || isUtf8(bytes);
      const content = options.content ?? (asText ? bytes!.toString("utf8") : bytes!.toString("base64"));
      const encoding = asText ? "utf-8" : "base64";
      if (bytes !== null && bytes.length > maxContentBytes)
        throw new CliError(
          `the content is ${humanSize(bytes.length)}, over the 10 MiB of files create: use \`cairn cp\` (up to 100 MiB)`,
          "payload_too_large",
        );
      validateInput(
        "file_create",
        { session_id: "-", path, content, encoding },
        { path: "PATH", content: "the content" },
      );
      const { client, sessionId } = await sessionClient(options);
      const result = await client.fileCreate(sessionId, path, content, { encoding });
      if (options.json) return printJson(result);
      success(`${result.created ? "Created" : "Overwrote"} ${result.path} (${humanSize(result.size)})`);
    });

  leaf(files, "edit <path>", "Replace text in a file (--old must be unique unless --replace-all)", [
    "cairn files edit app.py --old 'DEBUG = True' --new 'DEBUG = False'",
    "cairn files edit app.py --old foo --new bar --replace-all",
  ])
    .addOption(sessionFlag())
    .requiredOption("--old <text>", "the text to replace")
    .requiredOption("--new <text>", "the replacement")
    .option("--replace-all", "replace every occurrence")
    .action(
      async (path: string, options: SessionOption & { old: string; new: string; replaceAll?: boolean }) => {
        validateInput(
          "str_replace",
          {
            session_id: "-",
            path,
            old_str: options.old,
            new_str: options.new,
            replace_all: options.replaceAll,
          },
          { path: "PATH", old_str: "--old", new_str: "--new" },
        );
        const { client, sessionId } = await sessionClient(options);
        const result = await client.strReplace(sessionId, path, options.old, options.new, {
          replaceAll: options.replaceAll,
        });
        if (options.json) return printJson(result);
        success(
          `Replaced ${result.replaced} of ${result.occurrences} occurrence${result.occurrences === 1 ? "" : "s"} in ${result.path}`,
        );
      },
    );

  leaf(files, "ls [path]", "List a folder (default /workspace)", ["cairn files ls", "cairn files ls src"])
    .addOption(sessionFlag())
    .action(async (path: string | undefined, options: SessionOption) => {
      validateInput("ls", { session_id: "-", path }, { path: "PATH" });
      const { client, sessionId } = await sessionClient(options);
      const result = await client.ls(sessionId, path ?? "/");
      if (options.json) return printJson(result);
      printTable(
        ["PATH", "SIZE", "MODIFIED"],
        result.entries.map((entry) => [
          entry.is_dir ? colour.blue(entry.path) : entry.path,
          entry.is_dir ? "-" : humanSize(entry.size),
          relativeTime(entry.modified_at),
        ]),
        "Empty folder.",
      );
    });

  leaf(files, "glob <pattern>", "Find files by name pattern", [
    "cairn files glob '**/*.py'",
    "cairn files glob '*.md' --path docs",
  ])
    .addOption(sessionFlag())
    .addOption(schemaOption("--path <path>", "glob", "path"))
    .action(async (pattern: string, options: SessionOption & { path?: string }) => {
      validateInput("glob", { session_id: "-", pattern, path: options.path }, { pattern: "PATTERN" });
      const { client, sessionId } = await sessionClient(options);
      const result = await client.glob(sessionId, pattern, { path: options.path });
      if (options.json) return printJson(result);
      printTable(
        ["PATH", "SIZE", "MODIFIED"],
        result.matches.map((match) => [match.path, humanSize(match.size), relativeTime(match.modified_at)]),
        "No matches.",
      );
    });

  leaf(files, "grep <pattern>", "Search file contents with a regular expression", [
    "cairn files grep TODO",
    "cairn files grep 'import (os|sys)' --glob '*.py' --max-matches 50",
  ])
    .addOption(sessionFlag())
    .addOption(schemaOption("--path <path>", "grep", "path"))
    .addOption(schemaOption("--glob <glob>", "grep", "glob"))
    .addOption(schemaOption("--max-matches <n>", "grep", "max_matches").argParser(toNumber))
    .action(
      async (
        pattern: string,
        options: SessionOption & { path?: string; glob?: string; maxMatches?: number },
      ) => {
        validateInput(
          "grep",
          {
            session_id: "-",
            pattern,
            path: options.path,
            glob: options.glob,
            max_matches: options.maxMatches,
          },
          { pattern: "PATTERN" },
        );
        const { client, sessionId } = await sessionClient(options);
        const result = await client.grep(sessionId, pattern, {
          path: options.path,
          glob: options.glob,
          maxMatches: options.maxMatches,
        });
        if (options.json) return printJson(result);
        if (result.error) throw new CliError(result.error, "grep_failed");
        for (const match of result.matches)
          printLine(`${colour.magenta(match.path)}:${colour.green(String(match.line))}:${match.text}`);
        if (result.truncated) printLine(colour.yellow("(more matches; raise --max-matches)"));
      },
    );
}
