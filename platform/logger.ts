/** The server's structured logger (pino), with credential-shaped fields blanked as a second line of defence. */
import pino from "pino";
import type { Config, Logger } from "../core/index.ts";

/**
 * Logs to stdout (`1`), as a server does, or to stderr (`2`) where stdout is a protocol's
 * (`cairn mcp serve --data-dir`).
 */
export function createLogger(config: Config, fileDescriptor: 1 | 2 = 1): Logger {
  return pino(
    {
      level: config.SVC_LOG_LEVEL,
      redact: [
        "authorization",
        "password",
        "token",
        "key",
        "*.authorization",
        "*.password",
        "*.access_token",
        "*.key",
      ],
    },
    pino.destination(fileDescriptor),
  ) as unknown as Logger;
}
