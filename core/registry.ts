/** Every operation of Cairn, in one list that each transport walks. */

import type { ToolDefinition } from "./tool.ts";
import { getAccount } from "./tools/account/get-account.ts";
import { getUsage } from "./tools/account/get-usage.ts";
import {
  clearAllowedCommands,
  getAllowedCommands,
  setAllowedCommands,
} from "./tools/allowlist/allowed-commands.ts";
import { createApiKey } from "./tools/api-keys/create-api-key.ts";
import { listApiKeys } from "./tools/api-keys/list-api-keys.ts";
import { revokeApiKey } from "./tools/api-keys/revoke-api-key.ts";
import { login } from "./tools/auth/login.ts";
import { signup } from "./tools/auth/signup.ts";
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
import { createSandbox } from "./tools/sandboxes/create-sandbox.ts";
import { destroySandbox } from "./tools/sandboxes/destroy-sandbox.ts";
import { exec } from "./tools/sandboxes/exec.ts";
import { fileCreate, glob, grep, ls, strReplaceTool, view } from "./tools/sandboxes/file-tools.ts";
import { getSandbox } from "./tools/sandboxes/get-sandbox.ts";
import { httpRequest } from "./tools/sandboxes/http-request.ts";
import { listSandboxes } from "./tools/sandboxes/list-sandboxes.ts";
import { createSecret, deleteSecret, listSecrets } from "./tools/secrets/secrets.ts";

export const registry: readonly ToolDefinition[] = [
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
  exec,
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
  // Memory: the fixed paths come before /v1/memory/:memory_id.
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
] as ToolDefinition[];

export function findTool(name: string): ToolDefinition | undefined {
  return registry.find((tool) => tool.name === name);
}
