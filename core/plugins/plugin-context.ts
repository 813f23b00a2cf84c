/**
 * The context a plugin's tools and hooks receive (docs/plugins.md#context), version 1: the
 * account it acts for, memory and sandbox operations through the in-process caller bound to that
 * account (so credentials' tenancy, buckets and quotas hold as for any client), a key-value store
 * of its own per account, a logger and the clock. Nothing else of the platform: no storage
 * handle, no configuration, no other account.
 */
import { createCaller } from "../caller.ts";
import type { PlatformServices } from "../platform-services.ts";
import type { Logger } from "../ports/logger.ts";
import type { OperationInput, OperationName, OperationOutput } from "../registry.ts";
import { createPluginStore, type PluginStore } from "./plugin-store.ts";

const memoryOperations = {
  remember: "remember",
  ingest: "ingest_memory",
  recall: "recall",
  profile: "memory_profile",
  get: "get_memory",
  list: "list_memories",
  forget: "forget_memory",
} as const satisfies Record<string, OperationName>;

const sandboxOperations = {
  create: "create_sandbox",
  get: "get_sandbox",
  list: "list_sandboxes",
  destroy: "destroy_sandbox",
  exec: "exec",
  createFile: "file_create",
  view: "view",
  replace: "str_replace",
  ls: "ls",
  glob: "glob",
  grep: "grep",
} as const satisfies Record<string, OperationName>;

type Bound<Operations extends Record<string, OperationName>> = {
  readonly [Method in keyof Operations]: (
    input: OperationInput<Operations[Method]>,
  ) => Promise<OperationOutput<Operations[Method]>>;
};

export type PluginMemory = Bound<typeof memoryOperations>;
export type PluginSandboxes = Bound<typeof sandboxOperations>;

export interface PluginContext {
  /** The context's version: fields are only added while it is 1. */
  readonly version: 1;
  /** The plugin's own name. */
  readonly plugin: string;
  /** The account the tool call or the event belongs to. */
  readonly accountId: string;
  /** The request (tool call) or the event delivery this context serves, for logs. */
  readonly requestId: string;
  /** Aborted when the client goes away (tool calls) or the server stops (hooks). */
  readonly signal: AbortSignal;
  /** Memory operations for this account, as the REST routes run them (same validation, buckets, errors). */
  readonly memory: PluginMemory;
  /** Sandbox operations for this account, under its quotas and allowlist. */
  readonly sandboxes: PluginSandboxes;
  /** This plugin's key-value store for this account. */
  readonly store: PluginStore;
  readonly logger: Logger;
  /** The platform clock. */
  now(): Date;
}

export interface PluginContextScope {
  plugin: string;
  accountId: string;
  requestId: string;
  signal: AbortSignal;
}

export function createPluginContext(platform: PlatformServices, scope: PluginContextScope): PluginContext {
  const call = createCaller(platform);
  const options = {
    principal: {
      kind: "api_key" as const,
      accountId: scope.accountId,
      credentialId: `plugin:${scope.plugin}`,
    },
    requestId: scope.requestId,
    signal: scope.signal,
  };
  const bind = <Operations extends Record<string, OperationName>>(operations: Operations) =>
    Object.fromEntries(
      Object.entries(operations).map(([method, name]) => [
        method,
        (input: OperationInput<typeof name>) => call(name, input, options),
      ]),
    ) as unknown as Bound<Operations>;
  return {
    version: 1,
    plugin: scope.plugin,
    accountId: scope.accountId,
    requestId: scope.requestId,
    signal: scope.signal,
    memory: bind(memoryOperations),
    sandboxes: bind(sandboxOperations),
    store: createPluginStore(platform.storage.pluginStore, scope.plugin, scope.accountId, () =>
      platform.clock.now(),
    ),
    logger: platform.logger.child({ plugin: scope.plugin, requestId: scope.requestId }),
    now: () => platform.clock.now(),
  };
}
