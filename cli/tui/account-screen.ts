/** The account screen: whose key this is, and gauges of sandbox hours, concurrency and rate headroom. */
import { Box, Text, useInput } from "ink";
import React from "react";
import { Gauge } from "./gauge.ts";
import { type ScreenProps, useReportMode } from "./screen-props.ts";
import { useAccount } from "./use-account.ts";

const h = React.createElement;

export function AccountScreen({ client, active, width, onModeChange }: ScreenProps) {
  const { account, usage, loading, error, refresh } = useAccount(client, active);
  useReportMode(active, "account:view", onModeChange);
  useInput(
    (input) => {
      if (input === "r") void refresh();
    },
    { isActive: active },
  );
  const barWidth = Math.max(8, Math.min(30, width - 48));
  return h(
    Box,
    { flexDirection: "column", paddingX: 1 },
    h(Text, { bold: true }, "Account"),
    account
      ? h(
          Box,
          { flexDirection: "column", marginBottom: 1 },
          h(Text, null, "Email       ", h(Text, { color: "cyan" }, account.email)),
          h(Text, null, "Account id  ", account.id),
          h(Text, null, "Created     ", account.created_at),
        )
      : null,
    h(Text, { bold: true }, "Usage"),
    usage
      ? h(
          Box,
          { flexDirection: "column" },
          h(Gauge, {
            label: "Sandbox hours this month",
            used: usage.monthly_sandbox_hours_used,
            limit: usage.monthly_sandbox_hours_limit,
            figures: `${usage.monthly_sandbox_hours_used.toFixed(2)} / ${usage.monthly_sandbox_hours_limit} h`,
            width: barWidth,
          }),
          h(Gauge, {
            label: "Concurrent sandboxes",
            used: usage.concurrent_sandboxes,
            limit: usage.concurrent_sandboxes_limit,
            figures: `${usage.concurrent_sandboxes} / ${usage.concurrent_sandboxes_limit}`,
            width: barWidth,
          }),
          h(Gauge, {
            label: "Sandbox ops this minute",
            used: usage.sandbox_ops_rate_limit - usage.sandbox_ops_rate_limit_remaining,
            limit: usage.sandbox_ops_rate_limit,
            // The figures say what the bar shows: used of the limit (the rest is left).
            figures: `${usage.sandbox_ops_rate_limit - usage.sandbox_ops_rate_limit_remaining} / ${usage.sandbox_ops_rate_limit} used`,
            width: barWidth,
          }),
          h(Text, null, `Sandboxes created in total: ${usage.total_sandboxes_created}`),
        )
      : null,
    loading && !usage && !error ? h(Text, { dimColor: true }, "Loading…") : null,
    error ? h(Text, { color: "red" }, error) : null,
  );
}
