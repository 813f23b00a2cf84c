/**
 * Cairn's version is written once, in the root package.json; this script copies it into every file
 * that must spell it out (`node scripts/set-version.ts 0.2.0` sets a new one first), and
 * test/versions.test.ts fails when any of them differs. Cargo.toml, go and pyproject cannot read a
 * version from elsewhere, so they get a copy rather than a reference.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";

const root = resolve(import.meta.dirname, "..");

/** Each file that carries the version, with the pattern whose first group is the version. */
export const versionSites: { file: string; pattern: RegExp }[] = [
  { file: "core/version.ts", pattern: /export const version = "([^"]+)"/ },
  { file: "sdks/js/package.json", pattern: /"version": "([^"]+)"/ },
  { file: "cli/package.json", pattern: /"version": "([^"]+)"/ },
  { file: "sdks/python/src/cairn/_version.py", pattern: /__version__ = "([^"]+)"/ },
  { file: "sdks/go/version.go", pattern: /const Version = "([^"]+)"/ },
  { file: "sdks/rust/Cargo.toml", pattern: /^version = "([^"]+)"/m },
  { file: "sdks/rust/Cargo.lock", pattern: /name = "cairn-client"\nversion = "([^"]+)"/ },
  { file: "examples/rust-sdk/Cargo.lock", pattern: /name = "cairn-client"\nversion = "([^"]+)"/ },
];

export async function rootVersion(): Promise<string> {
  return (JSON.parse(await readFile(join(root, "package.json"), "utf8")) as { version: string }).version;
}

export async function readVersion(site: (typeof versionSites)[number]): Promise<string | undefined> {
  return (await readFile(join(root, site.file), "utf8")).match(site.pattern)?.[1];
}

if (import.meta.main) {
  const wanted = process.argv[2];
  if (wanted !== undefined) {
    if (!/^\d+\.\d+\.\d+(-[\w.]+)?$/.test(wanted)) throw new Error(`not a semantic version: ${wanted}`);
    const manifest = join(root, "package.json");
    const text = await readFile(manifest, "utf8");
    await writeFile(manifest, text.replace(/"version": "[^"]+"/, `"version": "${wanted}"`));
  }
  const version = await rootVersion();
  for (const site of versionSites) {
    const path = join(root, site.file);
    const text = await readFile(path, "utf8");
    const match = text.match(site.pattern);
    if (!match) throw new Error(`${site.file}: no version found where expected`);
    await writeFile(path, text.replace(match[0], match[0].replace(match[1], version)));
  }
  console.log(`version ${version} written to package.json and ${versionSites.length} files`);
}
