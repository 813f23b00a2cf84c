/** The local sandbox runtime plugin: a bubblewrap jail per sandbox on this machine (README.md). */
import { definePlugin, version } from "../../core/index.ts";
import { createLocalSandboxRuntime } from "./create-local-sandbox-runtime.ts";

export default definePlugin({
  name: "sandbox-local",
  version,
  ports: {
    sandboxRuntime: {
      local: async ({ config, logger }) =>
        createLocalSandboxRuntime({
          dataDir: config.SVC_DATA_DIR,
          logger,
          bubblewrapPath: config.SVC_BUBBLEWRAP_PATH,
          userIds: config.SVC_SANDBOX_UID_RANGE,
          egress: { allowPrivateEgress: config.SVC_ALLOW_PRIVATE_EGRESS },
        }),
    },
  },
});
