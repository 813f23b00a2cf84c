import { describe, expect, it } from "vitest";
import { type AllowlistRule, checkCommand } from "./allowlist.ts";
import { scanAwk, scanSed } from "./script-scanners.ts";

const rules: AllowlistRule[] = ["sed", "gsed", "awk", "gawk", "mawk", "nawk", "original-awk", "xargs", "yes"];

const reasonFor = (command: string): string => {
  const result = checkCommand(rules, command);
  return result.allowed ? "(allowed)" : result.reason;
};

describe("sed", () => {
  it.each([
    ["the e command", "sed 'e touch pwned' f", "sed has the e command"],
    ["e after an address", "sed '1e touch pwned' f", "e command"],
    ["e after a negated regex address", "sed '/x/!e' f", "e command"],
    ["e after other commands", "sed 's/a/b/;e' f", "e command"],
    ["e in a block", "sed -e '1{p;e id' -e '}' f", "e command"],
    ["e on the line after a w file name", "sed 'w out\ne id' f", "e command"],
    ["e on the line after an s///w file name", "sed 's/a/b/w /dev/stdout\ne id' f", "e command"],
    ["e after y", "sed 'y/abc/xyz/;e' f", "e command"],
    ["the e flag of s", "sed 's/x/touch pwned/e' f", "sed has the e flag of s"],
    ["the e flag among others", "sed 's/x/id/ge' f", "e flag"],
    ["the e flag with another delimiter", "sed 's|x|id|e' f", "e flag"],
    ["a second -e", "sed -e p -e 'e id' f", "e command"],
    ["--expression", "sed --expression='s/a/b/e' f", "e flag"],
    ["an abbreviated --expression", "sed --expr=e f", "e command"],
    ["a bundled -ne", "sed -ne 'e id' f", "e command"],
    ["an attached -e", "sed -ee f", "e command"],
    ["gsed", "gsed 'e id' f", "gsed has the e command"],
    ["-f", "sed -f script.sed f", "sed -f reads its program from a file"],
    ["--file", "sed --file=script.sed f", "sed --file reads its program from a file"],
    ["an unknown option", "sed -x f", "option -x is not supported"],
    ["an ambiguous long option", "sed --s f", "ambiguous"],
    ["an expanded script", 'sed "$S" f', "uses shell expansion"],
    ["an expanded -e script", 'sed -e "$S" f', "program text of sed uses shell expansion"],
    ["a glob that could name an option", "sed 's/a/b/' *.txt", "could become an option"],
    ["an unknown command", "sed 'k' f", "script that cannot be checked"],
    ["an unterminated s", "sed 's/a/b' f", "script that cannot be checked"],
    ["xargs input", "yes | xargs sed -n p", "not known in advance"],
  ])("refuses %s", (_label, command, reason) => {
    expect(reasonFor(command)).toContain(reason);
  });

  it.each([
    "sed -n 1,5p f",
    "sed 's/foo/bar/g' f",
    "sed -E 's/(a|b)+/x/2' f",
    "sed -i.bak -e 's/e/E/g' f",
    "sed -n '/e/p' f",
    "sed '/^$/d' f",
    "sed -n '/start/,/end/{s/x/y/;p}' f",
    "sed ':a;N;$!ba;s/\\n/ /g' f",
    "sed '1i\\header' f",
    "sed '$a footer; e not a command' f",
    "sed 'a first\\\ne still appended text' f",
    "sed 's|/usr|/opt|g;\\,x,d' f",
    "sed 'r /etc/hostname' f",
    "sed '0~3d;2,+3d;5q' f",
    "sed = f",
    "sed -s -z -u --posix --debug -n p f",
    "sed -n p ./*.txt",
    "sed p -- f",
  ])("allows %s", (command) => {
    expect(checkCommand(rules, command)).toEqual({ allowed: true });
  });

  it("scans the script alone as GNU sed parses it", () => {
    expect(scanSed("s/a/b/;ee")).toContain("e command");
    expect(scanSed("s/a\\/e/b/g")).toBeNull();
    expect(scanSed("y/e/f/")).toBeNull();
  });
});

describe("awk", () => {
  it.each([
    ["system()", "awk 'BEGIN { system(\"touch pwned\") }'", "awk program calls system()"],
    ["system with a space", "awk 'BEGIN { system (\"id\") }'", "system()"],
    ["a namespaced system", "gawk 'BEGIN { awk::system(\"id\") }'", "system()"],
    ["a pipe to a command", "awk '{ print | \"sh\" }'", "pipes to or from a command"],
    ["a pipe from a command", "awk 'BEGIN { \"id\" | getline x }'", "pipes to or from a command"],
    ["a coprocess", 'gawk \'BEGIN { print "id" |& "sh" }\'', "pipes"],
    ["@load", "gawk '@load \"filefuncs\"'", "uses @"],
    ["an indirect call", 'gawk \'BEGIN { f = "system"; @f("id") }\'', "uses @"],
    ["a division that is not a regex", "awk '{ n = NR / 2; system(\"id\") / 3 }'", "system()"],
    ["a program given with -e", "gawk -e 'BEGIN { system(\"id\") }'", "system()"],
    ["--source", "gawk --source='BEGIN { system(\"id\") }'", "system()"],
    ["-f", "awk -f prog.awk f", "awk -f reads its program from a file"],
    ["-E", "gawk -E prog.awk f", "-E reads its program from a file"],
    ["--exec", "gawk --exec=prog.awk", "--exec reads its program"],
    ["-i", "gawk -i lib.awk '{print}'", "-i includes program text"],
    ["--include", "gawk --include=lib.awk '{print}'", "--include includes"],
    ["-l", "gawk -l ext '{print}'", "-l loads a compiled extension"],
    ["--load", "gawk --load=ext '{print}'", "--load loads"],
    ["-W", "mawk -W exec prog.awk", "-W options"],
    ["an expanded program", 'awk "$P" f', "uses shell expansion"],
    ["an unknown option", "awk -q '{print}'", "option -q is not supported"],
    ["nawk", "nawk 'BEGIN { system(\"id\") }'", "nawk program calls system()"],
    ["original-awk", "original-awk 'BEGIN { system(\"id\") }'", "system()"],
    ["mawk", "mawk 'BEGIN { system(\"id\") }'", "system()"],
  ])("refuses %s", (_label, command, reason) => {
    expect(reasonFor(command)).toContain(reason);
  });

  it.each([
    "awk '{print $1}' f",
    "awk -F: -v n=2 'NR > n { print $1 }' f",
    "awk -F'|' '{ print $2 }' f",
    "awk '/a|b/' f",
    "awk '$1 ~ /x|y/ && !/@/ { print }' f",
    "awk 'a || b' f",
    'awk \'BEGIN { print "a|b", "user@host", "system" }\'',
    "awk '{ print > \"out.txt\" }' f",
    "awk '# a | comment\n{ print }' f",
    "awk '{ s += $2 } END { printf \"%d\\n\", s / NR }' f",
    "gawk --posix -e '{ print }' f",
  ])("allows %s", (command) => {
    expect(checkCommand(rules, command)).toEqual({ allowed: true });
  });

  it("follows both readings of / where awk's grammar decides", () => {
    expect(scanAwk('x = a / 2; y = "/" ; z = 1 / 1')).toBeNull();
    expect(scanAwk("x = a /2/ system")).toContain("system()");
    expect(scanAwk("$0 ~ /system/")).toBeNull();
  });
});
