/** `cairn tui` (and `cairn` alone in a terminal): the Ink interface, built in cli/tui. */
import { CairnClient } from "cairn-client";
import type { Command } from "commander";
import { withExamples } from "../command-kit.ts";
import { resolveSettings } from "../config.ts";
import { jsonFetch } from "../json-fetch.ts";

/** The TUI gets a client with the saved key when there is one; without, it can still show the server. */
export async function startTui(): Promise<void> {
  const settings = await resolveSettings();
  const client = new CairnClient({
    baseUrl: settings.baseUrl,
    apiKey: settings.apiKey ?? "",
    fetchImpl: jsonFetch,
  });
  // Loaded only here: Ink and React cost start-up time every other command does not need.
  const { runTui } = await import("../tui/run-tui.ts");
  await runTui({ client, baseUrl: settings.baseUrl });
}

export function addTuiCommand(program: Command): void {
  withExamples(
    program
      .command("tui")
      .description("Open the terminal interface (also: `cairn` with no arguments in a terminal)"),
    ["cairn tui", "cairn"],
  ).action(startTui);
}
