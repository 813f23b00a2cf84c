/** Every operation of Cairn, keyed by name: each transport walks it, the in-process caller types from it. */

import type { z } from "zod";
import type { AnyTool, ToolRegistry } from "./tool.ts";
import { getAccount } from "./tools/account/get-account.ts";
import { getUsage } from "./tools/account/get-usage.ts";
import { sandboxLog } from "./tools/activity/sandbox-log.ts";
import { clearAllowedCommands } from "./tools/allowlist/clear-allowed-commands.ts";
import { getAllowedCommands } from "./tools/allowlist/get-allowed-commands.ts";
import { setAllowedCommands } from "./tools/allowlist/set-allowed-commands.ts";
import { createApiKey } from "./tools/api-keys/create-api-key.ts";
import { listApiKeys } from "./tools/api-keys/list-api-keys.ts";
import { revokeApiKey } from "./tools/api-keys/revoke-api-key.ts";
import { login } from "./tools/auth/login.ts";
import { signup } from "./tools/auth/signup.ts";
import { createImage } from "./tools/images/create-image.ts";
import { deleteImage } from "./tools/images/delete-image.ts";
import { getImage } from "./tools/images/get-image.ts";
import { listImages } from "./tools/images/list-images.ts";
import { lspCompletion } from "./tools/lsp/lsp-completion.ts";
import { lspOpen } from "./tools/lsp/lsp-open.ts";
import { lspStart } from "./tools/lsp/lsp-start.ts";
import { lspStop } from "./tools/lsp/lsp-stop.ts";
import { createMcpConnection } from "./tools/mcp-connections/create-mcp-connection.ts";
import { deleteMcpConnection } from "./tools/mcp-connections/delete-mcp-connection.ts";
import { listMcpConnections } from "./tools/mcp-connections/list-mcp-connections.ts";
import { exportMemories } from "./tools/memory/export-memories.ts";
import { forgetMemory } from "./tools/memory/forget-memory.ts";
import { getMemory } from "./tools/memory/get-memory.ts";
import { importMemories } from "./tools/memory/import-memories.ts";
import { ingestMemory } from "./tools/memory/ingest-memory.ts";
import { listMemories } from "./tools/memory/list-memories.ts";
import { memoryMetrics } from "./tools/memory/memory-metrics.ts";
import { memoryProfile } from "./tools/memory/memory-profile.ts";
import { memoryRelations } from "./tools/memory/memory-relations.ts";
import { recall } from "./tools/memory/recall.ts";
import { remember } from "./tools/memory/remember.ts";
import { processGet } from "./tools/processes/process-get.ts";
import { processInput } from "./tools/processes/process-input.ts";
import { processList } from "./tools/processes/process-list.ts";
import { processOutput } from "./tools/processes/process-output.ts";
import { processStart } from "./tools/processes/process-start.ts";
import { processStop } from "./tools/processes/process-stop.ts";
import { processWait } from "./tools/processes/process-wait.ts";
import { createPreview } from "./tools/sandboxes/create-preview.ts";
import { createSandbox } from "./tools/sandboxes/create-sandbox.ts";
import { destroySandbox } from "./tools/sandboxes/destroy-sandbox.ts";
import { exec } from "./tools/sandboxes/exec.ts";
import { fileCreate } from "./tools/sandboxes/file-create.ts";
import { getSandbox } from "./tools/sandboxes/get-sandbox.ts";
import { glob } from "./tools/sandboxes/glob.ts";
import { grep } from "./tools/sandboxes/grep.ts";
import { httpRequest } from "./tools/sandboxes/http-request.ts";
import { listPreviews } from "./tools/sandboxes/list-previews.ts";
import { listSandboxes } from "./tools/sandboxes/list-sandboxes.ts";
import { ls } from "./tools/sandboxes/ls.ts";
import { revokePreview } from "./tools/sandboxes/revoke-preview.ts";
import { strReplaceTool } from "./tools/sandboxes/str-replace.ts";
import { takeoverRecording } from "./tools/sandboxes/takeover-recording.ts";
import { takeoverToken } from "./tools/sandboxes/takeover-token.ts";
import { view } from "./tools/sandboxes/view.ts";
import { createSecret } from "./tools/secrets/create-secret.ts";
import { deleteSecret } from "./tools/secrets/delete-secret.ts";
import { listSecrets } from "./tools/secrets/list-secrets.ts";
import { createSnapshot } from "./tools/snapshots/create-snapshot.ts";
import { deleteSnapshot } from "./tools/snapshots/delete-snapshot.ts";
import { getSnapshot } from "./tools/snapshots/get-snapshot.ts";
import { listSnapshots } from "./tools/snapshots/list-snapshots.ts";
import { restoreSnapshot } from "./tools/snapshots/restore-snapshot.ts";
import { createVolume } from "./tools/volumes/create-volume.ts";
import { deleteVolume } from "./tools/volumes/delete-volume.ts";
import { getVolume } from "./tools/volumes/get-volume.ts";
import { listVolumes } from "./tools/volumes/list-volumes.ts";

const operations = [
  signup,
  login,
  createApiKey,
  listApiKeys,
  revokeApiKey,
  getAccount,
  getUsage,
  getAllowedCommands,
  setAllowedCommands,
  clearAllowedCommands,
  createSandbox,
  listSandboxes,
  getSandbox,
  destroySandbox,
  createPreview,
  listPreviews,
  revokePreview,
  takeoverToken,
  takeoverRecording,
  createSnapshot,
  listSnapshots,
  getSnapshot,
  deleteSnapshot,
  restoreSnapshot,
  sandboxLog,
  createImage,
  getImage,
  listImages,
  deleteImage,
  createVolume,
  getVolume,
  listVolumes,
  deleteVolume,
  createMcpConnection,
  listMcpConnections,
  deleteMcpConnection,
  exec,
  processStart,
  processList,
  processGet,
  processOutput,
  processInput,
  processStop,
  processWait,
  lspStart,
  lspOpen,
  lspCompletion,
  lspStop,
  httpRequest,
  fileCreate,
  view,
  strReplaceTool,
  ls,
  glob,
  grep,
  createSecret,
  listSecrets,
  deleteSecret,
  remember,
  ingestMemory,
  importMemories,
  memoryMetrics,
  recall,
  memoryProfile,
  exportMemories,
  listMemories,
  memoryRelations,
  getMemory,
  forgetMemory,
] as const;

type Operation = (typeof operations)[number];

/** Every operation by name, each with its own input and output types. */
export type Registry = { [Tool in Operation as Tool["name"]]: Tool };
export type OperationName = keyof Registry;
export type OperationInput<Name extends OperationName> = z.input<Registry[Name]["input"]>;
export type OperationOutput<Name extends OperationName> = z.output<Registry[Name]["output"]>;

export const registry = Object.fromEntries(operations.map((tool) => [tool.name, tool])) as Registry;

/** The operations in a stable order (the order above), for transports that walk them all. */
export const allOperations: readonly AnyTool[] = operations;

export function findOperation(name: string): AnyTool | undefined {
  return Object.hasOwn(registry, name) ? (registry[name as OperationName] as AnyTool) : undefined;
}

/** The registry of the built-ins and the given plugin operations (already checked for collisions). */
export function createToolRegistry(pluginTools: readonly AnyTool[] = []): ToolRegistry {
  const tools = [...allOperations, ...pluginTools];
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  const plugins = [...new Set(pluginTools.flatMap((tool) => (tool.plugin ? [tool.plugin] : [])))];
  return { tools, plugins, find: (name) => byName.get(name) };
}
