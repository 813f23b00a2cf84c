/**
 * `cairn start`, `cairn ps`, `cairn logs [-f]` and `cairn kill`: background processes in a
 * session (docs/sandboxes.md#processes). `logs -f` follows the SSE stream to the process's end
 * and exits with its exit code.
 */
import type { Command } from "commander";
import { leaf } from "../command-kit.ts";
import { authenticatedClient, type JsonOption, resolveSession } from "../context.ts";
import { note, printFields, printJson, printTable, relativeTime, success } from "../output.ts";
import { schemaOption, toNumber, validateInput } from "../schemas.ts";

interface SessionOption extends JsonOption {
  session?: string;
}

const exitStatus = (code: number | null) => (code !== null && code >= 0 && code <= 255 ? code : 1);

export function addProcessCommands(program: Command): void {
  leaf(
    program,
    "start <command...>",
    "Start a shell command in a session in the background (cwd /workspace); prints its process id",
    [
      "cairn start 'python3 -m http.server 8000'",
      "cairn start --session 7c0e… --max-runtime-seconds 600 -- npm test",
    ],
  )
    .addOption(
      schemaOption("--session <id>", "process_start", "session_id", "default: the only active session"),
    )
    .addOption(schemaOption("--description <text>", "process_start", "description"))
    .addOption(
      schemaOption("--max-runtime-seconds <seconds>", "process_start", "max_runtime_seconds").argParser(
        toNumber,
      ),
    )
    .passThroughOptions()
    .action(
      async (
        words: string[],
        options: SessionOption & { description?: string; maxRuntimeSeconds?: number },
      ) => {
        const command = words.join(" ");
        validateInput(
          "process_start",
          {
            session_id: options.session ?? "-",
            command,
            description: options.description,
            max_runtime_seconds: options.maxRuntimeSeconds,
          },
          { command: "COMMAND" },
        );
        const { client } = await authenticatedClient();
        const sessionId = await resolveSession(client, options.session);
        const started = await client.startProcess(sessionId, command, {
          description: options.description,
          maxRuntimeSeconds: options.maxRuntimeSeconds,
        });
        if (options.json) return printJson(started);
        process.stdout.write(`${started.process_id}\n`);
      },
    );

  leaf(program, "ps", "List the background processes of a session", ["cairn ps", "cairn ps --session 7c0e…"])
    .addOption(
      schemaOption("--session <id>", "process_list", "session_id", "default: the only active session"),
    )
    .action(async (options: SessionOption) => {
      const { client } = await authenticatedClient();
      const sessionId = await resolveSession(client, options.session);
      const { processes } = await client.listProcesses(sessionId);
      if (options.json) return printJson({ processes });
      if (processes.length === 0) return note("No background processes");
      printTable(
        ["ID", "STATUS", "EXIT", "STARTED", "OUTPUT", "COMMAND"],
        processes.map((entry) => [
          entry.process_id,
          entry.status,
          entry.exit_code === null ? "-" : String(entry.exit_code),
          relativeTime(entry.started_at),
          `${entry.output_bytes} B`,
          entry.command.length > 60 ? `${entry.command.slice(0, 57)}…` : entry.command,
        ]),
      );
    });

  leaf(program, "logs <process_id>", "Print a background process's output; -f follows it to its end", [
    "cairn logs proc_3f…",
    "cairn logs -f proc_3f…",
  ])
    .addOption(
      schemaOption("--session <id>", "process_output", "session_id", "default: the only active session"),
    )
    .option("-f, --follow", "follow the output until the process ends, then exit with its exit code")
    .action(async (processId: string, options: SessionOption & { follow?: boolean }) => {
      const { client } = await authenticatedClient();
      const sessionId = await resolveSession(client, options.session);
      if (options.follow) {
        for await (const event of client.streamProcess(sessionId, processId)) {
          if (options.json) {
            process.stdout.write(`${JSON.stringify(event)}\n`);
          } else if (event.type === "output") {
            if (event.truncated) note("(older output was dropped by the server)");
            process.stdout.write(event.stdout_chunk);
            process.stderr.write(event.stderr_chunk);
          }
          if (event.type === "exit")
            process.exitCode = event.status === "exited" ? exitStatus(event.exit_code) : 1;
        }
        return;
      }
      let since = 0;
      for (;;) {
        const page = await client.processOutput(sessionId, processId, {
          sinceOffset: since,
          maxBytes: 1_048_576,
        });
        if (options.json) printJson(page);
        else {
          if (page.truncated && since === 0) note("(older output was dropped by the server)");
          process.stdout.write(page.stdout);
          process.stderr.write(page.stderr);
        }
        if (page.next_offset === since || options.json) break;
        since = page.next_offset;
      }
    });

  leaf(program, "kill <process_id>", "Stop a background process (SIGTERM, then SIGKILL after 5 s)", [
    "cairn kill proc_3f…",
  ])
    .addOption(
      schemaOption("--session <id>", "process_stop", "session_id", "default: the only active session"),
    )
    .action(async (processId: string, options: SessionOption) => {
      const { client } = await authenticatedClient();
      const sessionId = await resolveSession(client, options.session);
      const stopped = await client.stopProcess(sessionId, processId);
      if (options.json) return printJson(stopped);
      success(`Stopped ${processId}`);
      printFields([
        ["Status", stopped.status],
        ["Exit code", stopped.exit_code === null ? null : String(stopped.exit_code)],
      ]);
    });
}
