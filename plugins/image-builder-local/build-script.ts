/**
 * The shell script an image build runs inside its bubblewrap jail. The jail has no network but
 * loopback, so the script first starts a small forwarder (loopback port 3128 → the egress proxy's
 * Unix socket bound in from outside) and points npm, pip and apt at it as their HTTP proxy. Each
 * step prints a `== step <kind>` line so a failure can be named. Package entries were checked
 * against the exact-pin rules (letters, digits and `@/.+~:_-` only), so quoting them is safe.
 */
import { forwarderSource } from "../../lib/egress-proxy/index.ts";

export interface BuildSteps {
  npmPackages: string[];
  pythonPackages: string[];
  aptPackages: string[];
  /** The Debian suite apt downloads from (the host's, e.g. bookworm). */
  debianSuite: string;
  /** The Debian mirror, reached through the proxy (must be one of its allowed hosts). */
  debianMirror: string;
}

export const jailSocket = "/run/cairn/egress.sock";
export const jailLayer = "/layer";
const proxyUrl = "http://127.0.0.1:3128";

const quote = (value: string) => `'${value}'`;

const forwarder = forwarderSource(
  jailSocket,
  3128,
  'require("fs").writeFileSync("/tmp/forwarder-ready", "")',
);

/** `name==version` as each tool takes it. */
const npmArgument = (entry: string) => entry.replace("==", "@");
const aptArgument = (entry: string) => entry.replace("==", "=");

export function buildScript(steps: BuildSteps): string {
  const lines = [
    "set -eu",
    "export HOME=/tmp/home",
    `mkdir -p "$HOME" ${jailLayer}/npm ${jailLayer}/python ${jailLayer}/apt`,
    `/usr/bin/node -e ${quote(forwarder)} &`,
    "while [ ! -e /tmp/forwarder-ready ]; do sleep 0.05; done",
    // The host's trust store (an operator's own CA included), which Node does not read by itself.
    "if [ -r /etc/ssl/certs/ca-certificates.crt ]; then export NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt PIP_CERT=/etc/ssl/certs/ca-certificates.crt; fi",
    `export http_proxy=${proxyUrl} https_proxy=${proxyUrl} HTTP_PROXY=${proxyUrl} HTTPS_PROXY=${proxyUrl}`,
  ];
  if (steps.npmPackages.length > 0) {
    lines.push(
      "echo '== step npm'",
      `npm install --prefix ${jailLayer}/npm --no-audit --no-fund --no-update-notifier --no-save --cache /tmp/npm-cache --fetch-retries 1 --fetch-retry-mintimeout 1000 --fetch-retry-maxtimeout 2000 --proxy ${proxyUrl} --https-proxy ${proxyUrl} ${steps.npmPackages.map((entry) => quote(npmArgument(entry))).join(" ")}`,
    );
  }
  if (steps.pythonPackages.length > 0) {
    lines.push(
      "echo '== step python'",
      `python3 -m pip install --no-input --disable-pip-version-check --no-cache-dir --break-system-packages --proxy ${proxyUrl} --target ${jailLayer}/python ${steps.pythonPackages.map(quote).join(" ")}`,
    );
  }
  if (steps.aptPackages.length > 0) {
    const apt = [
      "apt-get -q",
      "-o Dir::State::Lists=/tmp/apt/lists",
      "-o Dir::Cache=/tmp/apt/cache",
      "-o Dir::Etc::SourceList=/tmp/apt/sources.list",
      "-o Dir::Etc::SourceParts=/tmp/apt/sources.list.d",
      `-o Acquire::http::Proxy=${proxyUrl}`,
      "-o Debug::NoLocking=1",
    ].join(" ");
    lines.push(
      "echo '== step apt'",
      "mkdir -p /tmp/apt/lists/partial /tmp/apt/cache/archives/partial /tmp/apt/sources.list.d /tmp/apt/debs",
      [
        `deb http://${steps.debianMirror}/debian ${steps.debianSuite} main`,
        `deb http://${steps.debianMirror}/debian ${steps.debianSuite}-updates main`,
        `deb http://${steps.debianMirror}/debian-security ${steps.debianSuite}-security main`,
      ]
        .map((line) => `echo '${line}' >> /tmp/apt/sources.list`)
        .join("\n"),
      `${apt} update`,
      `cd /tmp/apt/debs && ${apt} download ${steps.aptPackages.map((entry) => quote(aptArgument(entry))).join(" ")}`,
      `for deb in /tmp/apt/debs/*.deb; do dpkg -x "$deb" ${jailLayer}/apt; done`,
    );
  }
  lines.push("echo '== done'");
  return `${lines.join("\n")}\n`;
}
