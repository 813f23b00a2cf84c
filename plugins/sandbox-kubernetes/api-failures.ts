/**
 * API server answers that are not faults of the moment, read from the library's ApiException
 * (`code`, and `body` as the API server's Status, JSON text or parsed): a namespace ResourceQuota
 * that refuses a sandbox's pod is the deployment at capacity, as Cairn's own global cap says; an
 * RBAC refusal or a missing namespace is the deployment's misconfiguration, which retrying cannot
 * fix, named so that the operator sees what to grant.
 */
import { ServiceError } from "../../core/index.ts";

export function statusCode(error: unknown): number | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "number" ? code : undefined;
}

/** The `message` of the API server's Status in an ApiException's body, or "". */
export function statusMessage(error: unknown): string {
  const body = (error as { body?: unknown } | null)?.body;
  try {
    const status = typeof body === "string" ? JSON.parse(body) : body;
    const message = (status as { message?: unknown } | null)?.message;
    return typeof message === "string" ? message : "";
  } catch {
    return "";
  }
}

/**
 * A pod refused by a ResourceQuota (403, "exceeded quota: <name>, requested: …, used: …,
 * limited: …", the quota admission's wording) as `global_capacity_reached`, retryable. Its
 * details are the quota's pod count and the pods it counts when the quota caps pods; a quota on
 * CPU or memory has no such figures, so none are given. Null for any other failure.
 */
export function quotaRefusal(error: unknown): ServiceError | null {
  if (statusCode(error) !== 403) return null;
  const message = statusMessage(error);
  if (!message.includes("exceeded quota:")) return null;
  const figure = (part: "used" | "limited") => {
    const match = new RegExp(`${part}: (?:[^ ,]+,)*(?:count/)?pods=(\\d+)`).exec(message);
    return match ? Number(match[1]) : undefined;
  };
  const limit = figure("limited");
  const active = figure("used");
  return new ServiceError("global_capacity_reached", "The deployment runs as many sandboxes as it can", {
    cause: error,
    ...(limit !== undefined && active !== undefined && { details: { limit, active } }),
  });
}

/**
 * The API server's refusal of the runtime's own identity (403 "… cannot <verb> resource
 * \"<resource>\" in API group \"<group>\" …", or an exec upgrade answered 403), or a sandbox
 * namespace that does not exist, as `sandbox_runtime_misconfigured` naming the missing grant (the
 * identity's name stays in the log). Null for any other failure.
 */
export function misconfiguration(error: unknown, namespace: string): ServiceError | null {
  const message = statusMessage(error);
  const code = statusCode(error);
  const fix = "grant it as plugins/sandbox-kubernetes/README.md#running-against-a-real-cluster lists";
  const denied =
    code === 403 ? /cannot (\w+) resource "([^"]+)"(?: in API group "([^"]*)")?/.exec(message) : null;
  if (denied) {
    const [, verb, resource, group] = denied;
    const qualified = group ? `${resource}.${group}` : resource;
    return new ServiceError(
      "sandbox_runtime_misconfigured",
      `The sandbox runtime's Kubernetes identity may not ${verb} ${qualified} in namespace ${namespace}`,
      { cause: error, remediation: `An operator must ${fix} (verb ${verb} on ${qualified}).` },
    );
  }
  // An exec is a websocket upgrade: a refusal arrives as the socket's error, without the Status.
  if (/Unexpected server response: 403\b/.test(String((error as { message?: unknown } | null)?.message))) {
    return new ServiceError(
      "sandbox_runtime_misconfigured",
      `The sandbox runtime's Kubernetes identity may not exec in pods of namespace ${namespace}`,
      { cause: error, remediation: `An operator must ${fix} (verbs create and get on pods/exec).` },
    );
  }
  if (code === 404 && /^namespaces "[^"]+" not found$/.test(message)) {
    return new ServiceError(
      "sandbox_runtime_misconfigured",
      `The sandbox namespace ${namespace} does not exist`,
      {
        cause: error,
        remediation: "An operator must create it, or set SVC_KUBE_NAMESPACE to an existing one.",
      },
    );
  }
  return null;
}
