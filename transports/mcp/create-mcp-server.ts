/**
 * An MCP server whose tools/list and tools/call walk the MCP tools of the registry, served over
 * streamable HTTP (http.ts) and over stdio in-process (`cairn mcp serve --data-dir`,
 * platform/serve-stdio.ts). Every call runs through core's `invoke`, the pipeline REST uses, so
 * credentials, rate-limit buckets, quotas and validation are one and the same. A failed call never
 * throws into the client: it comes back as an `isError` result carrying the REST error envelope;
 * only a tool name the server does not have is a protocol error (-32602).
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { CallToolRequest, CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import {
  invoke,
  isEnabled,
  type Platform,
  type Principal,
  ServiceError,
  type ToolProgress,
  toServiceError,
  type ValidationIssue,
} from "../../core/index.ts";
import { httpStatus } from "../http-status.ts";
import { inProfile, type ResultMode, type ToolProfile } from "./profiles.ts";
import { type CallExtra, createToolServer, failedCall, failureLabel, unknownTool } from "./tool-server.ts";
import { type McpTool, mcpTools } from "./tools.ts";

export const instructions = [
  "Memory: call recall and memory_profile early in a task; call remember when you learn something durable",
  "(a preference, a decision, a fact about the project); call forget_memory when asked to forget.",
  "Sandboxes: call create_sandbox first, pass its session_id to exec, file, process and LSP tools",
  "(relative paths are under /workspace), and call destroy_sandbox when done; build a custom image",
  "then pass image_id; create volumes then pass volume_mounts; create MCP connections then pass",
  "mcp_connection_names.",
].join(" ");

/** Who is calling: per HTTP request (the same key for every request of a session), or stdio's one account. */
export interface McpCaller {
  /** The credential of the request's `Authorization: Bearer` header; none in-process. */
  credential: string | null;
  /** Its credential, authenticated at the door of this same HTTP request, or stdio's local account. */
  principal: Principal;
  clientIp: string;
  requestId: string;
  /** Aborted when the HTTP request's client hangs up; none on stdio. */
  signal?: AbortSignal;
}

export interface McpServerOptions {
  profile: ToolProfile;
  /** How results travel (`?results=`, `--results`); unset, by the client's protocol version (profiles.ts). */
  results?: ResultMode;
  /** The caller of the message being handled: each HTTP request brings its own; stdio has one. */
  caller(extra: CallExtra): McpCaller;
}

/** The largest tool result a call returns: 4 MiB of JSON, sent twice (`both`), stays under 10 MiB. */
export const maxResultBytes = 4 * 1024 * 1024;

function resultTooLarge(bytes: number): ServiceError {
  const mib = (bytes / 1024 / 1024).toFixed(1);
  return new ServiceError(
    "payload_too_large",
    `The result is ${mib} MiB, more than a tool result carries (4 MiB)`,
    {
      remediation:
        "Ask for less: a smaller max_output_bytes, a line range of the file (view_range), or search it with grep.",
    },
  );
}

/** A refused argument's problems for the line a model reads: ` (path: Is a directory: …)`. */
function fieldProblems(error: ServiceError): string {
  if (error.code !== "validation_error" || !Array.isArray(error.details)) return "";
  const problems = (error.details as ValidationIssue[]).map(
    (issue) => `${issue.loc.slice(1).join(".") || "arguments"}: ${issue.msg}`,
  );
  return problems.length > 0 ? ` (${problems.join("; ")})` : "";
}

/** A failed call as the model sees it: the REST error envelope, and a line of text. */
function errorResult(name: string, memory: boolean, error: ServiceError): CallToolResult {
  return failedCall(failureLabel(name, memory), error.toBody(), httpStatus(error.code), fieldProblems(error));
}

/**
 * Core locates a bad field by its path in the operation's input ([field, …]), whether the schema
 * or the handler found it; the tool names it as its argument: ["arguments", argument, …].
 */
function asToolError(tool: McpTool, error: ServiceError): ServiceError {
  if (error.code !== "validation_error" || !Array.isArray(error.details)) return error;
  const details = (error.details as ValidationIssue[]).map((issue) => ({
    ...issue,
    loc: ["arguments", tool.argumentName(issue.loc[0] ?? ""), ...issue.loc.slice(1)],
  }));
  return new ServiceError("validation_error", error.message, { details });
}

function failure(tool: McpTool, thrown: unknown, platform: Platform, requestId: string): CallToolResult {
  const error = asToolError(tool, toServiceError(thrown));
  if (httpStatus(error.code) >= 500) {
    platform.logger.error(
      { requestId, tool: tool.name, err: error.cause ?? thrown, code: error.code },
      "tool failed",
    );
  }
  return errorResult(tool.name, tool.operation.group === "memory", error);
}

/** How often a call with a `progressToken` that reports no output of its own says it is still running. */
export const progressIntervalMilliseconds = 5_000;

/**
 * A call's progress as `notifications/progress` for its `progressToken`. An operation that
 * streams its output (exec) reports it: `progress` counts the bytes of output so far (so it only
 * grows), `message` is the new text (stdout and stderr in the order they came). Any other call
 * (process_wait, create_sandbox, a process_output that waits, …) says every few seconds that it is
 * still running: `progress` is the seconds it has run, which lets a client keep a long call alive
 * (the SDK's `resetTimeoutOnProgress`) until `stop()`. Sent in order; `sent()` settles once every
 * one is out, so the result never overtakes them.
 */
function progressNotifier(extra: CallExtra, progressToken: string | number, tool: McpTool) {
  let queue = Promise.resolve();
  const send = (progress: number, message: string) => {
    const notification = {
      method: "notifications/progress" as const,
      params: { progressToken, progress, message },
    };
    queue = queue.then(() => extra.sendNotification(notification)).catch(() => {});
  };
  if (tool.operation.streamsOutput) {
    let bytes = 0;
    return {
      report(update: ToolProgress) {
        if (update.kind !== "output") return;
        bytes += Buffer.byteLength(update.text);
        send(bytes, update.text);
      },
      stop() {},
      sent: () => queue,
    };
  }
  let seconds = 0;
  const timer = setInterval(() => {
    seconds += progressIntervalMilliseconds / 1000;
    send(seconds, `${tool.name} still running after ${seconds} s`);
  }, progressIntervalMilliseconds);
  return {
    report: undefined,
    stop: () => clearInterval(timer),
    sent: () => queue,
  };
}

/** One tools/call through core's pipeline, as `caller`. */
async function callTool(
  platform: Platform,
  tool: McpTool,
  params: CallToolRequest["params"],
  caller: McpCaller,
  extra: CallExtra,
): Promise<CallToolResult> {
  const started = performance.now();
  // notifications/cancelled aborts extra.signal (the SDK); a client hanging up aborts the caller's.
  const signal = caller.signal ? AbortSignal.any([extra.signal, caller.signal]) : extra.signal;
  const progressToken = params._meta?.progressToken;
  const progress = progressToken !== undefined ? progressNotifier(extra, progressToken, tool) : undefined;
  try {
    const input = tool.toInput(params.arguments);
    const { output } = await invoke(platform, tool.operation, {
      credential: caller.credential,
      principal: caller.principal,
      clientIp: caller.clientIp,
      requestId: caller.requestId,
      signal,
      input,
      reportProgress: progress?.report,
    }).finally(() => progress?.stop());
    await progress?.sent();
    const result = tool.toResult(output, input);
    const text = JSON.stringify(result);
    const bytes = Buffer.byteLength(text);
    // The result may travel twice (structured and as text) in one message, and stdio clients
    // refuse a message over 10 MiB and drop the session: a larger result is refused instead.
    if (bytes > maxResultBytes) throw resultTooLarge(bytes);
    platform.logger.info(
      { requestId: caller.requestId, tool: tool.name, ms: Math.round(performance.now() - started) },
      "tool call",
    );
    const failed = tool.operation.mcp?.failure?.(output) ?? null;
    if (failed !== null)
      return {
        isError: true,
        content: [{ type: "text", text: `${failureLabel(tool.name, false)}: ${failed}` }],
        structuredContent: result,
      };
    return { content: [{ type: "text", text }], structuredContent: result };
  } catch (thrown) {
    if (signal.aborted) {
      // Cancelled by the client: its command is stopped and nobody reads an answer (the SDK sends
      // none), so this is no failure of the server's.
      platform.logger.info(
        { requestId: caller.requestId, tool: tool.name, ms: Math.round(performance.now() - started) },
        "tool call cancelled",
      );
      return { isError: true, content: [{ type: "text", text: `${tool.name} was cancelled` }] };
    }
    const result = failure(tool, thrown, platform, caller.requestId);
    platform.logger.info(
      {
        requestId: caller.requestId,
        tool: tool.name,
        ms: Math.round(performance.now() - started),
        code: (result.structuredContent as { error: { code: string } }).error.code,
      },
      "tool call failed",
    );
    return result;
  }
}

export function createMcpServer(platform: Platform, options: McpServerOptions): Server {
  const tools = mcpTools(platform.tools.tools).filter(
    (tool) => inProfile(options.profile, tool.operation) && isEnabled(tool.operation, platform.config),
  );
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  const listed = tools.map((tool) => ({
    ...tool.definition,
    title: tool.title,
    outputSchema: tool.outputSchema,
  }));
  return createToolServer(
    {
      instructions,
      list: () => ({ tools: listed }),
      async call(params, extra) {
        const caller = options.caller(extra);
        const tool = byName.get(params.name);
        if (!tool) throw unknownTool(params.name);
        return callTool(platform, tool, params, caller, extra);
      },
    },
    { results: options.results },
  );
}
