import { z } from "zod";
import type { PlatformServices } from "../../platform-services.ts";
import { bucketLimit } from "../../rate-limits.ts";
import { defineTool, requireAccount } from "../../tool.ts";

export const usageSummary = z.object({
  monthly_sandbox_hours_used: z.number(),
  monthly_sandbox_hours_limit: z.number(),
  concurrent_sandboxes: z.number().int(),
  concurrent_sandboxes_limit: z.number().int(),
  total_sandboxes_created: z.number().int(),
});

/** Sandbox seconds as hours with 4 decimal places, the wire precision of usage figures. */
export const sandboxHours = (seconds: number) => Math.round((seconds / 3600) * 10_000) / 10_000;

export async function summariseUsage(
  platform: Pick<PlatformServices, "storage" | "config">,
  accountId: string,
  now: Date,
) {
  const figures = await platform.storage.usage.figures(accountId, now);
  return {
    monthly_sandbox_hours_used: sandboxHours(figures.monthlySandboxSeconds),
    monthly_sandbox_hours_limit: platform.config.SVC_FREE_MONTHLY_SANDBOX_HOURS,
    concurrent_sandboxes: figures.activeSandboxes,
    concurrent_sandboxes_limit: platform.config.SVC_MAX_CONCURRENT_SANDBOXES,
    total_sandboxes_created: figures.totalSandboxesCreated,
  };
}

export const getUsage = defineTool({
  name: "get_usage",
  group: "account",
  title: "Get usage and limits",
  description:
    "Sandbox hours used this month against the limit, active sandboxes against the concurrent cap, sandboxes created in all, and the sandbox_ops rate-limit tokens left. Check it before creating sandboxes.",
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  input: z.object({}),
  output: usageSummary.extend({
    sandbox_ops_rate_limit_remaining: z.number().int(),
    sandbox_ops_rate_limit: z.number().int(),
    snapshots: z.number().int(),
    snapshots_limit: z.number().int(),
    /** What the account's snapshots take (docs/sandboxes.md#snapshots). */
    snapshot_storage_bytes: z.number().int(),
  }),
  auth: "api_key",
  bucket: null,
  http: { method: "GET", path: "/v1/usage", status: 200 },
  uses: ["config", "rateLimits", "storage"],
  async handler(context) {
    const accountId = requireAccount(context);
    const { platform } = context;
    const limit = bucketLimit(platform.config, "sandbox_ops");
    const snapshots = await platform.storage.snapshots.list(accountId);
    return {
      ...(await summariseUsage(platform, accountId, context.now)),
      sandbox_ops_rate_limit_remaining: await platform.rateLimits.peek(
        `sandbox_ops:${accountId}`,
        limit,
        context.now,
      ),
      sandbox_ops_rate_limit: limit,
      snapshots: snapshots.length,
      snapshots_limit: platform.config.SVC_MAX_SNAPSHOTS_PER_ACCOUNT,
      snapshot_storage_bytes: snapshots.reduce((total, snapshot) => total + snapshot.sizeBytes, 0),
    };
  },
});
