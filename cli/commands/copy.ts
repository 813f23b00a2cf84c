/**
 * `cairn cp SOURCE DESTINATION`: a file's bytes between this machine and a sandbox, streamed
 * through the raw file routes (docs/cli.md#cp). As `docker cp`, the sandbox side is written with a
 * colon: `:PATH` in the session of --session (or the only active one), `SESSION_ID:PATH` in that
 * one; the other side is a local path, `-` for stdin or stdout. One file per copy, at most
 * 100 MiB up; a download is written to a temporary file beside the destination and renamed, so
 * a failed copy leaves no partial file.
 */
import { createReadStream, createWriteStream } from "node:fs";
import { rename, rm, stat } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { Readable, type Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { Command } from "commander";
import { leaf } from "../command-kit.ts";
import { authenticatedClient, type JsonOption, resolveSession } from "../context.ts";
import { CliError } from "../errors.ts";
import { printJson, success } from "../output.ts";
import { humanSize } from "./files.ts";

/** The raw upload's limit (PUT …/files/raw). */
const maxUploadBytes = 100 * 1024 * 1024;

interface SandboxSide {
  sessionId: string | null;
  path: string;
}

/** `:PATH` or `SESSION_ID:PATH` (an id has no slash); anything else is local. */
function sandboxSide(argument: string): SandboxSide | null {
  const colon = argument.indexOf(":");
  if (colon === -1) return null;
  const session = argument.slice(0, colon);
  if (session.includes("/") || session.includes("\\")) return null;
  const path = argument.slice(colon + 1);
  if (path === "") throw new CliError(`${argument}: no sandbox path after the colon`, "validation_error");
  return { sessionId: session === "" ? null : session, path };
}

async function localIsDirectory(path: string): Promise<boolean> {
  return (await stat(path).catch(() => null))?.isDirectory() ?? false;
}

export function addCopyCommand(program: Command): void {
  leaf(
    program,
    "cp <source> <destination>",
    "Copy a file's bytes into or out of a sandbox (`:PATH` is in the sandbox)",
    [
      "cairn cp ./data.tar.gz :/workspace/data.tar.gz",
      "cairn cp :/workspace/out.bin ./out.bin",
      "cairn cp 6d0f5e1a-…:/workspace/report.pdf .",
      "tar cz src | cairn cp - :src.tar.gz",
    ],
  )
    .option("--session <id>", "the session of a `:PATH` (default: the only active session)")
    .action(async (source: string, destination: string, options: JsonOption & { session?: string }) => {
      const from = sandboxSide(source);
      const to = sandboxSide(destination);
      if ((from === null) === (to === null))
        throw new CliError(
          "one side must be in the sandbox (`:PATH` or `SESSION_ID:PATH`) and the other local",
          "validation_error",
        );
      const { client } = await authenticatedClient();
      const side = (from ?? to)!;
      const sessionId = side.sessionId ?? (await resolveSession(client, options.session));

      if (to !== null) {
        // Upload: a local file (or stdin) streamed up.
        let size: number | null = null;
        if (source !== "-") {
          const local = await stat(source).catch(() => null);
          if (local === null) throw new CliError(`cannot read ${source}: no such file`, "missing_input");
          if (!local.isFile()) throw new CliError(`${source} is not a file`, "validation_error");
          size = local.size;
          if (size > maxUploadBytes)
            throw new CliError(
              `${source} is ${humanSize(size)}, over the 100 MiB a copy takes`,
              "payload_too_large",
            );
        }
        const target = to.path.endsWith("/") && source !== "-" ? `${to.path}${basename(source)}` : to.path;
        const body = Readable.toWeb(
          source === "-" ? process.stdin : createReadStream(source),
        ) as ReadableStream<Uint8Array>;
        const result = await client.uploadFile(sessionId, target, body);
        if (options.json) return printJson(result);
        success(`Copied ${source === "-" ? "stdin" : source} to ${result.path} (${humanSize(result.size)})`);
        return;
      }

      // Download: streamed into a temporary file, renamed into place once complete.
      const download = await client.downloadFileStream(sessionId, from!.path);
      if (destination === "-") {
        await pipeline(Readable.fromWeb(download.stream as never), process.stdout as Writable, {
          end: false,
        });
        return;
      }
      const target = (await localIsDirectory(destination))
        ? join(destination, basename(from!.path))
        : destination;
      const temporary = join(dirname(target), `.${basename(target)}.cairn-${process.pid}.part`);
      try {
        await pipeline(Readable.fromWeb(download.stream as never), createWriteStream(temporary));
        const written = (await stat(temporary)).size;
        if (Number.isFinite(download.size) && written !== download.size)
          throw new CliError(
            `the copy broke off after ${written} of ${download.size} bytes`,
            "network_error",
          );
        await rename(temporary, target);
      } catch (error) {
        await rm(temporary, { force: true });
        throw error;
      }
      if (options.json) return printJson({ path: target, size: download.size });
      success(`Copied ${from!.path} to ${target} (${humanSize(download.size)})`);
    });
}
