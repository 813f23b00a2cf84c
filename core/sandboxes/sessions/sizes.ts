/** The sandbox sizes, declared once; each runtime maps them to its own CPU and memory limits. */
export const sandboxSizes = ["small", "medium", "large"] as const;
export type SandboxSize = (typeof sandboxSizes)[number];

/** The disk (/workspace and /tmp together) a sandbox gets when create names no `storage_gb`. */
export const defaultStorageGb: Record<SandboxSize, number> = { small: 2, medium: 5, large: 10 };
