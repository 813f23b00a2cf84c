/** Entry of the egress proxy plugin: an allowlisting CONNECT and HTTP forward proxy outside sandboxes. */
export { type EgressProxy, type EgressProxySettings, startEgressProxy } from "./create-egress-proxy.ts";
export { forwarderSource } from "./forwarder.ts";
