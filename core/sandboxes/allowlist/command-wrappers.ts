/**
 * Programs and shell builtins that run another command (env, xargs, find -exec, sh -c, timeout,
 * …). The allowlist checks the wrapper itself like any program and then the command it runs;
 * this module finds that inner command, or says why it cannot be found. Option tables follow
 * GNU coreutils/findutils, bash and dash; an option not listed here is refused rather than
 * guessed, because guessing wrong would let the inner command slip past the check.
 */

import type { ShellWord } from "./shell-lexer.ts";

export interface Invocation {
  /** words[0] is the program, the rest its arguments. */
  words: ShellWord[];
  /** False when the wrapper adds arguments that are unknown here (xargs input, find's `{}`). */
  argsKnown: boolean;
}

export type Unwrapped =
  | { kind: "inner"; invocations: Invocation[]; scripts: string[] }
  | { kind: "refuse"; reason: string };

interface OptionSpec {
  flags?: string;
  valued?: string;
  /** Short options whose value, if any, is attached (`-i{}`). */
  optionalValued?: string;
  longFlags?: string[];
  longValued?: string[];
  /** Long options that take a value only when written with `=`. */
  longOptionalValued?: string[];
  /** `-10` as in `nice -10`. */
  numericFlags?: boolean;
  /** `-` alone is an option (env). */
  dashIsFlag?: boolean;
}

type OptionsResult = { ok: true; index: number } | { ok: false; reason: string };

const expansionReason = (name: string): string =>
  `cannot tell which command ${name} runs: its options use shell expansion`;

/** Returns the index of the first operand after the options. */
function skipOptions(name: string, args: ShellWord[], spec: OptionSpec): OptionsResult {
  let index = 0;
  while (index < args.length) {
    const argument = args[index];
    if (argument.expands || argument.unquotedExpansion) return { ok: false, reason: expansionReason(name) };
    const value = argument.value;
    if (value === "--") return { ok: true, index: index + 1 };
    if (value === "-" && spec.dashIsFlag) {
      index += 1;
      continue;
    }
    if (!value.startsWith("-") || value === "-") return { ok: true, index };
    if (spec.numericFlags && /^-\d+$/.test(value)) {
      index += 1;
      continue;
    }
    if (value.startsWith("--")) {
      const equals = value.indexOf("=");
      const option = equals < 0 ? value : value.slice(0, equals);
      if (spec.longFlags?.includes(option) && equals < 0) index += 1;
      else if (spec.longOptionalValued?.includes(option)) index += 1;
      else if (spec.longValued?.includes(option)) index += equals < 0 ? 2 : 1;
      else return { ok: false, reason: `${name} option ${option} is not supported when an allowlist is set` };
      continue;
    }
    let consumed = 1;
    for (let position = 1; position < value.length; position += 1) {
      const letter = value[position];
      if (spec.flags?.includes(letter)) continue;
      if (spec.valued?.includes(letter)) {
        if (position === value.length - 1) consumed = 2;
        break;
      }
      if (spec.optionalValued?.includes(letter)) break;
      return { ok: false, reason: `${name} option -${letter} is not supported when an allowlist is set` };
    }
    if (consumed === 2 && args[index + 1] && (args[index + 1].expands || args[index + 1].unquotedExpansion)) {
      return { ok: false, reason: expansionReason(name) };
    }
    index += consumed;
  }
  return { ok: true, index: Math.min(index, args.length) };
}

const inner = (words: ShellWord[], argsKnown = true): Unwrapped => ({
  kind: "inner",
  invocations: words.length > 0 ? [{ words, argsKnown }] : [],
  scripts: [],
});
const refuse = (reason: string): Unwrapped => ({ kind: "refuse", reason });
const nothing: Unwrapped = { kind: "inner", invocations: [], scripts: [] };

function afterOptions(name: string, args: ShellWord[], spec: OptionSpec, operandsBefore = 0): Unwrapped {
  const options = skipOptions(name, args, spec);
  if (!options.ok) return refuse(options.reason);
  const operands = args.slice(options.index);
  for (const operand of operands.slice(0, operandsBefore)) {
    if (operand.expands || operand.unquotedExpansion) return refuse(expansionReason(name));
  }
  return inner(operands.slice(operandsBefore));
}

export const assignmentPattern = /^[A-Za-z_][A-Za-z0-9_]*=/;

/**
 * Environment variables that change which program runs or make an allowed program run another
 * one (a pager, an editor, an ssh command, a preloaded library). Setting them is refused when an
 * allowlist is set. A denylist can only be best effort; the sandbox is the real boundary.
 */
export function isDangerousVariable(name: string): boolean {
  if (/^(LD_|BASH_FUNC_|GIT_|DYLD_)/.test(name)) return true;
  if (/(PAGER|EDITOR|ASKPASS|_COMMAND|_OPTIONS|OPT)$/.test(name)) return true;
  return dangerousVariables.has(name);
}
const dangerousVariables = new Set(
  (
    "PATH IFS ENV BASH_ENV SHELLOPTS BASHOPTS PS4 PROMPT_COMMAND BASH_LOADABLES_PATH GCONV_PATH " +
    "VISUAL LESSOPEN LESSCLOSE SHELL BROWSER PYTHONSTARTUP PYTHONPATH PERL5LIB RUBYLIB " +
    "NODE_PATH " +
    // Variables that name a program or a file of settings that can name one (rsync, wget, vim,
    // make, less, awk): the environment route to the options program-options.ts refuses.
    "RSYNC_RSH RSYNC_CONNECT_PROG WGETRC CURL_HOME EXINIT VIMINIT MYVIMRC MAKEFLAGS MFLAGS " +
    "GNUMAKEFLAGS LESS LESSKEY LESSKEYIN LESSKEY_CONTENT AWKPATH AWKLIBPATH CVS_RSH SVN_SSH " +
    "PERL5DB PERLLIB " +
    // Files of settings that load libraries or name programs: openssl's configuration (engines,
    // providers), psql's startup file (\!), gnupg's home (pinentry-program), systemd's less
    // options, and where groff finds troff and its preprocessors.
    "OPENSSL_CONF OPENSSL_ENGINES OPENSSL_MODULES PSQLRC GNUPGHOME SYSTEMD_LESS GROFF_BIN_PATH " +
    "GROFF_COMMAND_PREFIX"
  ).split(" "),
);

function envWrapper(args: ShellWord[]): Unwrapped {
  const options = skipOptions("env", args, {
    flags: "i0v",
    valued: "uC",
    dashIsFlag: true,
    longFlags: ["--ignore-environment", "--null", "--debug"],
    longValued: ["--unset", "--chdir"],
    longOptionalValued: ["--default-signal", "--ignore-signal", "--block-signal"],
  });
  if (!options.ok) return refuse(options.reason);
  let index = options.index;
  while (index < args.length && assignmentPattern.test(args[index].value)) {
    if (args[index].unquotedExpansion) return refuse(expansionReason("env"));
    const name = args[index].value.slice(0, args[index].value.indexOf("="));
    if (isDangerousVariable(name)) return refuse(`setting ${name} is not allowed when an allowlist is set`);
    index += 1;
  }
  return inner(args.slice(index));
}

function xargsWrapper(args: ShellWord[]): Unwrapped {
  const options = skipOptions("xargs", args, {
    flags: "0rtpxo",
    valued: "adEILnPs",
    optionalValued: "eil",
    longFlags: [
      "--null",
      "--no-run-if-empty",
      "--verbose",
      "--interactive",
      "--exit",
      "--open-tty",
      "--show-limits",
    ],
    longValued: [
      "--arg-file",
      "--delimiter",
      "--max-args",
      "--max-procs",
      "--max-chars",
      "--process-slot-var",
    ],
    longOptionalValued: ["--replace", "--eof", "--max-lines"],
  });
  if (!options.ok) return refuse(options.reason);
  const words = args.slice(options.index);
  // xargs with no command runs echo; its arguments come from standard input.
  if (words.length === 0) return inner([syntheticWord("echo")], false);
  return inner(words, false);
}

function findWrapper(args: ShellWord[]): Unwrapped {
  // A quoted "$X" is one word, but its value could still be -exec.
  if (args.some((argument) => argument.unquotedExpansion || argument.expands)) {
    return refuse(
      "find arguments use shell expansion or unquoted globs, so its -exec cannot be checked; quote or spell them out",
    );
  }
  const invocations: Invocation[] = [];
  for (let index = 0; index < args.length; index += 1) {
    if (!["-exec", "-execdir", "-ok", "-okdir"].includes(args[index].value)) continue;
    const start = index + 1;
    let end = start;
    while (
      end < args.length &&
      args[end].value !== ";" &&
      !(args[end].value === "+" && end > start && args[end - 1].value === "{}")
    ) {
      end += 1;
    }
    if (end >= args.length) return refuse(`find ${args[index].value} is missing its terminating ';' or '+'`);
    const words = args.slice(start, end);
    if (words.length === 0) return refuse(`find ${args[index].value} has no command`);
    const argsKnown = !words.slice(1).some((word) => word.value.includes("{}"));
    invocations.push({ words, argsKnown });
    index = end;
  }
  return { kind: "inner", invocations, scripts: [] };
}

const shellNames = new Set(["sh", "bash", "dash", "zsh", "ksh", "ash", "mksh", "posh", "rbash"]);
const dashNames = new Set(["sh", "dash"]);

function shellWrapper(name: string, args: ShellWord[]): Unwrapped {
  // The command string is checked with dash's grammar (shell-parser.ts), which only sh and dash
  // follow: bash reads `&>`, `$'…'`, `((…))` and `${X:offset}` differently, and some of those
  // run programs that dash's reading of the same string does not show.
  if (!dashNames.has(name)) {
    return refuse(
      `${name} reads its command strings with a grammar the allowlist cannot check (it checks /bin/sh, which is dash); use sh -c`,
    );
  }
  let hasCommandString = false;
  let index = 0;
  while (index < args.length) {
    const argument = args[index];
    if (argument.expands || argument.unquotedExpansion) return refuse(expansionReason(name));
    const value = argument.value;
    if (value === "--" || value === "-") {
      index += 1;
      break;
    }
    if (!/^[-+]/.test(value)) break;
    if (value.startsWith("--")) {
      if (!["--posix", "--noprofile", "--norc", "--noediting"].includes(value)) {
        return refuse(`${name} option ${value} is not supported when an allowlist is set`);
      }
      index += 1;
      continue;
    }
    let consumed = 1;
    for (const letter of value.slice(1)) {
      if (letter === "c") hasCommandString = true;
      else if (letter === "o" || letter === "O") consumed = 2;
      else if (!"aefhmnuvxBCEHPT".includes(letter)) {
        return refuse(
          `${name} option ${value[0]}${letter} (startup files, stdin or interactive mode) is not allowed`,
        );
      }
    }
    index += consumed;
  }
  const operand = args[index];
  if (!hasCommandString) {
    return refuse(
      operand
        ? `${name} running a script file cannot be checked against the allowlist; use ${name} -c '…'`
        : `${name} reading commands from standard input cannot be checked against the allowlist`,
    );
  }
  if (!operand) return refuse(`${name} -c has no command string`);
  if (operand.expands || operand.unquotedExpansion) {
    return refuse(`the command string of ${name} -c uses shell expansion and cannot be checked`);
  }
  return { kind: "inner", invocations: [], scripts: [operand.value] };
}

function commandBuiltin(args: ShellWord[]): Unwrapped {
  const options = skipOptions("command", args, { flags: "pvV" });
  if (!options.ok) return refuse(options.reason);
  // `command -v name` only prints how name would be found.
  if (args.slice(0, options.index).some((argument) => /^-[a-zA-Z]*[vV]/.test(argument.value))) return nothing;
  return inner(args.slice(options.index));
}

function busyboxWrapper(args: ShellWord[]): Unwrapped {
  if (args.length === 0 || args[0].value.startsWith("-")) return nothing; // busybox's own options
  // busybox sh is ash, with bash's extensions: not the grammar the allowlist checks.
  if (shellNames.has(args[0].value))
    return refuse(`busybox ${args[0].value} is not dash, so its command strings cannot be checked`);
  return inner(args);
}

/** Wrapper programs: the wrapper must be allowed itself, then its inner command is checked. */
export const wrapperPrograms: ReadonlyMap<string, (args: ShellWord[], name: string) => Unwrapped> = new Map<
  string,
  (args: ShellWord[], name: string) => Unwrapped
>([
  ["env", envWrapper],
  ["xargs", xargsWrapper],
  ["find", findWrapper],
  ["busybox", busyboxWrapper],
  ["nohup", (args) => afterOptions("nohup", args, { longFlags: ["--help", "--version"] })],
  [
    "timeout",
    (args) =>
      afterOptions(
        "timeout",
        args,
        {
          flags: "v",
          valued: "sk",
          longFlags: ["--preserve-status", "--foreground", "--verbose"],
          longValued: ["--signal", "--kill-after"],
        },
        1,
      ),
  ],
  [
    "nice",
    (args) => afterOptions("nice", args, { valued: "n", longValued: ["--adjustment"], numericFlags: true }),
  ],
  [
    "time",
    (args) =>
      afterOptions("time", args, {
        flags: "pavq",
        valued: "fo",
        longFlags: ["--portability", "--append", "--verbose", "--quiet"],
        longValued: ["--format", "--output"],
      }),
  ],
  [
    "sudo",
    (args) =>
      afterOptions("sudo", args, {
        flags: "EHnPSbkA",
        valued: "ugCDprtTU",
        longFlags: ["--non-interactive", "--background", "--stdin", "--set-home", "--askpass"],
        longValued: ["--user", "--group", "--chdir", "--prompt", "--close-from", "--role", "--type"],
        longOptionalValued: ["--preserve-env"],
      }),
  ],
  ["doas", (args) => afterOptions("doas", args, { flags: "n", valued: "u" })],
  [
    "stdbuf",
    (args) => afterOptions("stdbuf", args, { valued: "ioe", longValued: ["--input", "--output", "--error"] }),
  ],
  [
    "setsid",
    (args) => afterOptions("setsid", args, { flags: "cfw", longFlags: ["--ctty", "--fork", "--wait"] }),
  ],
  ...[...shellNames].map(
    (name) =>
      [name, (args: ShellWord[]) => shellWrapper(name, args)] as [string, (args: ShellWord[]) => Unwrapped],
  ),
]);

/**
 * Shell builtins that only change how the inner command is started; they need no rule of their
 * own because they add nothing the inner command could not do, which is checked.
 */
export const transparentBuiltins: ReadonlyMap<string, (args: ShellWord[]) => Unwrapped> = new Map([
  ["exec", (args: ShellWord[]) => afterOptions("exec", args, { flags: "cl", valued: "a" })],
  ["command", commandBuiltin],
]);

/** Programs that run a command this module cannot safely find; refused even when listed. */
export const uncheckableRunners = new Set(
  (
    "su runuser chroot unshare nsenter flock watch script parallel strace ltrace gdb valgrind " +
    "taskset ionice chrt prlimit systemd-run pkexec runcon setpriv capsh numactl cgexec " +
    "firejail bwrap proot fakeroot faketime catchsegv sg newgrp expect tmux screen at batch " +
    "dtach rlwrap " +
    // From the review of the base image's binaries (ALLOWLIST.md): each runs a program it is given.
    "choom setarch linux32 linux64 i386 x86_64 uname26 dbus-run-session memusage heaptrack perf " +
    "ld.so run-parts ssh-agent start-stop-daemon"
  ).split(" "),
);

function syntheticWord(value: string): ShellWord {
  return {
    kind: "word",
    value,
    expands: false,
    unquotedExpansion: false,
    quoted: false,
    unquotedPrefixLength: value.length,
    fixedPrefixLength: value.length,
    splits: false,
    literal: true,
    assignment: false,
  };
}
