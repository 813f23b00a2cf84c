/**
 * Entry of the egress proxy library: an allowlisting CONNECT and HTTP forward proxy outside
 * sandboxes, shared by the local sandbox runtime and the local image builder (docs/architecture.md).
 */
export { type EgressProxy, type EgressProxySettings, startEgressProxy } from "./create-egress-proxy.ts";
export { forwarderSource } from "./forwarder.ts";
