/**
 * The API server answers read as Cairn's errors, in the API server's own wording (each also seen
 * on the real control plane: test/sandboxes/kubernetes-real-cluster-quotas.test.ts, -rbac.test.ts).
 */
import { describe, expect, test } from "vitest";
import { misconfiguration, quotaRefusal } from "./api-failures.ts";

/** What @kubernetes/client-node throws for an API answer: its code and the Status as JSON text. */
const apiException = (code: number, message: string) => ({
  code,
  body: JSON.stringify({ kind: "Status", status: "Failure", message, code }),
});

describe("a ResourceQuota's refusal", () => {
  test("is global_capacity_reached with the quota's pod figures, or without figures for a quota on resources", () => {
    const pods = quotaRefusal(
      apiException(
        403,
        'pods "cairn-sandbox-1" is forbidden: exceeded quota: sandboxes, requested: pods=1, used: pods=3, limited: pods=3',
      ),
    );
    expect(pods?.toBody()).toEqual({
      code: "global_capacity_reached",
      message: "The deployment runs as many sandboxes as it can",
      retryable: true,
      remediation: "The deployment is at capacity; retry later.",
      details: { limit: 3, active: 3 },
    });
    const counted = quotaRefusal(
      apiException(
        403,
        'pods "p" is forbidden: exceeded quota: q, requested: count/pods=1,limits.memory=1Gi, used: count/pods=4,limits.memory=4Gi, limited: count/pods=9,limits.memory=4Gi',
      ),
    );
    expect(counted?.details).toEqual({ limit: 9, active: 4 });
    const memory = quotaRefusal(
      apiException(
        403,
        'pods "p" is forbidden: exceeded quota: q, requested: limits.memory=1Gi, used: limits.memory=4Gi, limited: limits.memory=4Gi',
      ),
    );
    expect([memory?.code, memory?.details]).toEqual(["global_capacity_reached", undefined]);
  });

  test("is nothing else's: an RBAC refusal, another status", () => {
    expect(
      quotaRefusal(apiException(403, 'pods is forbidden: User "u" cannot create resource "pods"')),
    ).toBeNull();
    expect(quotaRefusal(apiException(500, "exceeded quota: q"))).toBeNull();
  });
});

describe("a misconfiguration", () => {
  test("names the missing grant without the identity, and is not retryable", () => {
    const refused = misconfiguration(
      apiException(
        403,
        'networkpolicies.networking.k8s.io is forbidden: User "system:serviceaccount:cairn:cairn-server" cannot create resource "networkpolicies" in API group "networking.k8s.io" in the namespace "sandboxes"',
      ),
      "sandboxes",
    );
    const body = refused?.toBody();
    expect(body).toMatchObject({
      code: "sandbox_runtime_misconfigured",
      retryable: false,
      message:
        "The sandbox runtime's Kubernetes identity may not create networkpolicies.networking.k8s.io in namespace sandboxes",
    });
    expect(JSON.stringify(body)).not.toContain("serviceaccount");
  });

  test("covers an exec refused at its upgrade and a missing namespace, and nothing else", () => {
    expect(misconfiguration(new Error("Unexpected server response: 403"), "s")?.message).toBe(
      "The sandbox runtime's Kubernetes identity may not exec in pods of namespace s",
    );
    expect(misconfiguration(apiException(404, 'namespaces "s" not found'), "s")?.message).toBe(
      "The sandbox namespace s does not exist",
    );
    expect(misconfiguration(apiException(404, 'pods "p" not found'), "s")).toBeNull();
    expect(misconfiguration(apiException(403, "exceeded quota: q"), "s")).toBeNull();
    expect(misconfiguration(new Error("Unexpected server response: 500"), "s")).toBeNull();
  });
});
