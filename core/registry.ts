/** Every operation of Cairn, in one list that each transport walks. */

import type { ToolDefinition } from "./tool.ts";
import { getAccount } from "./tools/account/get-account.ts";
import { getUsage } from "./tools/account/get-usage.ts";
import { createApiKey } from "./tools/api-keys/create-api-key.ts";
import { listApiKeys } from "./tools/api-keys/list-api-keys.ts";
import { revokeApiKey } from "./tools/api-keys/revoke-api-key.ts";
import { login } from "./tools/auth/login.ts";
import { signup } from "./tools/auth/signup.ts";

export const registry: readonly ToolDefinition[] = [
  signup,
  login,
  createApiKey,
  listApiKeys,
  revokeApiKey,
  getAccount,
  getUsage,
] as ToolDefinition[];

export function findTool(name: string): ToolDefinition | undefined {
  return registry.find((tool) => tool.name === name);
}
