/**
 * The bystander B of test/bench/noisy-neighbour.ts on a thread of its own: its latencies are the
 * server's, not the time the noisy clients' own JSON work (16 MiB bodies built and read in the
 * benchmark's process) held a shared event loop. Posts B's latencies back once the deadline passes.
 */
import { parentPort, workerData } from "node:worker_threads";
import { bystander } from "./noisy-clients.ts";

const { baseUrl, key, seconds } = workerData as { baseUrl: string; key: string; seconds: number };
parentPort?.postMessage(await bystander(baseUrl, key, performance.now() + seconds * 1000));
