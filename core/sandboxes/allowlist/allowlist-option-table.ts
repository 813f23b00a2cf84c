/**
 * The table of program-starting options the allowlist refuses (program-options.ts reads it):
 * per program basename, each option under all its spellings, with the reason given when it is
 * refused. ALLOWLIST.md lists the table and the review it came from.
 */

export interface RiskyOption {
  /** `-I` a short option (also inside a bundle), `--use-compress-program` a long one, `+` a
   *  +command word (vim, less), a bare word an operand (`git submodule foreach`). */
  spellings: readonly string[];
  effect: string;
  /** Values that make the option harmless (ssh -o with a harmless setting). */
  safeValue?: RegExp;
  /** Complete names of harmless options that are also prefixes of a long spelling: an exact
   *  name is never read as an abbreviation (tar --checkpoint, but not --checkpoint-action). */
  exactNames?: readonly string[];
}

export interface ProgramOptions {
  programs: readonly string[];
  options: readonly RiskyOption[];
  /** Short options that always take a value, in every implementation: the rest of a bundle after
   *  one is that value (`tar -cfI.tar`). Listing a letter that is a flag somewhere would hide the
   *  letters after it, so the lists are short. */
  valuedShort?: string;
  /** tar's old style: a first word without a dash is a bundle of options (`tar xIf sh a.tar`). */
  bundledFirstWord?: boolean;
  /** ld and openssl: `-plugin` and `-engine` are long options written with one dash. */
  singleDashLong?: boolean;
  /** The program takes no abbreviations: only the full name of a long option matches. */
  exactLong?: boolean;
  /** git: the options before the subcommand that take the next word as their value. */
  valuedBeforeSubcommand?: readonly string[];
  /** Risky options per subcommand; a string refuses the subcommand whole, with that effect. */
  subcommands?: Readonly<Record<string, readonly RiskyOption[] | string>>;
}

const option = (effect: string, ...spellings: string[]): RiskyOption => ({ effect, spellings });
const starts = "starts another program";
const configures =
  "sets configuration, which can name programs to run (core.pager, alias.*, core.fsmonitor, …)";
const readsConfig = "reads a configuration file that can name programs to run";
const editorCommands = "runs editor commands, which can start programs";
const loadsPlugin = "loads a plugin library, which can run anything";
const unsafeRoff = "enables unsafe mode, in which documents run shell commands (.sy, .pso, pic's sh)";
// binutils under their plain names, gcc's wrappers and the target-prefixed names Debian installs.
const withTargetPrefix = (...names: string[]): string[] => [
  ...names,
  ...names.map((name) => `x86_64-linux-gnu-${name}`),
];
const sshSafeSettings =
  /^(StrictHostKeyChecking|UserKnownHostsFile|GlobalKnownHostsFile|BatchMode|ConnectTimeout|ConnectionAttempts|LogLevel|ServerAliveInterval|ServerAliveCountMax|TCPKeepAlive|IdentitiesOnly|IdentityFile|Port|User|Compression|PasswordAuthentication|PubkeyAuthentication|PreferredAuthentications|HostKeyAlias|CheckHostIP|HashKnownHosts|UpdateHostKeys|AddKeysToAgent)\s*(=\s*|\s+)[^\s=]+$/i;
const sshOptions = (...extra: RiskyOption[]): RiskyOption[] => [
  {
    effect: "sets an option that can start a program (ProxyCommand, LocalCommand, Match exec, …)",
    spellings: ["-o"],
    safeValue: sshSafeSettings,
  },
  option(readsConfig, "-F"),
  ...extra,
];

// Each RiskyOption is one option under all its spellings; its effect is the reason given.
export const programOptionTable: readonly ProgramOptions[] = [
  { programs: ["sort"], options: [option(starts, "--compress-program")] },
  { programs: ["split"], options: [option(starts, "--filter")] },
  {
    programs: ["tar", "gtar", "bsdtar"],
    bundledFirstWord: true,
    valuedShort: "fCTX",
    options: [
      option(starts, "-I", "--use-compress-program"),
      option(starts, "--to-command"),
      option(starts, "-F", "--info-script", "--new-volume-script"),
      { ...option(starts, "--checkpoint-action"), exactNames: ["--checkpoint"] },
      option(starts, "--rsh-command"),
      option(starts, "--rmt-command"),
    ],
  },
  { programs: ["rsync"], options: [option(starts, "-e", "--rsh"), option(starts, "--rsync-path")] },
  {
    programs: ["git"],
    options: [
      option(configures, "-c"),
      option(configures, "--config-env"),
      option("chooses where git finds the programs it runs", "--exec-path"),
    ],
    valuedBeforeSubcommand: [
      "-C",
      "-c",
      "--git-dir",
      "--work-tree",
      "--namespace",
      "--super-prefix",
      "--config-env",
      "--attr-source",
    ],
    subcommands: {
      clone: [
        option(starts, "-u", "--upload-pack"),
        option(configures, "-c", "--config"),
        option("installs hooks from a directory, which run as programs", "--template"),
      ],
      fetch: [option(starts, "--upload-pack")],
      pull: [option(starts, "--upload-pack")],
      "ls-remote": [option(starts, "--upload-pack", "--exec")],
      push: [option(starts, "--receive-pack", "--exec")],
      "send-pack": [option(starts, "--receive-pack", "--exec")],
      archive: [option(starts, "--exec")],
      rebase: [option("runs a shell command after each commit", "-x", "--exec")],
      grep: [option("starts a pager program", "-O", "--open-files-in-pager")],
      help: [option("starts a web browser", "-w", "--web")],
      submodule: [option("runs a shell command in each submodule", "foreach")],
      bisect: [option("runs a command to test each commit", "run")],
      "send-email": ["--sendmail-cmd", "--smtp-server", "--to-cmd", "--cc-cmd", "--header-cmd"].map((name) =>
        option(starts, name),
      ),
      daemon: [option(starts, "--access-hook")],
      difftool: "starts an external diff tool",
      mergetool: "starts an external merge tool",
      "filter-branch": "runs shell commands as filters",
      instaweb: "starts a web server and a browser",
    },
  },
  {
    programs: ["man"],
    options: [
      option("starts a pager program", "-P", "--pager"),
      option("starts a web browser", "-H", "--html"),
      option(starts, "-X", "--gxditview"),
      option(readsConfig, "-C", "--config-file"),
    ],
  },
  {
    programs: ["less"],
    options: [
      option("runs a less command at start, and less commands can start programs", "+"),
      ...[["-k", "--lesskey-file"], ["--lesskey-src"], ["--lesskey-content"]].map((spellings) =>
        option("reads key bindings and settings (such as LESSOPEN) that can start programs", ...spellings),
      ),
    ],
  },
  {
    programs: [
      "vim",
      "vi",
      "view",
      "vimdiff",
      "ex",
      "rvim",
      "rview",
      "nvim",
      "gvim",
      "vim.basic",
      "vim.tiny",
      "vim.nox",
    ],
    options: [
      option(editorCommands, "+"),
      option(editorCommands, "-c"),
      option(editorCommands, "--cmd"),
      ...["-S", "-u", "-U", "-s"].map((letter) => option("runs an editor script file", letter)),
      option("runs a Lua script (nvim)", "-l"),
    ],
  },
  {
    programs: ["zip"],
    options: [
      option("tests the archive with another program (-TT names it)", "-T"),
      option(starts, "--unzip-command"),
    ],
  },
  { programs: ["ssh"], options: sshOptions(option("loads a PKCS#11 library, which can run anything", "-I")) },
  { programs: ["scp"], options: sshOptions(option(starts, "-S")) },
  {
    programs: ["sftp"],
    options: sshOptions(
      option(starts, "-S"),
      option(starts, "-D"),
      option("runs batch commands, which can start programs", "-b"),
    ),
  },
  {
    programs: ["curl"],
    options: [option(readsConfig, "-K", "--config"), option("loads a crypto engine library", "--engine")],
  },
  {
    programs: ["wget"],
    options: [
      option("runs wgetrc commands, which can name programs to run", "-e", "--execute"),
      option(readsConfig, "--config"),
      option(starts, "--use-askpass"),
    ],
  },
  // Found in the review of the base image's binaries (ALLOWLIST.md).
  { programs: ["install", "ginstall"], options: [option(starts, "--strip-program")] },
  {
    programs: ["sdiff"],
    options: [
      option(starts, "--diff-program"),
      option("merges interactively, and its e command starts an editor", "-o", "--output"),
    ],
  },
  { programs: ["diff3"], options: [option(starts, "--diff-program")] },
  {
    programs: ["groff"],
    options: [
      option(unsafeRoff, "-U"),
      option("sends the output to a print spooler, run through the shell with -L's arguments", "-l", "-L"),
    ],
  },
  { programs: ["troff", "pic", "gpic"], options: [option(unsafeRoff, "-U")] },
  {
    programs: withTargetPrefix(
      "ar",
      "nm",
      "ranlib",
      "gcc-ar",
      "gcc-nm",
      "gcc-ranlib",
      "gcc-ar-12",
      "gcc-nm-12",
      "gcc-ranlib-12",
    ),
    options: [option(loadsPlugin, "--plugin")],
  },
  {
    programs: withTargetPrefix("ld", "ld.bfd", "ld.gold", "gold"),
    singleDashLong: true,
    exactLong: true,
    options: [option(loadsPlugin, "--plugin")],
  },
  { programs: ["dpkg-architecture"], options: [option(starts, "-c", "--command")] },
  {
    programs: ["gpg", "gpg2", "gpgsm"],
    options: [
      option(starts, "--photo-viewer"),
      option(starts, "--agent-program"),
      option(starts, "--dirmngr-program"),
      option("chooses where gpg finds the programs it runs", "--exec-path"),
      option(readsConfig, "--options"),
    ],
  },
  {
    programs: ["gpg-agent"],
    options: [
      option(starts, "--pinentry-program"),
      option(starts, "--scdaemon-program"),
      option(readsConfig, "--options"),
    ],
  },
  {
    programs: ["gpg-connect-agent"],
    options: [
      option(starts, "-E", "--exec"),
      option(starts, "--agent-program"),
      option(starts, "--dirmngr-program"),
    ],
  },
  {
    programs: ["openssl"],
    singleDashLong: true,
    exactLong: true,
    options: [
      option(
        "loads an engine library, which can run anything",
        "--engine",
        "--keygen_engine",
        "--ssl_client_engine",
        "engine",
      ),
      option("loads a provider library, which can run anything", "--provider", "--provider-path"),
      option("reads a configuration file that can load libraries", "--config"),
    ],
  },
  {
    programs: ["nc", "ncat", "netcat", "nc.traditional", "nc.openbsd"],
    options: [
      option(starts, "-e", "--exec"),
      option(starts, "-c", "--sh-exec"),
      option(starts, "--lua-exec"),
    ],
  },
];
