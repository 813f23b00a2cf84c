/** The package version (kept equal to package.json's by test/core-boundary.test.ts). */
export const version = "0.1.0";
