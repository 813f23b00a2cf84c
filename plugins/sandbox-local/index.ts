/** Entry of the local (bubblewrap) sandbox runtime plugin. */
export {
  createLocalSandboxRuntime,
  type LocalSandboxRuntime,
  type LocalSandboxRuntimeSettings,
  type SessionProcess,
} from "./create-local-sandbox-runtime.ts";
export { defaultSizeLimits, type SizeLimits, type SizeOverrides } from "./sizes.ts";
