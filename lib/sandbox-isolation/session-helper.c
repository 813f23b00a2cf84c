/*
 * cairn session helper: runs one command inside a sandbox session's long-lived namespaces.
 *
 * The server starts it as root for every exec (and every long-running session process). It reads
 * its settings and the command from descriptor 3 (never from argv, which the sandbox could read in
 * /proc/1/cmdline), then:
 *   1. joins the sandbox's cgroups (the exec's own pids cgroup included) and sets the rlimits;
 *   2. checks that the session's init is the process the server started (its start time), opens
 *      its namespaces, clears its supplementary groups and enters the session's outer user
 *      namespace as its root, which is the session's host uid and nothing else;
 *   3. joins the session's mount, network, IPC, UTS, cgroup and pid namespaces, and forks;
 *   4. the child makes a pid and a mount namespace of the exec's own (so no exec sees, signals,
 *      traces or reads the environment of another exec's processes or of the session's init) and
 *      forks the exec's pid 1, which mounts a fresh /proc (with /proc/sys read-only) and /dev/shm
 *      (and, for a session process that asks for it, one host directory read-only: a copy of its
 *      mount taken before the helper left the host's mount namespace, so no exec ever sees it),
 *      enters the session's inner user namespace (the sandbox user, uid 1000), drops every
 *      capability, sets no_new_privs, loads the seccomp filter and only then forks the command's
 *      shell. It reaps orphans and exits with the shell's status; the kernel then kills whatever
 *      the command left in the exec's pid namespace.
 * Exit status: the command's (128 + N for signal N); 125 with a "cairn-sandbox:" line on stderr
 * when the set-up failed ("cairn-sandbox: process limit reached" when the sandbox's processes
 * left no room for the exec's own).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/nsfs.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define SETUP_FAILED 125
/* After "cairn-sandbox: " on stderr; plugins/sandbox-local/exec.ts matches the same words (processLimitLine). */
#define PROCESS_LIMIT_REACHED "process limit reached"
#define MAX_INPUT (4 * 1024 * 1024)
#define MAX_LIST 64
/* Commands up to this size run as `sh -c COMMAND`; longer ones (the kernel limits one argument to
 * 128 KiB) are read by the shell from a memory file, as `sh -c` would run them. */
#define MAX_ARGUMENT (100 * 1024)

static void fail(const char *what) {
  dprintf(2, "cairn-sandbox: %s: %s\n", what, strerror(errno));
  _exit(SETUP_FAILED);
}

static void fail_plain(const char *what) {
  dprintf(2, "cairn-sandbox: %s\n", what);
  _exit(SETUP_FAILED);
}

struct settings {
  long init_pid;
  char *init_start;
  char *tasks[MAX_LIST];
  int task_count;
  struct {
    int resource;
    rlim_t value;
  } limits[MAX_LIST];
  int limit_count;
  char *seccomp_file;
  char *environment[MAX_LIST + 1];
  int environment_count;
  char *workdir;
  unsigned long shm_bytes;
  /* A session's bwrap: the session's host uid and gid. */
  long uid;
  /* A host directory bound read-only at a path inside this command's own mount namespace. */
  char *bind_source;
  char *bind_target;
  char *command;
  size_t command_length;
};

static char *read_all(int fd, size_t *length) {
  size_t capacity = 64 * 1024, used = 0;
  char *buffer = malloc(capacity + 1);
  if (buffer == NULL) fail("out of memory");
  for (;;) {
    if (used == capacity) {
      if (capacity >= MAX_INPUT) fail_plain("input too large");
      capacity *= 2;
      buffer = realloc(buffer, capacity + 1);
      if (buffer == NULL) fail("out of memory");
    }
    ssize_t count = read(fd, buffer + used, capacity - used);
    if (count < 0) {
      if (errno == EINTR) continue;
      fail("read settings");
    }
    if (count == 0) break;
    used += (size_t)count;
  }
  buffer[used] = '\0';
  *length = used;
  return buffer;
}

static int resource_named(const char *name) {
  if (strcmp(name, "fsize") == 0) return RLIMIT_FSIZE;
  if (strcmp(name, "cpu") == 0) return RLIMIT_CPU;
  if (strcmp(name, "nofile") == 0) return RLIMIT_NOFILE;
  if (strcmp(name, "core") == 0) return RLIMIT_CORE;
  if (strcmp(name, "nproc") == 0) return RLIMIT_NPROC;
  if (strcmp(name, "as") == 0) return RLIMIT_AS;
  fail_plain("unknown rlimit");
  return -1;
}

/* "key value" lines, an empty line, then the command up to the end of the input. */
static void parse(char *input, size_t length, struct settings *settings) {
  char *cursor = input, *end = input + length;
  for (;;) {
    char *newline = memchr(cursor, '\n', (size_t)(end - cursor));
    if (newline == NULL) fail_plain("settings end without an empty line");
    *newline = '\0';
    if (newline == cursor) {
      cursor = newline + 1;
      break;
    }
    char *value = strchr(cursor, ' ');
    if (value == NULL) fail_plain("bad settings line");
    *value++ = '\0';
    if (strcmp(cursor, "init-pid") == 0) settings->init_pid = strtol(value, NULL, 10);
    else if (strcmp(cursor, "init-start") == 0) settings->init_start = value;
    else if (strcmp(cursor, "tasks") == 0 && settings->task_count < MAX_LIST)
      settings->tasks[settings->task_count++] = value;
    else if (strcmp(cursor, "rlimit") == 0 && settings->limit_count < MAX_LIST) {
      char *number = strchr(value, ' ');
      if (number == NULL) fail_plain("bad rlimit");
      *number++ = '\0';
      settings->limits[settings->limit_count].resource = resource_named(value);
      settings->limits[settings->limit_count++].value = strtoull(number, NULL, 10);
    } else if (strcmp(cursor, "seccomp") == 0) settings->seccomp_file = value;
    else if (strcmp(cursor, "env") == 0 && settings->environment_count < MAX_LIST)
      settings->environment[settings->environment_count++] = value;
    else if (strcmp(cursor, "workdir") == 0) settings->workdir = value;
    else if (strcmp(cursor, "shm-bytes") == 0) settings->shm_bytes = strtoul(value, NULL, 10);
    else if (strcmp(cursor, "uid") == 0) settings->uid = strtol(value, NULL, 10);
    else if (strcmp(cursor, "bind-source") == 0) settings->bind_source = value;
    else if (strcmp(cursor, "bind-target") == 0) settings->bind_target = value;
    else fail_plain("unknown setting");
    cursor = newline + 1;
  }
  settings->command = cursor;
  settings->command_length = (size_t)(end - cursor);
}

/* Joins the cgroups and sets the rlimits of the settings, as root. */
static void apply_limits(struct settings *settings) {
  for (int index = 0; index < settings->task_count; index++) {
    /* "0" moves this thread itself: no global threadgroup lock, unlike a pid in cgroup.procs. */
    int fd = open(settings->tasks[index], O_WRONLY | O_CLOEXEC);
    if (fd < 0 || write(fd, "0", 1) != 1) fail("cannot join cgroup");
    close(fd);
  }
  for (int index = 0; index < settings->limit_count; index++) {
    struct rlimit limit = {settings->limits[index].value, settings->limits[index].value};
    if (setrlimit(settings->limits[index].resource, &limit) != 0) fail("cannot set resource limits");
  }
}

/* Field 22 of /proc/PID/stat: when the process started, which a recycled pid does not share. */
static void check_start_time(long pid, const char *expected) {
  char path[64], buffer[1024];
  snprintf(path, sizeof path, "/proc/%ld/stat", pid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail("session init is gone");
  ssize_t count = read(fd, buffer, sizeof buffer - 1);
  close(fd);
  if (count <= 0) fail_plain("session init is gone");
  buffer[count] = '\0';
  char *field = strrchr(buffer, ')');
  if (field == NULL) fail_plain("cannot read the session init's stat");
  /* After ") " come fields 3, 4, …: field 22 is the 20th of them. */
  field += 2;
  for (int index = 3; index < 22 && field != NULL; index++) {
    field = strchr(field, ' ');
    if (field != NULL) field++;
  }
  if (field == NULL) fail_plain("cannot read the session init's stat");
  size_t length = strcspn(field, " ");
  if (length != strlen(expected) || strncmp(field, expected, length) != 0)
    fail_plain("session init is gone");
}

static int open_namespace(long pid, const char *name) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%ld/ns/%s", pid, name);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  /* Only a dead (or dying) init has namespaces root cannot open. */
  if (fd < 0) fail("session init is gone");
  return fd;
}

/* A child that dies with its parent: PR_SET_PDEATHSIG, then a check that the parent (outside the
 * child's pid namespace, so getppid says 0) had not already gone: its end of `alive` is open. */
static void die_with_parent(int alive[2]) {
  close(alive[1]);
  if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) fail("PR_SET_PDEATHSIG");
  struct pollfd poll_fd = {.fd = alive[0], .events = POLLIN};
  if (poll(&poll_fd, 1, 0) != 0) _exit(SETUP_FAILED);
  close(alive[0]);
}

static int exit_code(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return SETUP_FAILED;
}

/* A fork the sandbox's own process limit refused (its pids cgroup, or RLIMIT_NPROC of its uid,
 * both held by the sandbox's other processes) says so on its own line: it is the caller's limit,
 * not a broken sandbox, and plugins/sandbox-local/exec.ts answers it as such. */
static pid_t fork_in_sandbox(void) {
  pid_t child = fork();
  if (child < 0 && errno == EAGAIN) fail_plain(PROCESS_LIMIT_REACHED);
  if (child < 0) fail("fork");
  return child;
}

static pid_t fork_dying_with_parent(void) {
  int alive[2];
  if (pipe2(alive, O_CLOEXEC) != 0) fail("pipe");
  pid_t child = fork_in_sandbox();
  if (child == 0) {
    die_with_parent(alive);
    return 0;
  }
  close(alive[0]);
  /* alive[1] stays open until this process exits. */
  return child;
}

static int wait_for(pid_t child) {
  int status;
  for (;;) {
    pid_t done = waitpid(child, &status, 0);
    if (done == child) return exit_code(status);
    if (done < 0 && errno != EINTR) return SETUP_FAILED;
  }
}

static void drop_capabilities(void) {
  for (int capability = 0; capability <= 63; capability++) {
    if (prctl(PR_CAPBSET_DROP, capability, 0, 0, 0) != 0 && errno != EINVAL) fail("drop capabilities");
  }
  if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0) fail("clear ambient capabilities");
  struct __user_cap_header_struct header = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
  struct __user_cap_data_struct data[2];
  memset(data, 0, sizeof data);
  if (syscall(SYS_capset, &header, data) != 0) fail("drop capabilities");
}

/* The exec's own /proc (only its processes), /proc/sys read-only over it, and its own /dev/shm. */
static void mount_exec_file_systems(unsigned long shm_bytes) {
  int file_system = fsopen("proc", FSOPEN_CLOEXEC);
  if (file_system < 0) fail("fsopen proc");
  if (fsconfig(file_system, FSCONFIG_CMD_CREATE, NULL, NULL, 0) != 0) fail("create proc");
  int proc = fsmount(file_system, FSMOUNT_CLOEXEC, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC);
  if (proc < 0) fail("fsmount proc");
  close(file_system);
  /* The session's /proc goes (it shows every exec's processes); the new one takes its place. */
  if (umount2("/proc", MNT_DETACH) != 0) fail("unmount the session's /proc");
  if (move_mount(proc, "", AT_FDCWD, "/proc", MOVE_MOUNT_F_EMPTY_PATH) != 0) fail("mount /proc");
  close(proc);
  if (mount("/proc/sys", "/proc/sys", NULL, MS_BIND | MS_REC, NULL) != 0) fail("bind /proc/sys");
  if (mount(NULL, "/proc/sys", NULL, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
            NULL) != 0)
    fail("make /proc/sys read-only");
  char options[64];
  snprintf(options, sizeof options, "size=%lu,mode=1777", shm_bytes);
  umount2("/dev/shm", MNT_DETACH);
  if (mount("tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, options) != 0) fail("mount /dev/shm");
}

static void load_seccomp(const char *filter, size_t length) {
  struct sock_fprog program = {.len = (unsigned short)(length / sizeof(struct sock_filter)),
                               .filter = (struct sock_filter *)filter};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) fail("no_new_privs");
  if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) != 0) fail("seccomp");
}

/* The shell of the command, pid 2 of the exec (so `kill $$` works: pid 1 ignores signals). */
static void run_shell(struct settings *settings, int command_file) {
  static char read_and_eval[] =
      "c=$(/bin/cat <&3; echo .) && eval \"exec 3<&-; unset c; ${c%.}\"";
  char *argv[4] = {"/bin/sh", "-c", NULL, NULL};
  if (command_file >= 0) {
    if (command_file == 3) fcntl(3, F_SETFD, 0);
    else if (dup2(command_file, 3) != 3) _exit(127);
    argv[2] = read_and_eval;
  } else {
    argv[2] = settings->command;
  }
  execve("/bin/sh", argv, settings->environment);
  dprintf(2, "cairn-sandbox: exec /bin/sh: %s\n", strerror(errno));
  _exit(127);
}

/* In serve mode, the serving process: each command dies with it. */
static pid_t server_pid = 0;

/* One command, from its settings to its exit status; stdin, stdout and stderr are already its own. */
static int run_command(char *input, size_t length) {
  struct settings settings;
  memset(&settings, 0, sizeof settings);
  parse(input, length, &settings);
  if (settings.init_pid <= 0 || settings.init_start == NULL || settings.seccomp_file == NULL ||
      settings.workdir == NULL)
    fail_plain("missing settings");
  /* Descriptors the server inherited without close-on-exec never reach the sandbox. */
  syscall(SYS_close_range, 3, ~0U, 0);
  apply_limits(&settings);
  size_t filter_length;
  int filter_fd = open(settings.seccomp_file, O_RDONLY | O_CLOEXEC);
  if (filter_fd < 0) fail("open the seccomp filter");
  char *filter = read_all(filter_fd, &filter_length);
  close(filter_fd);
  int bound_tree = -1;
  if ((settings.bind_source == NULL) != (settings.bind_target == NULL)) fail_plain("incomplete bind");
  if (settings.bind_source != NULL) {
    /* Taken here, in the host's mount namespace, as a detached copy made read-only; attached
     * below inside the command's own mount namespace only. */
    bound_tree = open_tree(AT_FDCWD, settings.bind_source, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE);
    if (bound_tree < 0) fail("open the tree to bind");
    struct mount_attr attributes = {
        .attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV,
    };
    if (mount_setattr(bound_tree, "", AT_EMPTY_PATH | AT_RECURSIVE, &attributes, sizeof attributes) != 0)
      fail("make the bound tree read-only");
  }

  const char *names[] = {"mnt", "net", "ipc", "uts", "cgroup", "pid"};
  const int types[] = {CLONE_NEWNS, CLONE_NEWNET, CLONE_NEWIPC, CLONE_NEWUTS, CLONE_NEWCGROUP, CLONE_NEWPID};
  int namespaces[6];
  /* Checked before (for a clear message) and after the namespaces are opened (a pid recycled in
   * between would show another start time). */
  check_start_time(settings.init_pid, settings.init_start);
  int inner_user = open_namespace(settings.init_pid, "user");
  for (int index = 0; index < 6; index++) namespaces[index] = open_namespace(settings.init_pid, names[index]);
  check_start_time(settings.init_pid, settings.init_start);
  int outer_user = ioctl(inner_user, NS_GET_PARENT);
  if (outer_user < 0) fail("find the session's outer user namespace");

  if (setgroups(0, NULL) != 0) fail("clear groups");
  if (setns(outer_user, CLONE_NEWUSER) != 0) fail("enter the session's user namespace");
  /* Root of the outer namespace is the session's host uid (bwrap mapped it so). */
  if (setresgid(0, 0, 0) != 0 || setresuid(0, 0, 0) != 0) fail("switch to the session's uid");
  /* After the uid change, which clears it. */
  if (server_pid > 0 && (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != server_pid))
    fail_plain("the session helper is gone");
  for (int index = 0; index < 6; index++) {
    if (setns(namespaces[index], types[index]) != 0) fail("enter a session namespace");
    close(namespaces[index]);
  }
  close(outer_user);

  pid_t outer_child = fork_dying_with_parent();
  if (outer_child > 0) return wait_for(outer_child);

  /* In the session's pid namespace: the exec's own pid and mount namespaces. */
  if (unshare(CLONE_NEWNS | CLONE_NEWPID) != 0) fail("unshare");
  if (mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL) != 0) fail("make mounts private");
  pid_t exec_init = fork_dying_with_parent();
  if (exec_init > 0) return wait_for(exec_init);

  /* Pid 1 of the exec. */
  mount_exec_file_systems(settings.shm_bytes);
  if (bound_tree >= 0) {
    if (move_mount(bound_tree, "", AT_FDCWD, settings.bind_target, MOVE_MOUNT_F_EMPTY_PATH) != 0)
      fail("bind the read-only tree");
    close(bound_tree);
  }
  if (setns(inner_user, CLONE_NEWUSER) != 0) fail("enter the sandbox user namespace");
  close(inner_user);
  if (chdir(settings.workdir) != 0) fail("chdir");
  int command_file = -1;
  if (settings.command_length > MAX_ARGUMENT || strlen(settings.command) != settings.command_length) {
    command_file = memfd_create("command", MFD_CLOEXEC);
    if (command_file < 0) fail("memfd_create");
    size_t written = 0;
    while (written < settings.command_length) {
      ssize_t count = write(command_file, settings.command + written, settings.command_length - written);
      if (count < 0) fail("write the command");
      written += (size_t)count;
    }
    if (lseek(command_file, 0, SEEK_SET) != 0) fail("lseek");
  }
  drop_capabilities();
  load_seccomp(filter, filter_length);

  pid_t shell = fork_in_sandbox();
  if (shell == 0) run_shell(&settings, command_file);
  if (command_file >= 0) close(command_file);
  for (;;) {
    int status;
    pid_t done = waitpid(-1, &status, 0);
    if (done == shell) _exit(exit_code(status));
    if (done < 0 && errno == ECHILD) _exit(SETUP_FAILED);
  }
}

/*
 * Serve mode: one helper per runtime, started once, that forks what the server would otherwise
 * start itself (starting a process from the server forks the whole server). Requests on stdin:
 * u32 length, u32 id, u8 kind, then `length` bytes:
 *   COMMAND: settings and command as above, run as an exec;
 *   SESSION: a session's bwrap: settings (tasks, rlimit, seccomp, uid), an empty line, then its
 *            NUL-terminated arguments. Its stdin is a pipe this helper never writes to (it ends
 *            with this helper) and descriptor 3 a pipe like stdout. It joins the sandbox's cgroups, sets the rlimits, opens the seccomp
 *            filter on descriptor 9, clears its groups, switches to the session's uid and gid
 *            and sets no_new_privs before it executes bwrap.
 *   HOST:    a host tool the runtime runs as root (mount, mkfs): its NUL-terminated arguments,
 *            the program's absolute path first; stdin /dev/null, a PATH and nothing else.
 * Events on stdout: u32 length, u32 id, u8 type, then `length` bytes: STARTED (u32 pid of the
 * process group leader), STDOUT, STDERR and EXTRA (descriptor 3) data, EXITED (i32 wait status,
 * once reaped and every pipe drained) or FAILED (a message). When stdin ends (the server is gone),
 * every process group it started is killed and it exits.
 */
enum { KIND_COMMAND = 1, KIND_SESSION = 3, KIND_HOST = 4 };
enum {
  EVENT_STARTED = 1,
  EVENT_STDOUT = 2,
  EVENT_STDERR = 3,
  EVENT_EXITED = 4,
  EVENT_FAILED = 5,
  EVENT_EXTRA = 6,
};

struct job {
  int used;
  uint32_t id;
  pid_t pid;
  int pipes[3];
  int exited;
  int status;
};

static const uint8_t pipe_events[3] = {EVENT_STDOUT, EVENT_STDERR, EVENT_EXTRA};

#define MAX_JOBS 4096
static struct job jobs[MAX_JOBS];
/* Every program's stdin: never written, so it reads end of file once this helper is gone. */
static int keepalive[2];

static void write_all(int fd, const void *data, size_t length) {
  const char *cursor = data;
  while (length > 0) {
    ssize_t count = write(fd, cursor, length);
    if (count < 0) {
      if (errno == EINTR) continue;
      /* The server is gone. */
      _exit(1);
    }
    cursor += count;
    length -= (size_t)count;
  }
}

static void send_event(uint32_t id, uint8_t type, const void *payload, uint32_t length) {
  static char frame[9 + 65536];
  memcpy(frame, &length, 4);
  memcpy(frame + 4, &id, 4);
  frame[8] = (char)type;
  memcpy(frame + 9, payload, length);
  write_all(1, frame, 9 + (size_t)length);
}

static void send_failure(uint32_t id, const char *message) {
  send_event(id, EVENT_FAILED, message, (uint32_t)strlen(message));
}

static void run_program(char *data, size_t length) {
  char *argv[256];
  int count = 0;
  for (size_t offset = 0; offset < length && count < 255;) {
    argv[count++] = data + offset;
    offset += strlen(data + offset) + 1;
  }
  argv[count] = NULL;
  if (count == 0) _exit(SETUP_FAILED);
  char *environment[] = {"PATH=/usr/sbin:/usr/bin:/sbin:/bin", NULL};
  execve(argv[0], argv, environment);
  dprintf(2, "cairn-sandbox: exec %s: %s\n", argv[0], strerror(errno));
  _exit(SETUP_FAILED);
}

static void start_session(char *data, size_t length) {
  struct settings settings;
  memset(&settings, 0, sizeof settings);
  parse(data, length, &settings);
  if (settings.seccomp_file == NULL || settings.uid <= 0) fail_plain("missing settings");
  syscall(SYS_close_range, 4, ~0U, 0);
  apply_limits(&settings);
  int filter = open(settings.seccomp_file, O_RDONLY);
  if (filter < 0) fail("open the seccomp filter");
  if (filter != 9) {
    if (dup2(filter, 9) != 9) fail("dup2");
    close(filter);
  }
  if (setgroups(0, NULL) != 0) fail("clear groups");
  if (setresgid((gid_t)settings.uid, (gid_t)settings.uid, (gid_t)settings.uid) != 0 ||
      setresuid((uid_t)settings.uid, (uid_t)settings.uid, (uid_t)settings.uid) != 0)
    fail("switch to the session's uid");
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) fail("no_new_privs");
  /* After the uid change, which clears it. */
  if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != server_pid) _exit(SETUP_FAILED);
  /* Set-up in the background of the create that asked for it: requests come first. Only bwrap
   * and the idle init run at this priority; execs are forked from this helper at its own. */
  setpriority(PRIO_PROCESS, 0, 10);
  run_program(settings.command, settings.command_length);
}

static void start_job(uint32_t id, uint8_t kind, char *data, size_t length, const sigset_t *original_mask) {
  struct job *job = NULL;
  for (int index = 0; index < MAX_JOBS; index++) {
    if (!jobs[index].used) {
      job = &jobs[index];
      break;
    }
  }
  if (job == NULL) return send_failure(id, "cairn-sandbox: too many commands");
  int pipes[3][2];
  int wanted = kind == KIND_SESSION ? 3 : 2;
  for (int index = 0; index < wanted; index++) {
    if (pipe2(pipes[index], O_CLOEXEC) != 0) {
      for (int opened = 0; opened < index; opened++) {
        close(pipes[opened][0]);
        close(pipes[opened][1]);
      }
      return send_failure(id, "cairn-sandbox: pipe");
    }
  }
  pid_t pid = fork();
  if (pid == 0) {
    sigprocmask(SIG_SETMASK, original_mask, NULL);
    server_pid = getppid();
    /* Its own session and process group: what a timeout kills. */
    setsid();
    int input = kind == KIND_SESSION ? keepalive[0] : open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (input < 0 || dup2(input, 0) != 0) _exit(SETUP_FAILED);
    for (int index = 0; index < wanted; index++) {
      if (dup2(pipes[index][1], index + 1) != index + 1) _exit(SETUP_FAILED);
    }
    if (kind == KIND_SESSION) start_session(data, length);
    if (kind == KIND_HOST) run_program(data, length);
    _exit(run_command(data, length));
  }
  for (int index = 0; index < wanted; index++) close(pipes[index][1]);
  if (pid < 0) {
    for (int index = 0; index < wanted; index++) close(pipes[index][0]);
    return send_failure(id, "cairn-sandbox: fork failed");
  }
  *job = (struct job){.used = 1, .id = id, .pid = pid, .pipes = {-1, -1, -1}};
  for (int index = 0; index < wanted; index++) {
    fcntl(pipes[index][0], F_SETFL, O_NONBLOCK);
    job->pipes[index] = pipes[index][0];
  }
  uint32_t started = (uint32_t)pid;
  send_event(id, EVENT_STARTED, &started, 4);
}

static void drain(struct job *job, int which) {
  static char buffer[65536];
  for (;;) {
    ssize_t count = read(job->pipes[which], buffer, sizeof buffer);
    if (count > 0) {
      send_event(job->id, pipe_events[which], buffer, (uint32_t)count);
      continue;
    }
    if (count < 0 && (errno == EAGAIN || errno == EINTR)) return;
    close(job->pipes[which]);
    job->pipes[which] = -1;
    return;
  }
}

static int serve(void) {
  sigset_t blocked, original_mask;
  sigemptyset(&blocked);
  sigaddset(&blocked, SIGCHLD);
  sigprocmask(SIG_BLOCK, &blocked, &original_mask);
  int children = signalfd(-1, &blocked, SFD_CLOEXEC | SFD_NONBLOCK);
  if (children < 0) fail("signalfd");
  if (pipe2(keepalive, O_CLOEXEC) != 0) fail("pipe");
  fcntl(0, F_SETFL, O_NONBLOCK);
  size_t capacity = 1 << 20, used = 0;
  char *input = malloc(capacity);
  if (input == NULL) fail("out of memory");
  static struct pollfd fds[2 + 3 * MAX_JOBS];
  static struct job *owners[2 + 3 * MAX_JOBS];
  static int which[2 + 3 * MAX_JOBS];
  int input_open = 1;
  for (;;) {
    int count = 0;
    int input_slot = -1;
    if (input_open) {
      input_slot = count;
      fds[count++] = (struct pollfd){.fd = 0, .events = POLLIN};
    }
    int children_slot = count;
    fds[count++] = (struct pollfd){.fd = children, .events = POLLIN};
    int first_job_slot = count;
    for (int index = 0; index < MAX_JOBS; index++) {
      struct job *job = &jobs[index];
      if (!job->used) continue;
      for (int pipe_index = 0; pipe_index < 3; pipe_index++) {
        if (job->pipes[pipe_index] < 0) continue;
        owners[count] = job;
        which[count] = pipe_index;
        fds[count++] = (struct pollfd){.fd = job->pipes[pipe_index], .events = POLLIN};
      }
    }
    if (poll(fds, (nfds_t)count, -1) < 0) {
      if (errno == EINTR) continue;
      fail("poll");
    }
    for (int slot = first_job_slot; slot < count; slot++) {
      if (fds[slot].revents != 0 && owners[slot]->pipes[which[slot]] == fds[slot].fd) drain(owners[slot], which[slot]);
    }
    if (fds[children_slot].revents != 0) {
      struct signalfd_siginfo information;
      while (read(children, &information, sizeof information) > 0) {
      }
      for (;;) {
        int status;
        pid_t pid = waitpid(-1, &status, WNOHANG);
        if (pid <= 0) break;
        for (int index = 0; index < MAX_JOBS; index++) {
          if (jobs[index].used && jobs[index].pid == pid) {
            jobs[index].exited = 1;
            jobs[index].status = status;
          }
        }
      }
    }
    if (input_slot >= 0 && fds[input_slot].revents != 0) {
      for (;;) {
        if (used == capacity) {
          capacity *= 2;
          input = realloc(input, capacity);
          if (input == NULL) fail("out of memory");
        }
        ssize_t got = read(0, input + used, capacity - used);
        if (got > 0) {
          used += (size_t)got;
          continue;
        }
        if (got < 0 && (errno == EAGAIN || errno == EINTR)) break;
        input_open = 0;
        break;
      }
      size_t offset = 0;
      while (used - offset >= 9) {
        uint32_t length, id;
        memcpy(&length, input + offset, 4);
        memcpy(&id, input + offset + 4, 4);
        uint8_t kind = (uint8_t)input[offset + 8];
        if (used - offset - 9 < length) break;
        start_job(id, kind, input + offset + 9, length, &original_mask);
        offset += 9 + (size_t)length;
      }
      memmove(input, input + offset, used - offset);
      used -= offset;
      if (!input_open) {
        for (int index = 0; index < MAX_JOBS; index++) {
          if (jobs[index].used && !jobs[index].exited) kill(-jobs[index].pid, SIGKILL);
        }
        return 0;
      }
    }
    for (int index = 0; index < MAX_JOBS; index++) {
      struct job *job = &jobs[index];
      if (job->used && job->exited && job->pipes[0] < 0 && job->pipes[1] < 0 && job->pipes[2] < 0) {
        int32_t status = job->status;
        send_event(job->id, EVENT_EXITED, &status, 4);
        job->used = 0;
      }
    }
  }
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "serve") == 0) return serve();
  size_t length;
  char *input = read_all(3, &length);
  close(3);
  return run_command(input, length);
}
