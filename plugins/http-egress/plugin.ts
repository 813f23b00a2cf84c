/** The HTTP egress plugin: the sandbox HTTP broker's requests, sent from the server with address checks at connect. */
import { definePlugin, version } from "../../core/index.ts";
import { createHttpEgress } from "./create-http-egress.ts";

export default definePlugin({
  name: "http-egress",
  version,
  ports: { egress: { http: async () => createHttpEgress() } },
});
