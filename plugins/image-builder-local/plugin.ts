/** The local image builder plugin: pinned packages built into a layer in an isolated jail, for the local runtime. */
import { definePlugin, version } from "../../core/index.ts";
import { createLocalImageBuilder } from "./create-local-image-builder.ts";

export default definePlugin({
  name: "image-builder-local",
  version,
  ports: {
    imageBuilder: {
      local: async ({ config, logger }) =>
        createLocalImageBuilder({
          dataDir: config.SVC_DATA_DIR,
          registryHosts: config.SVC_IMAGE_REGISTRY_HOSTS,
          allowPrivateEgress: config.SVC_ALLOW_PRIVATE_EGRESS,
          timeoutSeconds: config.SVC_IMAGE_BUILD_TIMEOUT_SECONDS,
          logger,
        }),
    },
  },
});
