/** Entry of the local image builder plugin: pinned packages built into a layer in an isolated jail. */
export { createLocalImageBuilder, type LocalImageBuilderSettings } from "./create-local-image-builder.ts";
