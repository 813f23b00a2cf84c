/** The caps a new sandbox must fit under (docs/sandboxes.md#quotas), for create and for a snapshot's restore. */
import type { Config } from "../../config.ts";
import { ServiceError } from "../../errors.ts";
import type { CapacityFigures } from "../../ports/storage.ts";
import { sandboxHours } from "../../tools/account/get-usage.ts";

function secondsUntilNextMonth(now: Date): number {
  const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
  return Math.max(1, Math.ceil((next - now.getTime()) / 1000));
}

/** The order of docs/sandboxes.md#quotas: the account's concurrent cap, the deployment's, then the month. */
export function capacityRefusal(
  config: Config,
  count: number,
  figures: CapacityFigures,
): ServiceError | null {
  const limit = config.SVC_MAX_CONCURRENT_SANDBOXES;
  if (figures.active + count > limit) {
    return new ServiceError(
      "concurrent_sandbox_limit_reached",
      `At most ${limit} sandboxes may be active at once`,
      {
        details: { limit, active: figures.active },
      },
    );
  }
  const globalLimit = config.SVC_GLOBAL_MAX_CONCURRENT_SANDBOXES;
  if (figures.globalActive + count > globalLimit) {
    return new ServiceError("global_capacity_reached", "The deployment runs as many sandboxes as it can", {
      details: { limit: globalLimit, active: figures.globalActive },
    });
  }
  return null;
}

export function monthlyRefusal(config: Config, figures: CapacityFigures, now: Date): ServiceError | null {
  const limitHours = config.SVC_FREE_MONTHLY_SANDBOX_HOURS;
  const usedHours = sandboxHours(figures.monthlySandboxSeconds);
  if (figures.monthlySandboxSeconds < limitHours * 3600) return null;
  return new ServiceError(
    "monthly_usage_limit_reached",
    `This month's ${limitHours} sandbox-hours are used up`,
    {
      details: { limit_hours: limitHours, used_hours: usedHours },
      retryAfterSeconds: secondsUntilNextMonth(now),
    },
  );
}
