/** The server's structured logger (pino), with credential-shaped fields blanked as a second line of defence. */
import pino from "pino";
import type { Config, Logger } from "../core/index.ts";

export function createLogger(config: Config): Logger {
  return pino({
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
  }) as unknown as Logger;
}
