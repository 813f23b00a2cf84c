/**
 * The relays of this process (docs/sandboxes.md#previews): one relay process per sandbox
 * (relay.ts), started on first use and kept while it runs. A relay is a connection, not state:
 * each replica starts its own for the sandboxes it serves previews of.
 */
import { ServiceError } from "../../errors.ts";
import type { SandboxRuntime } from "../../ports/sandbox-runtime.ts";
import { connectRelay, type PortConnection, type Relay, relayCommand } from "./relay.ts";

export function createRelayPool() {
  const relays = new Map<string, Promise<Relay>>();

  const end = (sessionId: string) => {
    const relay = relays.get(sessionId);
    relays.delete(sessionId);
    void relay?.then((started) => started.close()).catch(() => {});
  };

  return {
    /** A connection to the port on the sandbox's own loopback, through its relay (started once). */
    async connect(runtime: SandboxRuntime, sessionId: string, port: number): Promise<PortConnection> {
      if (!runtime.spawnProcess) {
        throw new ServiceError("service_unavailable", "This sandbox runtime cannot serve previews");
      }
      const spawn = runtime.spawnProcess.bind(runtime);
      let relay = relays.get(sessionId);
      if (relay === undefined) {
        relay = spawn(sessionId, { command: relayCommand, kind: "command", env: {} }).then((process) => {
          const started = connectRelay(process);
          void started.ended.then(() => {
            if (relays.get(sessionId) === relay) relays.delete(sessionId);
          });
          return started;
        });
        relays.set(sessionId, relay);
        relay.catch(() => relays.delete(sessionId));
      }
      return (await relay).open(port);
    },
    /** Ends the sandbox's relay, if this process started one. */
    end,
    close(): void {
      for (const sessionId of [...relays.keys()]) end(sessionId);
    },
  };
}

export type RelayPool = ReturnType<typeof createRelayPool>;
