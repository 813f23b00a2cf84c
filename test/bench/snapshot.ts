/**
 * Snapshot and restore time of a 1 GiB workspace on the local runtime (no HTTP): the runtime's
 * `snapshot` (fsfreeze, `cp --reflink=auto --sparse=always` of the disk image, thaw) and a create
 * from it (copy, preallocate, mount, hand the files to the new uid). Goal: under 2 s each. The
 * restored workspace is checked byte for byte (sha256). Run as root from the repository root:
 * `node test/bench/snapshot.ts [runs]` (data under /var/tmp, the data directory's file system).
 */
import { randomUUID } from "node:crypto";
import { mkdtemp, rm, statfs } from "node:fs/promises";
import { join } from "node:path";
import { createLocalSandboxRuntime } from "../../plugins/sandbox-local/index.ts";

const runs = Number(process.argv[2] ?? 3);
const dataDir = await mkdtemp(join("/var/tmp", "cairn-bench-snapshot-"));
const runtime = createLocalSandboxRuntime({ dataDir, spareDisk: false });
const spec = {
  accountId: randomUUID(),
  size: "medium" as const,
  storageGb: 2,
  egressHosts: [],
  volumeMounts: [],
};
const source = randomUUID();
const seconds = (started: number) => (performance.now() - started) / 1000;
try {
  await runtime.create({ id: source, ...spec });
  const fill = await runtime.exec(source, {
    // 1 GiB: one large file and 1,024 files of 64 KiB, as a checkout with build output might be.
    command:
      "head -c 1006632960 /dev/urandom > big.bin && mkdir -p many && for i in $(seq 1 1024); do head -c 65536 /dev/urandom > many/$i; done && sync && du -sh /workspace | cut -f1 && find . -type f -exec sha256sum {} + | sort | sha256sum",
    timeoutSeconds: 100,
  });
  if (fill.exitCode !== 0) throw new Error(`fill failed: ${fill.stderr}`);
  const [size, sum] = fill.stdout.trim().split("\n");
  const fileSystem = await statfs(dataDir);
  console.log(
    `workspace ${size}, data directory on f_type 0x${fileSystem.type.toString(16)} (ext4 0xef53, xfs 0x58465342, btrfs 0x9123683e)`,
  );
  const snapshotTimes: number[] = [];
  const restoreTimes: number[] = [];
  for (let run = 0; run < runs; run++) {
    const snapshotId = randomUUID();
    let started = performance.now();
    const taken = await runtime.snapshot?.(source, snapshotId);
    snapshotTimes.push(seconds(started));
    const copy = randomUUID();
    started = performance.now();
    await runtime.create({ id: copy, ...spec, fromSnapshot: { id: snapshotId, handle: null } });
    restoreTimes.push(seconds(started));
    const check = await runtime.exec(copy, {
      command: "find . -type f -exec sha256sum {} + | sort | sha256sum",
      timeoutSeconds: 100,
    });
    if (check.stdout.trim() !== sum) throw new Error("the restored workspace differs from the source");
    console.log(
      `run ${run + 1}: snapshot ${snapshotTimes.at(-1)?.toFixed(2)} s (${((taken?.sizeBytes ?? 0) / 1024 ** 3).toFixed(2)} GiB stored), restore ${restoreTimes.at(-1)?.toFixed(2)} s, sha256 equal`,
    );
    await runtime.destroy(copy);
    await runtime.deleteSnapshot?.(snapshotId, null);
  }
  const median = (values: number[]) =>
    [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)].toFixed(2);
  console.log(
    `1 GiB workspace: snapshot median ${median(snapshotTimes)} s, restore median ${median(restoreTimes)} s (${runs} runs; goal < 2 s each)`,
  );
} finally {
  await runtime.destroy(source).catch(() => {});
  await runtime.close();
  await rm(dataDir, { recursive: true, force: true });
}
