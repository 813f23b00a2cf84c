/**
 * The in-process caller: runs any registry operation through the same pipeline as REST, with
 * no transport. Used by tests, scripts and embedding programs.
 */
import { ServiceError } from "./errors.ts";
import { invoke } from "./invoke.ts";
import type { Platform } from "./platform.ts";
import { findTool } from "./registry.ts";

export interface CallOptions {
  credential?: string;
  clientIp?: string;
  requestId?: string;
  signal?: AbortSignal;
}

export function createCaller(platform: Platform) {
  return async function call<Output = unknown>(name: string, input: unknown = {}, options: CallOptions = {}) {
    const tool = findTool(name);
    if (!tool) throw new ServiceError("not_found", `Unknown operation ${name}`);
    const result = await invoke(platform, tool, {
      authorization: options.credential ? `Bearer ${options.credential}` : null,
      clientIp: options.clientIp ?? "127.0.0.1",
      requestId: options.requestId ?? crypto.randomUUID().replaceAll("-", ""),
      signal: options.signal ?? new AbortController().signal,
      input,
      source: "body",
    });
    return result.output as Output;
  };
}
