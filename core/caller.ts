/**
 * The in-process caller: runs any registry operation through the same pipeline as REST and MCP,
 * with no transport. Input and output types come from the operation's schemas. Used by tests,
 * scripts and programs that embed Cairn.
 */
import { ServiceError } from "./errors.ts";
import { invoke, type Principal } from "./invoke.ts";
import type { PlatformServices } from "./platform-services.ts";
import { findOperation, type OperationInput, type OperationName, type OperationOutput } from "./registry.ts";

export interface CallOptions {
  /** An API key or dashboard token, as a client would send it. */
  credential?: string;
  /**
   * An account already known to be the caller (the plugin host acting for the account a plugin
   * tool or hook runs for): operations of its credential kind run for it without a credential.
   */
  principal?: Principal;
  clientIp?: string;
  requestId?: string;
  signal?: AbortSignal;
}

export type Caller = <Name extends OperationName>(
  name: Name,
  input: OperationInput<Name>,
  options?: CallOptions,
) => Promise<OperationOutput<Name>>;

export function createCaller(platform: PlatformServices): Caller {
  return async (name, input, options = {}) => {
    const tool = findOperation(name);
    if (!tool) throw new ServiceError("not_found", `Unknown operation ${name}`);
    const result = await invoke(platform, tool, {
      credential: options.credential || null,
      clientIp: options.clientIp ?? "127.0.0.1",
      requestId: options.requestId ?? crypto.randomUUID().replaceAll("-", ""),
      signal: options.signal ?? new AbortController().signal,
      input,
      principal: options.principal,
    });
    return result.output as OperationOutput<typeof name>;
  };
}
