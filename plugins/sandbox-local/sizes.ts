/**
 * Resource limits per sandbox size. The README in this folder documents the same table; cgroup
 * limits (memory, processes, CPU share) bind the whole sandbox, rlimits bind each process.
 */
import type { SandboxSize } from "../../core/ports/sandbox-runtime.ts";
import type { SizeLimits } from "../../lib/sandbox-isolation/index.ts";

export type { SizeLimits };

const mebibyte = 1024 * 1024;

export const defaultSizeLimits: Record<SandboxSize, SizeLimits> = {
  small: {
    memoryBytes: 512 * mebibyte,
    maxProcesses: 64,
    cpuCores: 0.5,
    maxFileBytes: 256 * mebibyte,
    cpuSeconds: 60,
    maxOpenFiles: 1024,
  },
  medium: {
    memoryBytes: 1024 * mebibyte,
    maxProcesses: 128,
    cpuCores: 1,
    maxFileBytes: 1024 * mebibyte,
    cpuSeconds: 120,
    maxOpenFiles: 1024,
  },
  large: {
    memoryBytes: 2048 * mebibyte,
    maxProcesses: 256,
    cpuCores: 2,
    maxFileBytes: 2048 * mebibyte,
    cpuSeconds: 240,
    maxOpenFiles: 4096,
  },
};

export type SizeOverrides = Partial<Record<SandboxSize, Partial<SizeLimits>>>;

export function resolveSizeLimits(overrides: SizeOverrides = {}): Record<SandboxSize, SizeLimits> {
  return {
    small: { ...defaultSizeLimits.small, ...overrides.small },
    medium: { ...defaultSizeLimits.medium, ...overrides.medium },
    large: { ...defaultSizeLimits.large, ...overrides.large },
  };
}
