/**
 * Each port from the plugins that offer it (docs/plugins.md#ports): the built-in plugins, then the
 * SVC_PLUGINS ones, the last offer under the name in use winning, so a plugin replaces a built-in
 * by offering its name. The offers were checked when the plugins were (core/plugins/plugin-operations.ts).
 */
import { type Plugin, type PortName, type PortSetup, type Ports, portNamesInUse } from "../core/index.ts";

/** Creates the port under the name the configuration uses, from the last plugin offering it. */
export async function pickPort<Port extends PortName>(
  plugins: readonly Plugin[],
  port: Port,
  setup: PortSetup,
): Promise<Ports[Port]> {
  const name: string = portNamesInUse(setup.config)[port];
  const offer = (plugin: Plugin) =>
    (
      plugin.ports?.[port] as
        | Record<string, ((setup: PortSetup) => Promise<Ports[Port]>) | undefined>
        | undefined
    )?.[name];
  const offering = plugins.findLast((plugin) => offer(plugin) !== undefined);
  if (offering === undefined)
    throw new Error(
      `no plugin offers ${port} "${name}" (plugins: ${plugins.map((plugin) => plugin.name).join(", ")})`,
    );
  return (offer(offering) as (setup: PortSetup) => Promise<Ports[Port]>)(setup);
}
