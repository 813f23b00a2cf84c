/** The passwords plugin: account passwords hashed with argon2id. */
import { definePlugin, version } from "../../core/index.ts";
import { createArgon2Hasher } from "./create-argon2-hasher.ts";

export default definePlugin({
  name: "passwords",
  version,
  ports: { passwords: { argon2: async () => createArgon2Hasher() } },
});
