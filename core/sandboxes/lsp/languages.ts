/**
 * The languages `lsp_start` offers and the server each one runs. The servers are npm packages of
 * Cairn's own install (pyright, typescript-language-server with typescript), which the runtime
 * makes available read-only inside every sandbox at `languageServersPath`, and run on the
 * sandbox's /usr/bin/node (docs/sandboxes.md#language-servers).
 */

/** Where a language server sees the project's node_modules (read-only); an empty directory to every other process of the sandbox. */
export const languageServersPath = "/cairn/lsp/node_modules";

export interface Language {
  /** The server's command line inside the sandbox. */
  command: string[];
  /** The didOpen `languageId` of a document, from its path. */
  languageIdOf(path: string): string;
}

const typescriptServer = [
  "/usr/bin/node",
  `${languageServersPath}/typescript-language-server/lib/cli.mjs`,
  "--stdio",
];

function scriptLanguageId(path: string): string {
  if (/\.(c|m)?jsx?$/i.test(path)) return path.toLowerCase().endsWith("x") ? "javascriptreact" : "javascript";
  return path.toLowerCase().endsWith(".tsx") ? "typescriptreact" : "typescript";
}

export const languages: Readonly<Record<string, Language>> = {
  python: {
    command: ["/usr/bin/node", `${languageServersPath}/pyright/langserver.index.js`, "--stdio"],
    languageIdOf: () => "python",
  },
  typescript: { command: typescriptServer, languageIdOf: scriptLanguageId },
  javascript: { command: typescriptServer, languageIdOf: scriptLanguageId },
};

export const supportedLanguages = Object.keys(languages);
