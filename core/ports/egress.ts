/**
 * Outbound HTTP for the sandbox HTTP broker: the request leaves from the server, never from the
 * sandbox, so secrets never enter it. Implementations refuse private, loopback, link-local and
 * metadata addresses at connect time (no DNS-rebinding window) unless `allowPrivate` is set.
 */
export interface EgressRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string | null;
  timeoutSeconds: number;
  maxResponseBytes: number;
  allowPrivate: boolean;
  signal?: AbortSignal;
}

export interface EgressResponse {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
  truncated: boolean;
}

export interface Egress {
  /** The addresses a host name resolves to; empty when it does not resolve. */
  resolve(host: string): Promise<string[]>;
  request(request: EgressRequest): Promise<EgressResponse>;
}
