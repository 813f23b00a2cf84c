/** Per-bucket limits (docs/rate-limits.md#buckets), read from configuration. */
import type { Config } from "./config.ts";
import type { BucketName } from "./tool.ts";

export function bucketLimit(config: Config, bucket: BucketName): number {
  switch (bucket) {
    case "signup":
    case "login":
      return config.SVC_AUTH_RATE_LIMIT_PER_MINUTE;
    case "sandbox_lifecycle":
      return config.SVC_SANDBOX_LIFECYCLE_RATE_LIMIT_PER_MINUTE;
    case "sandbox_ops":
      return config.SVC_SANDBOX_RATE_LIMIT_PER_MINUTE;
    case "secret_ops":
      return config.SVC_SECRET_RATE_LIMIT_PER_MINUTE;
    case "mcp_connection_ops":
      return config.SVC_MCP_CONNECTION_RATE_LIMIT_PER_MINUTE;
    case "image_build_ops":
      return config.SVC_IMAGE_BUILD_RATE_LIMIT_PER_MINUTE;
    case "volume_ops":
      return config.SVC_VOLUME_RATE_LIMIT_PER_MINUTE;
    case "memory_ops":
      return config.SVC_MEMORY_RATE_LIMIT_PER_MINUTE;
  }
}
