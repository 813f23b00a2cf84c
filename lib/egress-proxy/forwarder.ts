/**
 * The forwarder that runs inside a jail with no network but loopback (an image build, a sandbox
 * granted hosts): it listens on 127.0.0.1:`port` and passes every connection to the egress
 * proxy's Unix socket, bound into the jail from outside. Node source for `node -e`, without
 * single quotes so a shell can quote it; `whenListening` is a statement run once it listens.
 */
export function forwarderSource(socketPath: string, port: number, whenListening: string): string {
  return `const net = require("net");
net.createServer((client) => {
  const upstream = net.connect(${JSON.stringify(socketPath)});
  client.pipe(upstream).pipe(client);
  upstream.on("error", () => client.destroy());
  client.on("error", () => upstream.destroy());
}).listen(${port}, "127.0.0.1", () => { ${whenListening} });`;
}
