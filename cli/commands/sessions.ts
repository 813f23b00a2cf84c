/** `cairn session create|ls|get|rm` and `cairn exec`: sandbox sessions and commands in them. */
import type { Sandbox } from "cairn-client";
import type { Command } from "commander";
import { group, leaf } from "../command-kit.ts";
import { authenticatedClient, type JsonOption, resolveSession } from "../context.ts";
import { CliError } from "../errors.ts";
import {
  colour,
  note,
  printFields,
  printJson,
  printTable,
  relativeTime,
  statusText,
  success,
} from "../output.ts";
import { collect, schemaOption, toNumber, validateInput } from "../schemas.ts";

interface CreateOptions extends JsonOption {
  label?: string;
  size?: "small" | "medium" | "large";
  storageGb?: number;
  lifetimeMinutes?: number;
  count?: number;
  imageId?: string;
  secretNames?: string[];
  volumeMounts?: string[];
  mcpConnections?: string[];
}

/** `volume_id=/path` pairs into the create request's map. */
function parseMounts(pairs: string[] | undefined): Record<string, string> | undefined {
  if (!pairs) return undefined;
  const mounts: Record<string, string> = {};
  for (const pair of pairs) {
    const separator = pair.indexOf("=");
    if (separator <= 0 || separator === pair.length - 1)
      throw new CliError(
        `--volume-mounts takes volume_id=/path, not ${JSON.stringify(pair)}`,
        "validation_error",
      );
    mounts[pair.slice(0, separator)] = pair.slice(separator + 1);
  }
  return mounts;
}

const sessionRow = (session: Sandbox | Omit<Sandbox, "usage">) => [
  session.id,
  statusText(session.status),
  session.label ?? "-",
  relativeTime(session.created_at),
  session.status === "active" ? relativeTime(session.expires_at) : (session.ended_reason ?? "-"),
];
const sessionHeaders = ["ID", "STATUS", "LABEL", "CREATED", "EXPIRES / ENDED"];

/** A word the shell reads as itself; any other is single-quoted. */
const plainWord = /^[A-Za-z0-9_@%+=:,./-]+$/;

/**
 * The shell line exec sends: one argument is a command line as typed (`'ls *.py && pytest'`);
 * several are one command's words, each reaching it as given (`python3 -c 'print(6*7)'`), as
 * docker exec passes its arguments.
 */
function commandLine(words: readonly string[]): string {
  if (words.length === 1) return words[0];
  return words.map((word) => (plainWord.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`)).join(" ");
}

export function addSessionCommands(program: Command): void {
  const session = group(program, "session", "Create, list, inspect and destroy sandbox sessions", [
    "cairn session create --label build --lifetime-minutes 15",
    "cairn session ls --active-only",
    "cairn session rm 7c0e…",
  ]);

  leaf(session, "create", "Start a sandbox session", [
    "cairn session create",
    "cairn session create --size medium --label tests --lifetime-minutes 20",
    "cairn session create --image-id 5b1d… --volume-mounts 9a3e…=/data --secret-names GITHUB_TOKEN",
  ])
    .addOption(schemaOption("--label <label>", "create_sandbox", "label"))
    .addOption(schemaOption("--size <size>", "create_sandbox", "size"))
    .addOption(schemaOption("--storage-gb <gb>", "create_sandbox", "storage_gb").argParser(toNumber))
    .addOption(
      schemaOption("--lifetime-minutes <minutes>", "create_sandbox", "lifetime_minutes").argParser(toNumber),
    )
    .addOption(schemaOption("--count <n>", "create_sandbox", "count").argParser(toNumber))
    .addOption(schemaOption("--image-id <id>", "create_sandbox", "image_id"))
    .addOption(
      schemaOption("--secret-names <name>", "create_sandbox", "secret_names", "repeatable").argParser(
        collect,
      ),
    )
    .addOption(
      schemaOption(
        "--volume-mounts <volume_id=/path>",
        "create_sandbox",
        "volume_mounts",
        "repeatable",
      ).argParser(collect),
    )
    .addOption(
      schemaOption(
        "--mcp-connections <label>",
        "create_sandbox",
        "mcp_connection_names",
        "repeatable",
      ).argParser(collect),
    )
    .action(async (options: CreateOptions) => {
      const volumeMounts = parseMounts(options.volumeMounts);
      validateInput(
        "create_sandbox",
        {
          label: options.label,
          size: options.size,
          storage_gb: options.storageGb,
          lifetime_minutes: options.lifetimeMinutes,
          count: options.count,
          image_id: options.imageId,
          secret_names: options.secretNames,
          volume_mounts: volumeMounts,
          mcp_connection_names: options.mcpConnections,
        },
        { mcp_connection_names: "--mcp-connections" },
      );
      const { client } = await authenticatedClient();
      const create = {
        label: options.label,
        size: options.size,
        storageGb: options.storageGb,
        lifetimeMinutes: options.lifetimeMinutes,
        imageId: options.imageId,
        secretNames: options.secretNames,
        volumeMounts,
        mcpConnectionNames: options.mcpConnections,
      };
      const count = options.count ?? 1;
      const created =
        count === 1 ? [await client.createSandbox(create)] : await client.createSandboxes(count, create);
      if (options.json) return printJson(count === 1 ? created[0] : created);
      for (const sandbox of created)
        success(`Session ${colour.bold(sandbox.id)} is active, expires ${relativeTime(sandbox.expires_at)}`);
      const usage = created[created.length - 1].usage;
      note(
        colour.dim(
          `${usage.concurrent_sandboxes} of ${usage.concurrent_sandboxes_limit} sandboxes active; ${usage.monthly_sandbox_hours_used} of ${usage.monthly_sandbox_hours_limit} hours used this month`,
        ),
      );
    });

  leaf(session, "ls", "List sessions, newest first", [
    "cairn session ls",
    "cairn session ls --active-only --json",
  ])
    .option("--active-only", "only active sessions")
    .action(async (options: JsonOption & { activeOnly?: boolean }) => {
      const { client } = await authenticatedClient();
      const sessions = await client.listSandboxes({ activeOnly: options.activeOnly ?? false });
      if (options.json) return printJson(sessions);
      printTable(sessionHeaders, sessions.map(sessionRow), "No sessions.");
    });

  leaf(session, "get <id>", "Show one session (destroyed ones too)", ["cairn session get 7c0e…"]).action(
    async (id: string, options: JsonOption) => {
      const { client } = await authenticatedClient();
      const found = await client.getSandbox(id);
      if (options.json) return printJson(found);
      printFields([
        ["ID", found.id],
        ["Status", statusText(found.status)],
        ["Label", found.label],
        ["Runtime", found.runtime],
        ["Created", `${relativeTime(found.created_at)} (${found.created_at})`],
        ["Expires", `${relativeTime(found.expires_at)} (${found.expires_at})`],
        ["Ended", found.destroyed_at ? `${relativeTime(found.destroyed_at)} (${found.ended_reason})` : null],
        ["Connect", found.connect?.note || null],
      ]);
    },
  );

  leaf(session, "rm <id>", "Destroy a session", ["cairn session rm 7c0e…"]).action(
    async (id: string, options: JsonOption) => {
      const { client } = await authenticatedClient();
      await client.destroySandbox(id);
      if (options.json) return printJson({ status: "destroyed", id });
      success(`Destroyed session ${id}`);
    },
  );

  leaf(
    program,
    "exec <command...>",
    "Run a command in a session (cwd /workspace); prints its output as it comes and exits with its exit code (--json: the whole answer at the end). One argument is a shell command line; several are the words of one command, passed as given, as docker exec does",
    [
      "cairn exec 'python3 --version && ls *.py'",
      "cairn exec python3 -c 'print(6*7)'",
      "cairn exec --session 7c0e… --timeout 900 -- pytest -q",
    ],
  )
    .addOption(schemaOption("--session <id>", "exec", "session_id", "default: the only active session"))
    .addOption(schemaOption("--timeout <seconds>", "exec", "timeout").argParser(toNumber))
    .passThroughOptions()
    .action(async (words: string[], options: JsonOption & { session?: string; timeout?: number }) => {
      const command = commandLine(words);
      validateInput(
        "exec",
        { session_id: options.session ?? "-", command, timeout: options.timeout },
        { command: "COMMAND" },
      );
      const { client } = await authenticatedClient();
      const sessionId = await resolveSession(client, options.session);
      let result: { exit_code: number; timed_out: boolean; truncated: boolean };
      if (options.json) {
        result = await client.exec(sessionId, command, { timeout: options.timeout });
        printJson(result);
      } else {
        // Streamed: the output is printed as the command writes it (Ctrl-C closes the stream,
        // which kills the command); the exit event ends it.
        let exit: typeof result | undefined;
        for await (const event of client.execStream(sessionId, command, { timeout: options.timeout })) {
          if (event.type === "output") {
            if (event.stdout_chunk !== "") process.stdout.write(event.stdout_chunk);
            if (event.stderr_chunk) process.stderr.write(event.stderr_chunk);
          } else exit = event;
        }
        result = exit as typeof result;
        if (result.truncated) note(colour.yellow("(output truncated by the server)"));
        if (result.timed_out) note(colour.yellow(`Command timed out after ${options.timeout ?? 30} s`));
      }
      // 124 is what timeout(1) uses; anything else is the command's own status.
      process.exitCode = result.timed_out
        ? 124
        : result.exit_code >= 0 && result.exit_code <= 255
          ? result.exit_code
          : 1;
    });
}
