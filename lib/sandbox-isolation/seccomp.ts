/**
 * The seccomp filter every sandbox process runs under: a classic BPF program, assembled here so
 * the runtime needs no libseccomp, that bwrap loads (`--seccomp FD`) just before it execs the
 * sandbox's shell. It denies, with EPERM, the system calls a sandbox has no business making and
 * that widen the kernel surface it can reach: Docker's default profile is the reference (mount
 * and the new mount API, namespaces, keyrings, BPF, perf, kexec and modules, userfaultfd,
 * io_uring, clock and swap changes, …). clone3 answers ENOSYS, so libc falls back to clone,
 * whose flags a filter can read: clone with any CLONE_NEW* flag is EPERM. socket and socketpair
 * take only the families a program here needs (Unix, IPv4, IPv6, netlink): vsock, which ignores
 * network namespaces and reaches the hypervisor, and the rarely used families that widen the
 * kernel surface, are EPERM. personality takes only the values Docker's profile allows (no
 * switching off address randomisation). Other architectures' calls (32-bit x86, x32) are refused
 * whole: the numbers below mean nothing there.
 */

/** Denied system calls with their numbers on x86_64 and on aarch64 (the asm-generic table). */
export const deniedSystemCalls: Record<string, { x64?: number; arm64?: number }> = {
  acct: { x64: 163, arm64: 89 },
  add_key: { x64: 248, arm64: 217 },
  bpf: { x64: 321, arm64: 280 },
  clock_adjtime: { x64: 305, arm64: 266 },
  clock_settime: { x64: 227, arm64: 112 },
  create_module: { x64: 174 },
  delete_module: { x64: 176, arm64: 106 },
  fanotify_init: { x64: 300, arm64: 262 },
  finit_module: { x64: 313, arm64: 273 },
  fsconfig: { x64: 431, arm64: 431 },
  fsmount: { x64: 432, arm64: 432 },
  fsopen: { x64: 430, arm64: 430 },
  fspick: { x64: 433, arm64: 433 },
  get_kernel_syms: { x64: 177 },
  get_mempolicy: { x64: 239, arm64: 236 },
  init_module: { x64: 175, arm64: 105 },
  io_uring_enter: { x64: 426, arm64: 426 },
  io_uring_register: { x64: 427, arm64: 427 },
  io_uring_setup: { x64: 425, arm64: 425 },
  ioperm: { x64: 173 },
  iopl: { x64: 172 },
  kcmp: { x64: 312, arm64: 272 },
  kexec_file_load: { x64: 320, arm64: 294 },
  kexec_load: { x64: 246, arm64: 104 },
  keyctl: { x64: 250, arm64: 219 },
  lookup_dcookie: { x64: 212, arm64: 18 },
  modify_ldt: { x64: 154 },
  mbind: { x64: 237, arm64: 235 },
  mount: { x64: 165, arm64: 40 },
  mount_setattr: { x64: 442, arm64: 442 },
  move_mount: { x64: 429, arm64: 429 },
  move_pages: { x64: 279, arm64: 239 },
  name_to_handle_at: { x64: 303, arm64: 264 },
  nfsservctl: { x64: 180, arm64: 42 },
  open_by_handle_at: { x64: 304, arm64: 265 },
  open_tree: { x64: 428, arm64: 428 },
  perf_event_open: { x64: 298, arm64: 241 },
  pivot_root: { x64: 155, arm64: 41 },
  process_vm_readv: { x64: 310, arm64: 270 },
  process_vm_writev: { x64: 311, arm64: 271 },
  query_module: { x64: 178 },
  quotactl: { x64: 179, arm64: 60 },
  quotactl_fd: { x64: 443, arm64: 443 },
  reboot: { x64: 169, arm64: 142 },
  request_key: { x64: 249, arm64: 218 },
  set_mempolicy: { x64: 238, arm64: 237 },
  set_mempolicy_home_node: { x64: 450, arm64: 450 },
  setns: { x64: 308, arm64: 268 },
  settimeofday: { x64: 164, arm64: 170 },
  swapoff: { x64: 168, arm64: 225 },
  swapon: { x64: 167, arm64: 224 },
  syslog: { x64: 103, arm64: 116 },
  sysfs: { x64: 139 },
  _sysctl: { x64: 156 },
  umount2: { x64: 166, arm64: 39 },
  unshare: { x64: 272, arm64: 97 },
  uselib: { x64: 134 },
  userfaultfd: { x64: 323, arm64: 282 },
  ustat: { x64: 136 },
  vhangup: { x64: 153, arm64: 58 },
};

const cloneNumbers = { x64: 56, arm64: 220 };
const socketNumbers = { x64: 41, arm64: 198 };
const socketpairNumbers = { x64: 53, arm64: 199 };
const personalityNumbers = { x64: 135, arm64: 92 };
/** AF_UNIX, AF_INET, AF_INET6, AF_NETLINK: the socket families a sandbox may open. */
export const allowedSocketFamilies = [1, 2, 10, 16];
/** Query (0xffffffff), PER_LINUX, PER_LINUX32, UNAME26 and both: Docker's default profile's list. */
export const allowedPersonalities = [0x0, 0x8, 0x20000, 0x20008, 0xffffffff];
const clone3Numbers = { x64: 435, arm64: 435 };
const auditArchitectures = { x64: 0xc000003e, arm64: 0xc00000b7 };
export type FilterArchitecture = keyof typeof auditArchitectures;

/** CLONE_NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET | NEWTIME. */
const newNamespaceFlags =
  0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000 | 0x80;
const x32SystemCallBit = 0x40000000;

const errnoEPERM = 1;
const errnoENOSYS = 38;
const returnAllow = 0x7fff0000;
const returnErrno = (errno: number) => 0x00050000 | errno;

// struct seccomp_data: int nr; u32 arch; u64 instruction_pointer; u64 args[6] (little-endian).
const offsetNumber = 0;
const offsetArchitecture = 4;
const offsetFirstArgumentLow = 16;

// Classic BPF opcodes.
const loadWordAbsolute = 0x20;
const jumpIfEqual = 0x15;
const jumpIfGreaterOrEqual = 0x35;
const jumpIfAnyBitSet = 0x45;
const returnConstant = 0x06;

type Instruction =
  | { op: "load"; offset: number; label?: string }
  | { op: "jump"; code: number; value: number; ifTrue: string; ifFalse?: string }
  | { op: "return"; value: number; label?: string };

export function seccompArchitecture(arch: string = process.arch): FilterArchitecture {
  if (arch === "x64" || arch === "arm64") return arch;
  throw new Error(`no seccomp filter for the ${arch} architecture (x64 and arm64 are supported)`);
}

/** The filter as bwrap reads it: `struct sock_filter` records of 8 bytes, native (little) endian. */
export function buildSeccompFilter(arch: FilterArchitecture = seccompArchitecture()): Buffer {
  const program: Instruction[] = [
    { op: "load", offset: offsetArchitecture },
    { op: "jump", code: jumpIfEqual, value: auditArchitectures[arch], ifTrue: "next", ifFalse: "deny" },
    { op: "load", offset: offsetNumber },
  ];
  if (arch === "x64") {
    program.push({ op: "jump", code: jumpIfGreaterOrEqual, value: x32SystemCallBit, ifTrue: "deny" });
  }
  for (const numbers of Object.values(deniedSystemCalls)) {
    const number = numbers[arch];
    if (number !== undefined) program.push({ op: "jump", code: jumpIfEqual, value: number, ifTrue: "deny" });
  }
  // The first argument (its low 32 bits: the kernel reads an int) against the values allowed.
  const onlyValues = (label: string, values: number[]): Instruction[] => [
    { op: "load", offset: offsetFirstArgumentLow, label },
    ...values.map((value): Instruction => ({ op: "jump", code: jumpIfEqual, value, ifTrue: "allow" })),
    { op: "jump", code: jumpIfEqual, value: 0, ifTrue: "deny", ifFalse: "deny" },
  ];
  program.push(
    { op: "jump", code: jumpIfEqual, value: clone3Numbers[arch], ifTrue: "nosys" },
    { op: "jump", code: jumpIfEqual, value: cloneNumbers[arch], ifTrue: "clone" },
    { op: "jump", code: jumpIfEqual, value: socketNumbers[arch], ifTrue: "family" },
    { op: "jump", code: jumpIfEqual, value: socketpairNumbers[arch], ifTrue: "family" },
    { op: "jump", code: jumpIfEqual, value: personalityNumbers[arch], ifTrue: "personality" },
    { op: "return", value: returnAllow },
    { op: "return", value: returnErrno(errnoENOSYS), label: "nosys" },
    { op: "load", offset: offsetFirstArgumentLow, label: "clone" },
    { op: "jump", code: jumpIfAnyBitSet, value: newNamespaceFlags, ifTrue: "deny" },
    { op: "return", value: returnAllow },
    ...onlyValues("family", allowedSocketFamilies),
    ...onlyValues("personality", allowedPersonalities),
    { op: "return", value: returnAllow, label: "allow" },
    { op: "return", value: returnErrno(errnoEPERM), label: "deny" },
  );
  const labels = new Map<string, number>();
  program.forEach((instruction, index) => {
    if (instruction.op !== "jump" && instruction.label) labels.set(instruction.label, index);
  });

  const buffer = Buffer.alloc(program.length * 8);
  program.forEach((instruction, index) => {
    const at = index * 8;
    const offsetTo = (label: string | undefined) => {
      if (label === undefined || label === "next") return 0;
      const target = labels.get(label);
      if (target === undefined || target <= index || target - index - 1 > 255) {
        throw new Error(`seccomp: bad jump to ${label}`);
      }
      return target - index - 1;
    };
    if (instruction.op === "load") {
      buffer.writeUInt16LE(loadWordAbsolute, at);
      buffer.writeUInt32LE(instruction.offset, at + 4);
    } else if (instruction.op === "jump") {
      buffer.writeUInt16LE(instruction.code, at);
      buffer.writeUInt8(offsetTo(instruction.ifTrue), at + 2);
      buffer.writeUInt8(offsetTo(instruction.ifFalse), at + 3);
      buffer.writeUInt32LE(instruction.value >>> 0, at + 4);
    } else {
      buffer.writeUInt16LE(returnConstant, at);
      buffer.writeUInt32LE(instruction.value >>> 0, at + 4);
    }
  });
  return buffer;
}
