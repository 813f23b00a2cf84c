import { z } from "zod";
import { ServiceError } from "../../errors.ts";
import type { SandboxSessionRecord } from "../../ports/storage.ts";
import { resolveImage } from "../../sandboxes/images/images.ts";
import { resolveMcpConnections } from "../../sandboxes/mcp-connections/mcp-connections.ts";
import { capacityRefusal, monthlyRefusal } from "../../sandboxes/sessions/capacity.ts";
import { sandboxSizes } from "../../sandboxes/sessions/sizes.ts";
import { requireReadyVolumes, resolveVolumeMounts } from "../../sandboxes/volumes/volumes.ts";
import { defineTool, requireAccount } from "../../tool.ts";
import { summariseUsage, usageSummary } from "../account/get-usage.ts";
import { runtimeCall, sandboxSessionOut, toSessionOut } from "./sessions.ts";

const createRequest = z.object({
  label: z.string().max(200).nullable().default(null).describe("Name shown in listings"),
  size: z.enum(sandboxSizes).default("small").describe("CPU and memory class"),
  storage_gb: z.number().positive().nullable().default(null).describe("Disk in GB (default: the size's)"),
  lifetime_minutes: z
    .number()
    .int()
    .min(1)
    .nullable()
    .default(null)
    .describe("Default and cap: the server's maximum"),
  count: z.number().int().min(1).max(10).default(1).describe("How many; above 1 answers a list"),
  secret_names: z
    .array(z.string().min(1).max(200))
    .max(50)
    .nullable()
    .default(null)
    .describe("Names of secrets the session's http_request may use"),
  image_id: z.string().max(64).nullable().default(null).describe("A completed custom image"),
  mcp_connection_names: z
    .array(z.string().min(1).max(200))
    .max(50)
    .nullable()
    .default(null)
    .describe("Labels of MCP connections it may reach"),
  volume_mounts: z
    .record(z.string().max(64).describe("Volume id"), z.string().min(1).max(4096).describe("Absolute path"))
    .nullable()
    .default(null)
    .describe('Ready volume id to absolute path, e.g. {"<id>": "/data"}'),
});

const createdResponse = sandboxSessionOut.extend({ usage: usageSummary });

/** With volumes switched off no volume can exist, so naming one is the same 404 as an unknown one. */
function refuseVolumes(requested: Record<string, string> | null): [] {
  const [first] = Object.keys(requested ?? {});
  if (first !== undefined) throw new ServiceError("not_found", `Volume ${first} not found or not ready`);
  return [];
}

function refuseImage(imageId: string | null): undefined {
  if (imageId !== null) throw new ServiceError("not_found", "Image not found or not completed");
  return undefined;
}

const sizeOrder = (size: (typeof sandboxSizes)[number]) => sandboxSizes.indexOf(size);

export const createSandbox = defineTool({
  name: "create_sandbox",
  group: "sandboxes",
  title: "Create a sandbox",
  description:
    "Create an isolated sandbox with no network except the hosts of mcp_connection_names. Pass its id as session_id to the other tools; destroy_sandbox when done.",
  annotations: { readOnly: false, destructive: false, idempotent: false, openWorld: false },
  input: createRequest,
  output: z.union([createdResponse, z.array(createdResponse)]),
  auth: "api_key",
  bucket: "sandbox_lifecycle",
  http: { method: "POST", path: "/v1/sandboxes", status: 201 },
  mcp: { omit: ["secret_names"], saidByTool: ["mcp_connection_names"] },
  uses: ["config", "sandboxRuntime", "storage"],
  async handler(context, input) {
    const accountId = requireAccount(context);
    const { config, storage, sandboxRuntime } = context.platform;
    const now = context.now;
    if (sizeOrder(input.size) > sizeOrder(config.SVC_MAX_SANDBOX_SIZE)) {
      throw new ServiceError(
        "sandbox_size_limit_reached",
        `The largest size allowed is ${config.SVC_MAX_SANDBOX_SIZE}`,
        {
          details: { requested_size: input.size, max_size: config.SVC_MAX_SANDBOX_SIZE },
        },
      );
    }
    if (input.storage_gb !== null && input.storage_gb > config.SVC_MAX_SANDBOX_STORAGE_GB) {
      throw new ServiceError(
        "sandbox_storage_limit_reached",
        `At most ${config.SVC_MAX_SANDBOX_STORAGE_GB} GB of storage`,
        {
          details: {
            requested_storage_gb: input.storage_gb,
            max_storage_gb: config.SVC_MAX_SANDBOX_STORAGE_GB,
          },
        },
      );
    }
    const lifetimeMinutes = input.lifetime_minutes ?? config.SVC_MAX_SESSION_MINUTES;
    if (lifetimeMinutes > config.SVC_MAX_SESSION_MINUTES) {
      throw new ServiceError("validation_error", "Invalid request", {
        details: [
          {
            type: "too_big",
            loc: ["lifetime_minutes"],
            msg: `Must be at most ${config.SVC_MAX_SESSION_MINUTES}`,
          },
        ],
      });
    }
    // With the builder switched off no image can be used, the same 404 as an unknown one.
    const image = config.SVC_IMAGE_BUILDER_ENABLED
      ? await resolveImage(storage.images, accountId, input.image_id)
      : refuseImage(input.image_id);
    const volumeMounts = config.SVC_VOLUMES_ENABLED
      ? await resolveVolumeMounts(context.platform, accountId, input.volume_mounts)
      : refuseVolumes(input.volume_mounts);
    const connections = await resolveMcpConnections(context.platform, accountId, input.mcp_connection_names);
    const secretNames = [...new Set(input.secret_names ?? [])];
    const found = new Set(
      (await storage.secrets.findByNames(accountId, secretNames)).map((secret) => secret.name),
    );
    const missing = secretNames.filter((name) => !found.has(name));
    if (missing.length > 0)
      throw new ServiceError("secret_not_found", `Secret ${JSON.stringify(missing[0])} not found`);

    const sessions: SandboxSessionRecord[] = Array.from({ length: input.count }, () => ({
      id: crypto.randomUUID(),
      accountId,
      status: "active",
      label: input.label,
      size: input.size,
      storageGb: input.storage_gb,
      runtime: sandboxRuntime.name,
      podName: null,
      connectNote: null,
      imageId: image?.id ?? null,
      grants: {
        secretNames,
        mcpConnectionNames: connections.labels,
        volumeMounts: Object.fromEntries(volumeMounts.map((mount) => [mount.volumeId, mount.mountPath])),
        egressHosts: connections.egressHosts,
      },
      createdAt: now,
      expiresAt: new Date(now.getTime() + lifetimeMinutes * 60_000),
      destroyedAt: null,
      endedReason: null,
    }));
    await storage.sandboxSessions.reserve(
      accountId,
      sessions,
      now,
      (figures) => capacityRefusal(config, input.count, figures) ?? monthlyRefusal(config, figures, now),
    );
    const started: string[] = [];
    try {
      // A volume deleted between the check above and the reservation is caught here (or the
      // delete sees these sessions and answers volume_in_use).
      await requireReadyVolumes(
        context.platform,
        accountId,
        volumeMounts.map((mount) => mount.volumeId),
      );
      await runtimeCall(context, "create", async () => {
        for (const session of sessions) {
          const connect = await sandboxRuntime.create({
            id: session.id,
            accountId,
            size: session.size,
            storageGb: session.storageGb,
            egressHosts: connections.egressHosts,
            volumeMounts,
            ...(image ? { image } : {}),
          });
          started.push(session.id);
          session.podName = connect.podName;
          session.connectNote = connect.note;
          await storage.sandboxSessions.setConnection(session.id, connect.podName, connect.note);
        }
      });
    } catch (error) {
      // Nothing half-made stays behind, and nothing is billed for it.
      await Promise.allSettled(started.map((id) => sandboxRuntime.destroy(id)));
      await storage.sandboxSessions.discard(sessions.map((session) => session.id));
      throw error;
    }
    await storage.mcpConnections.touch(accountId, connections.labels, now);
    context.logger.info({ sessionIds: started, size: input.size }, "sandboxes created");
    const usage = await summariseUsage(context.platform, accountId, now);
    const responses = sessions.map((session) => ({ ...toSessionOut(session, now), usage }));
    return input.count === 1 ? responses[0] : responses;
  },
});
