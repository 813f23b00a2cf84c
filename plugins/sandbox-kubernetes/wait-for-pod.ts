/**
 * Polls a freshly created pod until its sandbox container runs, within a bounded deadline.
 * Fails at once when the pod can never run (it ended, or its image or config is invalid). A pod
 * the scheduler cannot place keeps waiting (a cluster autoscaler may add a node), and a deadline
 * that passes names what it was still waiting for: the scheduler's message, or the container's
 * waiting reason.
 */

import { setTimeout as sleep } from "node:timers/promises";
import type { V1Pod } from "@kubernetes/client-node";
import { containerName } from "./manifests.ts";

// Waiting reasons that no amount of waiting fixes (ImagePullBackOff can be transient).
const hopelessReasons = new Set([
  "InvalidImageName",
  "ErrImageNeverPull",
  "CreateContainerConfigError",
  "CreateContainerError",
]);

export class PodStartError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PodStartError";
  }
}

/** "running", "pending", or why the pod will never run. */
export function podState(pod: V1Pod): "running" | "pending" | { failed: string } {
  const phase = pod.status?.phase;
  if (phase === "Failed" || phase === "Succeeded") return { failed: `pod phase ${phase}` };
  const container = pod.status?.containerStatuses?.find((status) => status.name === containerName);
  const waiting = container?.state?.waiting?.reason;
  if (waiting && hopelessReasons.has(waiting)) return { failed: `container waiting: ${waiting}` };
  if (container?.state?.terminated) return { failed: "container terminated" };
  return phase === "Running" && container?.state?.running ? "running" : "pending";
}

/** Why a pending pod is not running yet, for the error when the deadline passes. */
export function pendingReason(pod: V1Pod): string {
  const unscheduled = pod.status?.conditions?.find(
    (condition) => condition.type === "PodScheduled" && condition.status === "False",
  );
  if (unscheduled) return `not scheduled: ${unscheduled.reason ?? ""} ${unscheduled.message ?? ""}`.trim();
  const container = pod.status?.containerStatuses?.find((status) => status.name === containerName);
  const waiting = container?.state?.waiting;
  if (waiting) return `container waiting: ${waiting.reason ?? ""} ${waiting.message ?? ""}`.trim();
  return `pod phase ${pod.status?.phase ?? "unknown"}`;
}

export async function waitForRunningPod(options: {
  readPod: () => Promise<V1Pod>;
  timeoutMs: number;
  pollIntervalMs: number;
  signal?: AbortSignal;
}): Promise<V1Pod> {
  const deadline = performance.now() + options.timeoutMs;
  for (;;) {
    options.signal?.throwIfAborted();
    const pod = await options.readPod();
    const state = podState(pod);
    if (state === "running") return pod;
    if (state !== "pending") throw new PodStartError(`sandbox pod cannot start: ${state.failed}`);
    if (performance.now() + options.pollIntervalMs > deadline) {
      throw new PodStartError(
        `sandbox pod not running after ${options.timeoutMs} ms (${pendingReason(pod)})`,
      );
    }
    await sleep(options.pollIntervalMs, undefined, { signal: options.signal });
  }
}
