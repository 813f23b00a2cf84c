/**
 * Whether a base URL's host is inside the operator's own network, judged from its text alone (no
 * DNS, so the answer cannot change between start-up and a request). Without a managed provider,
 * memory content may only go to such a host (docs/configuration.md#embeddings-semantic-search).
 */
import { isUnsafeAddress, parseAddress } from "../../core/index.ts";

/**
 * Name suffixes that never resolve on the public internet: RFC 6761/6762 and ICANN's `.internal`
 * (`svc.cluster.local` in Kubernetes, `ec2.internal` on AWS, `home.arpa` at home).
 */
export const internalNameSuffixes: readonly string[] = [
  "localhost",
  "local",
  "localdomain",
  "internal",
  "home.arpa",
  "lan",
  "home",
  "corp",
  "private",
  "intranet",
];

/**
 * True for a loopback, private, link-local or other non-public IP literal, `localhost`, a
 * single-label name (a Compose or Kubernetes service name) and names under `internalNameSuffixes`.
 * A public IP or a name under a public suffix is false, even if the operator's DNS maps it to a
 * private address: that case needs SVC_MEMORY_EMBEDDING_PROVIDER=openai-compatible, on purpose.
 */
export function isInsideDeployment(hostname: string): boolean {
  const host = hostname
    .toLowerCase()
    .replace(/^\[|\]$/g, "")
    .replace(/\.$/, "");
  if (host === "") return false;
  if (parseAddress(host) !== null) return isUnsafeAddress(host);
  // The URL parser turns every other numeric form (0x7f.1, 2130706433) into dotted IPv4 already.
  if (!host.includes(".")) return true;
  return internalNameSuffixes.some((suffix) => host === suffix || host.endsWith(`.${suffix}`));
}
