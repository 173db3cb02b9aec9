/*
 * prutor-box: the only privileged piece of the engine.
 *
 * Installed root-owned, setuid, mode 4750, group www-data (only the engine may run it).
 * It takes nothing but an argv, validates it strictly, and runs one command as the
 * slot's dedicated non-root user in namespaces of its own (made directly where root may,
 * else by bubblewrap in a user namespace: the same view either way), or, in "plain" mode,
 * with uid + rlimits + seccomp only, under a wall-clock kill, with capped stdout/stderr; then it
 * kills whatever the slot user left behind. It prints one JSON status line on fd 3.
 *
 * usage:
 *   prutor-box probe WORKDIR
 *   prutor-box compile|run WORKDIR CPU_MS WALL_MS MEMORY_KB FSIZE_KB NPROC NOFILE OUTPUT_BYTES ns|plain - -- CMD [ARG...]
 *   prutor-box compile-run WORKDIR <the compile's 7 limits> ns - -- COMPILE_CMD... -- <the run's 7 limits> RUN_CMD...
 *
 *   prutor-box clean WORKDIR
 *
 * WORKDIR must be exactly <box_root>/<slot> for a "box" line of /etc/prutor/sandbox.conf
 * ("box <root> <first_slot> <count> [bwrap]") with first_slot <= slot < first_slot+count; the
 * slot's user is prutor-box<slot>. stdin is passed through (the engine opens it);
 * stdout and stderr are capped at OUTPUT_BYTES each. "plain" is refused unless the
 * config has the line "allow_plain 1" (an admin's explicit opt-in).
 *
 * Nothing of one request reaches the next: the compile step sees the slot's dir (the
 * engine puts the source there) and leaves only the regular file "prog"; the run step
 * sees a fresh size-capped tmpfs at /box holding read-only copies (binds) of the files
 * the engine put in the slot (the binary and support files, never a source); after
 * every step all of the slot user's processes are killed and the slot dir is emptied
 * (compile: all but "prog"); in plain mode the slot user's files in /tmp, /var/tmp and
 * /dev/shm and its System V IPC objects are removed too.
 *
 * compile-run (only in the launcher's own namespaces, with cgroups; else it answers
 * {"status":"unsupported"} before anything runs): the compile step, then, if it succeeded,
 * the run of its binary in the same launch, as a run step would get it (a fresh /box
 * holding only the binary, fresh /tmp and /dev/shm, the slot unreachable), with the run's
 * own limits and figures; the compiler writes to fd 4 and reads nothing. The status line
 * is the run's ("not_run" if the compile failed) with the compile's under "compile".
 *
 * Limits hold for the whole step: with cgroups (v2, a delegated subtree, or v1: memory,
 * pids, cpuacct; see cgroup_detect) memory, processes and total CPU are per step; without
 * them NPROC is lowered so that NPROC x MEMORY_KB stays within the slot's share of the
 * host's memory. The status line's "cgroups" says which ("v2", "v1", "none").
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <linux/capability.h>
#include <sys/sem.h>
#include <sys/sysmacros.h>
#include <sys/shm.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <linux/magic.h>
#include <linux/sched.h>
#include <time.h>
#include <unistd.h>

#include "confine.h"

#define CONF_PATH "/etc/prutor/sandbox.conf"
#define BWRAP "/usr/bin/bwrap"
/* the inner launcher sits beside this one (install.sh passes its directory at build time) */
#ifndef INNER
#define INNER "/usr/local/lib/prutor/prutor-run"
#endif
/* a step's command and, for compile-run, the run's: a JVM's compile and run lines are about 20 each */
#define MAX_ARGS 128
/* files the engine may place in a slot for the run step (binary + support files) */
#define MAX_RUN_FILES 32

static int status_fd = 2;

static void die(const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    dprintf(status_fd, "{\"status\":\"setup_error\",\"message\":\"%s\"}\n", msg);
    exit(2);
}

/* compile-run cannot be done here (no namespaces or cgroups of the launcher's own): the
   engine compiles and runs in two steps instead; nothing has run yet */
static void unsupported(const char *why)
{
    dprintf(status_fd, "{\"status\":\"unsupported\",\"message\":\"");
    for (const char *c = why; *c; c++) dprintf(status_fd, "%c", *c == '"' || *c == '\\' || (unsigned char)*c < 0x20 ? '\'' : *c);
    dprintf(status_fd, "\"}\n");
    exit(0);
}

static long parse_num(const char *s, long min, long max, const char *what)
{
    if (!s || !*s || strlen(s) > 12) die("bad %s", what);
    for (const char *p = s; *p; p++) if (!isdigit((unsigned char)*p)) die("bad %s", what);
    long v = strtol(s, NULL, 10);
    if (v < min || v > max) die("%s out of range", what);
    return v;
}

static long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static long read_long(const char *path, const char *key);
static char cg2_root[200];     /* v2: the delegated subtree (config line "cgroup2 <dir>") */
static int allow_plain;  /* "allow_plain 1" in the config */
/* "netns <path>": a persistent network namespace with nothing but a downed loopback,
   made once by setup-box.sh. Every sandbox joins it instead of creating and destroying
   a namespace per step (the kernel serialises that, at several ms a launch); with
   socket() refused by seccomp, a shared empty namespace isolates as a new one does. */
static char netns_path[PATH_MAX];
static long box_slots;   /* slots of the box line that matched: the host's memory is shared by them */
static int box_bwrap;    /* "bwrap" after the box line's count: always bubblewrap, never direct namespaces */
static int pin_cpus = 1; /* "pin_cpus 0": sandboxes float over the CPUs instead of each taking one */

/* Find the box line whose root/slot equals workdir; returns the slot number. */
static int resolve_slot(const char *workdir, char *root_out, size_t root_len)
{
    struct stat st;
    int fd = open(CONF_PATH, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) die("no sandbox config");
    if (fstat(fd, &st) || st.st_uid != 0 || (st.st_mode & 022)) die("sandbox config not root-owned");
    FILE *f = fdopen(fd, "r");
    char line[1024];
    int slot_found = -1;
    while (fgets(line, sizeof line, f)) {
        char root[PATH_MAX], how[16] = "";
        long first, count, flag;
        if (sscanf(line, "allow_plain %ld", &flag) == 1) { allow_plain = flag == 1; continue; }
        if (sscanf(line, "netns %4095s", netns_path) == 1) continue;
        if (sscanf(line, "pin_cpus %ld", &flag) == 1) { pin_cpus = flag != 0; continue; }
        if (sscanf(line, "cgroup2 %199s", cg2_root) == 1) continue;
        if (slot_found >= 0) continue;
        if (sscanf(line, "box %4095s %ld %ld %15s", root, &first, &count, how) < 3) continue;
        size_t n = strlen(root);
        if (root[0] != '/' || strncmp(workdir, root, n) != 0 || workdir[n] != '/') continue;
        const char *s = workdir + n + 1;
        long slot = parse_num(s, 0, 9999, "slot");
        if (slot < first || slot >= first + count) die("slot out of range");
        snprintf(root_out, root_len, "%s", root);
        box_slots = count;
        box_bwrap = strcmp(how, "bwrap") == 0;
        slot_found = (int)slot;
    }
    fclose(f);
    if (slot_found < 0) die("work dir is not a sandbox slot");
    return slot_found;
}

/* Removes name (a file, or a directory with everything under it) inside dirfd, never
   following a symlink. Called only once the slot user has no process left, so nothing
   can swap a directory for a link underneath. */
static void remove_at(int dirfd, const char *name, int depth)
{
    if (unlinkat(dirfd, name, 0) == 0 || errno == ENOENT || depth > 64) return;
    int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return;
    DIR *d = fdopendir(fd);
    if (!d) { close(fd); return; }
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) remove_at(fd, e->d_name, depth + 1);
    closedir(d);
    unlinkat(dirfd, name, AT_REMOVEDIR);
}

/* Empties dir: every entry, or (owner_only) those owned by uid; keep names one regular
   file to leave in place (the compile step's "prog"). */
static void empty_dir(const char *dir, const char *keep, int owner_only, uid_t uid)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return;
    DIR *d = fdopendir(fd);
    if (!d) { close(fd); return; }
    struct dirent *e;
    struct stat st;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        if (fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW)) continue;
        if (owner_only && st.st_uid != uid) continue;
        if (keep && !strcmp(e->d_name, keep) && S_ISREG(st.st_mode)) continue;
        remove_at(fd, e->d_name, 0);
    }
    closedir(d);
}

/* System V IPC objects created or owned by uid (plain mode shares the host's IPC namespace). */
static void remove_ipc(uid_t uid)
{
    static const struct { const char *path; int uid_col, cuid_col, kind; } t[] = {
        {"/proc/sysvipc/shm", 8, 10, 0}, {"/proc/sysvipc/sem", 5, 7, 1}, {"/proc/sysvipc/msg", 8, 10, 2}};
    for (size_t k = 0; k < sizeof t / sizeof t[0]; k++) {
        FILE *f = fopen(t[k].path, "re");
        if (!f) continue;
        char line[512];
        if (!fgets(line, sizeof line, f)) { fclose(f); continue; }  /* header */
        while (fgets(line, sizeof line, f)) {
            long col[16] = {0};
            int n = 0;
            for (char *tok = strtok(line, " \t\n"); tok && n < 16; tok = strtok(NULL, " \t\n")) col[n++] = strtol(tok, NULL, 10);
            if (n <= t[k].cuid_col) continue;
            if ((uid_t)col[t[k].uid_col - 1] != uid && (uid_t)col[t[k].cuid_col - 1] != uid) continue;
            int id = (int)col[1];
            if (t[k].kind == 0) shmctl(id, IPC_RMID, NULL);
            else if (t[k].kind == 1) semctl(id, 0, IPC_RMID);
            else msgctl(id, IPC_RMID, NULL);
        }
        fclose(f);
    }
}

/* Without cgroups RLIMIT_AS binds each process, so NPROC x MEMORY_KB must fit in this
   slot's share (half of the host's memory split between the box's slots). */
static long nproc_within_memory(long nproc, long mem_kb, long floor_nproc)
{
    long total_kb = read_long("/proc/meminfo", "MemTotal:");
    if (total_kb <= 0 || mem_kb <= 0) return nproc;
    long share = total_kb / 2 / (box_slots > 0 ? box_slots : 1);
    long fit = share / mem_kb;
    if (fit < floor_nproc) fit = floor_nproc;
    return nproc < fit ? nproc : fit;
}

static int write_file(const char *path, const char *val)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    ssize_t n = write(fd, val, strlen(val));
    close(fd);
    return n < 0 ? -1 : 0;
}

static long read_long(const char *path, const char *key)
{
    char buf[4096];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return -1;
    buf[n] = 0;
    if (!key) return strtol(buf, NULL, 10);
    char *p = strstr(buf, key);
    if (!p) return -1;
    return strtol(p + strlen(key), NULL, 10);
}

/*
 * cgroups: memory, processes and CPU bound for the whole step, whichever hierarchy the host
 * has, found at start (cgroup_detect):
 *   v2   the unified hierarchy with a delegated subtree ("cgroup2 <dir>" in the config,
 *        prepared by setup-box.sh with the memory and pids controllers, cpu where it can):
 *        <dir>/box<slot>/<step>, a fresh leaf per step (compile, run) with memory.max,
 *        memory.swap.max 0 and pids.max (cpu.max where the step has no CPU of its own); the
 *        step starts in it (clone3 CLONE_INTO_CGROUP); its figures are the leaf's own
 *        (memory.peak, memory.events oom_kill, cpu.stat usage_usec); cgroup.kill ends it;
 *        the leaf is removed afterwards. Needs kernel 5.19 (memory.peak).
 *   v1   the memory, pids and cpuacct hierarchies, /sys/fs/cgroup/<ctrl>/prutor/box<slot>,
 *        counters reset per step.
 *   none neither: rlimits alone (nproc_within_memory).
 */
enum { CG_NONE, CG_V1, CG_V2 };
static const char *const cg_kind_name[] = {"none", "v1", "v2"};
static int cg_kind;              /* what the host offers */
static int cg_on;                /* this step's cgroups are set up */
/* v1: the step's cgroup in each hierarchy; v2: cg_dir is the step's leaf, cg_prev the
   compile's while a compile-run moves on to its run */
static char cg_mem[256], cg_pids[256], cg_cpu[256], cg_dir[256], cg_prev[256];
static int cg_dir_fd = -1;       /* v2: the leaf, for clone3(CLONE_INTO_CGROUP) */
/* v2 where clone3 is refused (ENOSYS from a container's seccomp profile): the child moves
   itself into the leaf before anything of the step runs */
static int cg_join_in_child;
/* v2: cap the step at one CPU's worth of time (cpu.max) when it has no CPU of its own */
static int cg_one_cpu;
#define CPU_MAX_ONE_CPU "100000 100000" /* quota and period, microseconds */
/* What the slot's cgroup held when the step began: page cache charged to it earlier (a
   compile's files, or cc1 and the headers if this slot read them first on a fresh host)
   stays charged, and is not the step's memory (v1; a v2 leaf starts empty). */
static long cg_base_kb;

/* 1 if the whitespace-separated list in the file at path holds word */
static int has_word(const char *path, const char *word)
{
    char buf[512];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return 0;
    buf[n] = 0;
    for (char *tok = strtok(buf, " \n"); tok; tok = strtok(NULL, " \n"))
        if (strcmp(tok, word) == 0) return 1;
    return 0;
}

static void cgroup_detect(void)
{
    struct statfs sf;
    struct stat st;
    char p[320], q[320], r[320];
    if (cg2_root[0] == '/' && !strstr(cg2_root, "/.")
        && statfs(cg2_root, &sf) == 0 && sf.f_type == CGROUP2_SUPER_MAGIC
        && lstat(cg2_root, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == 0) {
        snprintf(p, sizeof p, "%s/cgroup.subtree_control", cg2_root);
        snprintf(q, sizeof q, "%s/memory.peak", cg2_root);
        snprintf(r, sizeof r, "%s/cgroup.kill", cg2_root);
        if (has_word(p, "memory") && has_word(p, "pids") && access(q, F_OK) == 0 && access(r, F_OK) == 0) {
            cg_kind = CG_V2;
            return;
        }
    }
    if (faccessat(AT_FDCWD, "/sys/fs/cgroup/memory/memory.limit_in_bytes", W_OK, AT_EACCESS) == 0) cg_kind = CG_V1;
}

/* v2: 1 while the cgroup at dir holds a process (an exiting task leaves it before it is reaped) */
static int cg2_populated(const char *dir)
{
    char p[320];
    snprintf(p, sizeof p, "%s/cgroup.events", dir);
    return read_long(p, "populated ") != 0;
}

/* v2: kills every process in the cgroup at dir (and below) and waits, up to a second, until
   it is empty */
static void cg2_kill(const char *dir)
{
    char p[320];
    snprintf(p, sizeof p, "%s/cgroup.kill", dir);
    if (write_file(p, "1")) return;
    for (int i = 0; i < 2000 && cg2_populated(dir); i++) usleep(500);
}

/* v2: removes the (empty) leaf at dir; a task that has just left it may keep it busy for a
   moment, so look again for up to 100 ms */
static void cg2_rmdir(const char *dir)
{
    for (int i = 0; i < 100 && rmdir(dir) && errno == EBUSY; i++) usleep(1000);
}

/* v2: a leaf left by a launcher that died mid-step: its processes, then the leaf */
static void cg2_remove_stale(int slot, const char *step)
{
    char p[256];
    snprintf(p, sizeof p, "%s/box%d/%s", cg2_root, slot, step);
    if (access(p, F_OK)) return;
    cg2_kill(p);
    cg2_rmdir(p);
}

/* v2: at the launcher's exit, however it exits (a step's end, a refusal, an error), its
   step's leaf goes: what is left in it is killed first (its page cache stays charged to the
   slot's node, so the next leaf starts at zero) */
static void cg2_leave(void)
{
    if (!cg_on || !cg_dir[0]) return;
    if (cg2_populated(cg_dir)) cg2_kill(cg_dir);
    cg2_rmdir(cg_dir);
}

static int cg2_setup(int slot, const char *step, long mem_kb, long nproc)
{
    char p[320], v[64], slot_dir[224];
    snprintf(slot_dir, sizeof slot_dir, "%s/box%d", cg2_root, slot);
    if (mkdir(slot_dir, 0755) && errno != EEXIST) return -1;
    /* the slot's node passes the controllers on to its step leaves (and holds no process) */
    snprintf(p, sizeof p, "%s/cgroup.subtree_control", slot_dir);
    if (!has_word(p, "memory") || !has_word(p, "pids")) {
        if (write_file(p, "+memory +pids")) return -1;
        write_file(p, "+cpu");  /* only for cpu.max: usage is counted without it */
    }
    if (cg_dir[0]) snprintf(cg_prev, sizeof cg_prev, "%s", cg_dir);
    snprintf(cg_dir, sizeof cg_dir, "%s/%s", slot_dir, step);
    cg2_remove_stale(slot, step);
    if (mkdir(cg_dir, 0755)) return -1;
    static int leave_registered;
    if (!leave_registered++) atexit(cg2_leave);
    if (cg_dir_fd >= 0) close(cg_dir_fd);
    cg_dir_fd = open(cg_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (cg_dir_fd < 0) return -1;
    snprintf(p, sizeof p, "%s/memory.max", cg_dir);
    snprintf(v, sizeof v, "%ld", mem_kb * 1024L);
    if (write_file(p, v)) return -1;
    /* no swap: a step over its memory is killed, not slowed (absent without swap accounting) */
    snprintf(p, sizeof p, "%s/memory.swap.max", cg_dir);
    if (write_file(p, "0") && errno != ENOENT) return -1;
    snprintf(p, sizeof p, "%s/pids.max", cg_dir);
    snprintf(v, sizeof v, "%ld", nproc);
    if (write_file(p, v)) return -1;
    if (cg_one_cpu) {
        snprintf(p, sizeof p, "%s/cpu.max", cg_dir);
        write_file(p, CPU_MAX_ONE_CPU);
    }
    snprintf(p, sizeof p, "%s/memory.current", cg_dir);
    cg_base_kb = read_long(p, NULL) / 1024;
    if (cg_base_kb < 0) cg_base_kb = 0;
    return 0;
}

static int cg1_setup(int slot, long mem_kb, long nproc)
{
    char p[320], v[64];
    snprintf(cg_mem, sizeof cg_mem, "/sys/fs/cgroup/memory/prutor/box%d", slot);
    snprintf(cg_pids, sizeof cg_pids, "/sys/fs/cgroup/pids/prutor/box%d", slot);
    snprintf(cg_cpu, sizeof cg_cpu, "/sys/fs/cgroup/cpuacct/prutor/box%d", slot);
    mkdir("/sys/fs/cgroup/memory/prutor", 0755);
    mkdir("/sys/fs/cgroup/pids/prutor", 0755);
    if (mkdir(cg_mem, 0755) && errno != EEXIST) return -1;
    mkdir(cg_pids, 0755);
    mkdir("/sys/fs/cgroup/cpuacct/prutor", 0755);
    mkdir(cg_cpu, 0755);
    snprintf(p, sizeof p, "%s/cpuacct.usage", cg_cpu);
    write_file(p, "0");
    snprintf(v, sizeof v, "%ld", mem_kb * 1024L);
    /* memsw must stay >= the limit: raise it first, then set the limit, then set it again */
    char sw[320];
    snprintf(sw, sizeof sw, "%s/memory.memsw.limit_in_bytes", cg_mem);
    write_file(sw, v);
    snprintf(p, sizeof p, "%s/memory.limit_in_bytes", cg_mem);
    if (write_file(p, v)) return -1;
    write_file(sw, v);
    snprintf(p, sizeof p, "%s/memory.max_usage_in_bytes", cg_mem);
    write_file(p, "0");
    snprintf(p, sizeof p, "%s/memory.usage_in_bytes", cg_mem);
    cg_base_kb = read_long(p, NULL) / 1024;
    if (cg_base_kb < 0) cg_base_kb = 0;
    snprintf(p, sizeof p, "%s/memory.failcnt", cg_mem);
    write_file(p, "0");
    snprintf(p, sizeof p, "%s/pids.max", cg_pids);
    snprintf(v, sizeof v, "%ld", nproc);
    write_file(p, v);
    return 0;
}

/* The step's cgroups with its limits (memory in KB, processes); cg_on says whether they hold.
   v2 makes the leaf named step; v1 resets the slot's counters. */
static void cgroup_setup(int slot, const char *step, long mem_kb, long nproc)
{
    cg_on = cg_kind == CG_V2 ? cg2_setup(slot, step, mem_kb, nproc) == 0
          : cg_kind == CG_V1 ? cg1_setup(slot, mem_kb, nproc) == 0 : 0;
}

/* v2: caps the current leaf (and those after it) at one CPU's worth of time */
static void cgroup_one_cpu(void)
{
    char p[320];
    cg_one_cpu = 1;
    if (cg_kind != CG_V2 || !cg_on) return;
    snprintf(p, sizeof p, "%s/cpu.max", cg_dir);
    write_file(p, CPU_MAX_ONE_CPU);
}

/* Starts the step's first process (fork semantics; ns_flags: the namespaces it gets). With
   cgroup v2 it starts in the step's leaf (clone3 CLONE_INTO_CGROUP): no migration, whose
   write would take the kernel's thread-group lock and wait for an RCU grace period. */
static pid_t spawn(unsigned long ns_flags)
{
    if (cg_kind == CG_V2 && cg_on && !cg_join_in_child) {
        struct clone_args ca;
        memset(&ca, 0, sizeof ca);
        ca.flags = ns_flags | CLONE_INTO_CGROUP;
        ca.exit_signal = SIGCHLD;
        ca.cgroup = (uint64_t)cg_dir_fd;
        pid_t pid = (pid_t)syscall(SYS_clone3, &ca, sizeof ca);
        if (pid >= 0 || errno != ENOSYS) return pid;
        cg_join_in_child = 1;
    }
    if (!ns_flags) return fork();
    return (pid_t)syscall(SYS_clone, ns_flags | SIGCHLD, NULL, NULL, NULL, NULL);
}

/* In the step's first process, before anything of the step runs: joins the step's cgroups
   where spawn could not start it there. v1 through "tasks", not "cgroup.procs": a
   cgroup.procs write takes the kernel's thread-group lock for writing, which waits for an
   RCU grace period (measured here: 8-25 ms of every launch); a "tasks" write moves one
   thread without it, and the child has only one.
   Fails (-1) if any move fails: a step must not run outside the limits it was given. */
static int cgroup_join(void)
{
    char p[320];
    if (!cg_on) return 0;
    if (cg_kind == CG_V2) {
        if (!cg_join_in_child) return 0;
        snprintf(p, sizeof p, "%s/cgroup.procs", cg_dir);
        return write_file(p, "0");
    }
    snprintf(p, sizeof p, "%s/tasks", cg_mem);
    if (write_file(p, "0")) return -1;
    snprintf(p, sizeof p, "%s/tasks", cg_pids);
    if (write_file(p, "0")) return -1;
    snprintf(p, sizeof p, "%s/tasks", cg_cpu);
    return write_file(p, "0");
}

/* v2, compile-run: moves the sandbox's first process (alone in the compile's leaf by now)
   into the run's fresh leaf, then removes the compile's */
static int cgroup_move(pid_t pid)
{
    char p[320], v[24];
    if (cg_kind != CG_V2) return 0;
    snprintf(p, sizeof p, "%s/cgroup.procs", cg_dir);
    snprintf(v, sizeof v, "%d", (int)pid);
    if (write_file(p, v)) return -1;
    cg2_rmdir(cg_prev);
    return 0;
}

static long cg_cpu_ms(void)
{
    char p[320];
    if (!cg_on) return -1;
    if (cg_kind == CG_V2) {
        snprintf(p, sizeof p, "%s/cpu.stat", cg_dir);
        long us = read_long(p, "usage_usec ");
        return us < 0 ? -1 : us / 1000L;
    }
    snprintf(p, sizeof p, "%s/cpuacct.usage", cg_cpu);
    long ns_used = read_long(p, NULL);
    return ns_used < 0 ? -1 : ns_used / 1000000L;
}

/* The step's peak: the cgroup's since the step began, less what it held then (the kernel may
   reclaim some of that cache under the step's own pressure, so this can only undercount;
   the caller takes the larger of it and the process' maximum resident size) */
static long cg_peak_kb(void)
{
    char p[320];
    if (cg_kind == CG_V2) snprintf(p, sizeof p, "%s/memory.peak", cg_dir);
    else snprintf(p, sizeof p, "%s/memory.max_usage_in_bytes", cg_mem);
    long peak = read_long(p, NULL);
    if (peak < 0) return -1;
    peak = peak / 1024 - cg_base_kb;
    return peak < 0 ? 0 : peak;
}

static long cg_oom_kills(void)
{
    char p[320];
    if (!cg_on) return 0;
    if (cg_kind == CG_V2) snprintf(p, sizeof p, "%s/memory.events", cg_dir);
    else snprintf(p, sizeof p, "%s/memory.oom_control", cg_mem);
    long v = read_long(p, "oom_kill ");
    return v < 0 ? 0 : v;
}

/* 1 when the step's cgroup holds no process (an exiting task leaves it before it is reaped) */
static int cgroup_empty(void)
{
    char p[320], c;
    if (cg_kind == CG_V2) return !cg2_populated(cg_dir);
    snprintf(p, sizeof p, "%s/cgroup.procs", cg_pids);
    int fd = open(p, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    ssize_t n = read(fd, &c, 1);
    close(fd);
    return n == 0;
}

/* Kill every process of the slot user: a child takes the uid and signals -1. */
static void kill_user(uid_t uid, gid_t gid)
{
    /* with a pids cgroup an empty step is seen without forking a killer (the usual
       case: the sandbox's pid namespace died with its first process) */
    if (cg_on && cgroup_empty()) return;
    /* v2 kills the whole step at once; the slot user's processes outside it (none, unless a
       step escaped its leaf) still get the signal below */
    if (cg_on && cg_kind == CG_V2) {
        cg2_kill(cg_dir);
        if (cgroup_empty()) return;
    }
    for (int round = 0; round < 200; round++) {
        pid_t k = fork();
        if (k == 0) {
            if (setgroups(0, NULL) || setresgid(gid, gid, gid) || setresuid(uid, uid, uid)) _exit(1);
            kill(-1, SIGKILL);
            _exit(0);
        }
        if (k > 0) waitpid(k, NULL, 0);
        /* a second round catches a process forked while the first signal was in flight */
        if (!cg_on) { if (round >= 1) break; continue; }
        if (cgroup_empty()) break;
        usleep(500);
    }
}

/*
 * One CPU per sandbox while there is a free one. Left to the scheduler, two sandboxes on
 * a 2-core host shared one core about a tenth of the time while the other idled: a
 * compile hands its work from process to process (gcc, cc1, as, collect2, ld) and each
 * new one is placed anew. The launcher claims a CPU it may run on (an flock on
 * /run/prutor/cpu/N, held until it exits), trying slot mod n first so that slots spread,
 * and runs the step there; when every CPU is claimed, the step floats as before. The
 * sandbox cannot widen its set (confine.h refuses sched_setaffinity). Replicas in
 * containers on one host see each other's claims through a shared volume at that path.
 * Returns the CPU (and the lock to keep open in *lock_fd), or -1.
 */
#define CPU_LOCK_DIR "/run/prutor/cpu"

static int claim_cpu(int slot, int *lock_fd)
{
    *lock_fd = -1;
    cpu_set_t allowed;
    if (!pin_cpus || sched_getaffinity(0, sizeof allowed, &allowed) || CPU_COUNT(&allowed) < 2) return -1;
    int cpus[CPU_SETSIZE], n = 0;
    for (int c = 0; c < CPU_SETSIZE; c++) if (CPU_ISSET(c, &allowed)) cpus[n++] = c;
    struct stat st;
    mkdir("/run/prutor", 0755);
    mkdir(CPU_LOCK_DIR, 0700);
    if (lstat(CPU_LOCK_DIR, &st) || !S_ISDIR(st.st_mode) || st.st_uid != 0 || (st.st_mode & 022)) return -1;
    for (int i = 0; i < n; i++) {
        int cpu = cpus[(slot + i) % n];
        char p[64];
        snprintf(p, sizeof p, CPU_LOCK_DIR "/%d", cpu);
        int fd = open(p, O_RDONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0) continue;
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(cpu, &one);
        if (flock(fd, LOCK_EX | LOCK_NB) == 0 && sched_setaffinity(0, sizeof one, &one) == 0) {
            *lock_fd = fd;
            return cpu;
        }
        close(fd);
    }
    return -1;
}

/*
 * Direct namespaces: the same view bubblewrap gives (below), made by this launcher as root
 * in a new mount, pid, IPC and UTS namespace, without a user namespace. One clone and a
 * dozen mounts instead of bubblewrap's user namespace, pivot and extra processes: measured
 * here at a third of the launch (sandbox/README.md). Used wherever root may make
 * namespaces (a host); where it may not (a container without CAP_SYS_ADMIN) the clone
 * fails and bubblewrap, in a user namespace, gives the same view.
 */
#define DIRECT_ROOT_PARENT "/run/prutor"
#define DIRECT_ROOT DIRECT_ROOT_PARENT "/root"

/* the empty, root-owned directory the sandbox's root is mounted on (in its own namespace) */
static int direct_root_ready(void)
{
    struct stat st;
    mkdir(DIRECT_ROOT_PARENT, 0755);
    mkdir(DIRECT_ROOT, 0755);
    if (lstat(DIRECT_ROOT_PARENT, &st) || !S_ISDIR(st.st_mode) || st.st_uid != 0 || (st.st_mode & 022)) return 0;
    if (lstat(DIRECT_ROOT, &st) || !S_ISDIR(st.st_mode) || st.st_uid != 0 || (st.st_mode & 022)) return 0;
    return 1;
}

static char direct_err[160];

static int setup_fail(const char *what)
{
    snprintf(direct_err, sizeof direct_err, "%s: %s", what, strerror(errno));
    return -1;
}

/* Attaches a detached copy of a mount (open_tree, made before the namespaces from the
   descriptor that was checked) at dst, nosuid and nodev, plus extra (read-only) */
static int attach(int tree, const char *dst, unsigned long extra)
{
    if (move_mount(tree, "", AT_FDCWD, dst, MOVE_MOUNT_F_EMPTY_PATH)) return setup_fail(dst);
    if (mount(NULL, dst, NULL, MS_REMOUNT | MS_BIND | MS_NOSUID | MS_NODEV | extra, NULL)) return setup_fail(dst);
    return 0;
}

/* a read-only bind of a root-owned system path (/usr, /etc/ld.so.cache) */
static int bind_ro(const char *src, const char *dst, unsigned long extra)
{
    if (mount(src, dst, NULL, MS_BIND | MS_REC, NULL)) return setup_fail(dst);
    if (mount(NULL, dst, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV | extra, NULL))
        return setup_fail(dst);
    return 0;
}

static int tmpfs_at(const char *dst, unsigned long flags, const char *size, const char *mode, uid_t uid, gid_t gid)
{
    char opt[128];
    snprintf(opt, sizeof opt, "mode=%s,size=%s,uid=%u,gid=%u", mode, size, (unsigned)uid, (unsigned)gid);
    return mount("tmpfs", dst, "tmpfs", flags, opt) ? setup_fail(dst) : 0;
}

/* Builds, in this (new) mount namespace, the sandbox's filesystem and enters it:
   / read-only with /usr (read-only, nosuid) and the usual symlinks, /etc/ld.so.cache, /proc
   of the new pid namespace, a read-only /dev with null, zero, full, random, urandom, tty
   and a /dev/shm tmpfs, a /tmp tmpfs, and /box: the slot (compile) or a fresh tmpfs with
   read-only binds of the run's files (run). The slot and its files come as detached mounts
   made from descriptors opened without following a link: what was checked is what is
   bound, whatever is renamed in the slot meanwhile (root makes these mounts). */
static int direct_enter(int is_run, int slot_tree, const int *file_trees, char **file_names, int n_files,
                        const char *size, uid_t uid, gid_t gid)
{
    const char *R = DIRECT_ROOT;
    char p[PATH_MAX];
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL)) return setup_fail("private mounts");
    if (tmpfs_at(R, MS_NOSUID | MS_NODEV, "1m", "0755", 0, 0)) return -1;
    static const char *dirs[] = {"usr", "etc", "proc", "dev", "tmp", "box", NULL};
    for (int i = 0; dirs[i]; i++) {
        snprintf(p, sizeof p, "%s/%s", R, dirs[i]);
        if (mkdir(p, 0755)) return setup_fail(p);
    }
    static const char *links[][2] = {{"usr/lib", "lib"}, {"usr/lib64", "lib64"}, {"usr/bin", "bin"}, {"usr/sbin", "sbin"}};
    for (size_t i = 0; i < sizeof links / sizeof links[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", R, links[i][1]);
        if (symlink(links[i][0], p)) return setup_fail(p);
    }
    snprintf(p, sizeof p, "%s/usr", R);
    if (bind_ro("/usr", p, 0)) return -1;
    if (access("/etc/ld.so.cache", F_OK) == 0) {
        snprintf(p, sizeof p, "%s/etc/ld.so.cache", R);
        int fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd < 0) return setup_fail(p);
        close(fd);
        if (bind_ro("/etc/ld.so.cache", p, 0)) return -1;
    }
    snprintf(p, sizeof p, "%s/proc", R);
    if (mount("proc", p, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL)) return setup_fail(p);

    snprintf(p, sizeof p, "%s/dev", R);
    if (tmpfs_at(p, MS_NOSUID | MS_NOEXEC, "64k", "0755", 0, 0)) return -1;
    static const struct { const char *name; unsigned maj, min; } devs[] = {
        {"null", 1, 3}, {"zero", 1, 5}, {"full", 1, 7}, {"random", 1, 8}, {"urandom", 1, 9}, {"tty", 5, 0}};
    for (size_t i = 0; i < sizeof devs / sizeof devs[0]; i++) {
        snprintf(p, sizeof p, "%s/dev/%s", R, devs[i].name);
        if (mknod(p, S_IFCHR | 0666, makedev(devs[i].maj, devs[i].min)) || chmod(p, 0666)) return setup_fail(p);
    }
    static const char *dev_links[][2] = {{"/proc/self/fd", "fd"}, {"/proc/self/fd/0", "stdin"},
                                         {"/proc/self/fd/1", "stdout"}, {"/proc/self/fd/2", "stderr"}};
    for (size_t i = 0; i < sizeof dev_links / sizeof dev_links[0]; i++) {
        snprintf(p, sizeof p, "%s/dev/%s", R, dev_links[i][1]);
        if (symlink(dev_links[i][0], p)) return setup_fail(p);
    }
    snprintf(p, sizeof p, "%s/dev/shm", R);
    if (mkdir(p, 0755)) return setup_fail(p);
    if (tmpfs_at(p, MS_NOSUID | MS_NODEV, size, "1777", 0, 0)) return -1;
    snprintf(p, sizeof p, "%s/dev", R);
    if (mount(NULL, p, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NOEXEC, NULL)) return setup_fail("read-only /dev");

    snprintf(p, sizeof p, "%s/tmp", R);
    if (tmpfs_at(p, MS_NOSUID | MS_NODEV, size, "1777", 0, 0)) return -1;
    snprintf(p, sizeof p, "%s/box", R);
    if (is_run) {
        if (tmpfs_at(p, MS_NOSUID | MS_NODEV, size, "0755", uid, gid)) return -1;
        for (int i = 0; i < n_files; i++) {
            snprintf(p, sizeof p, "%s/box/%s", R, file_names[i]);
            int fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
            if (fd < 0) return setup_fail(p);
            close(fd);
            if (attach(file_trees[i], p, MS_RDONLY)) return -1;
        }
    } else {
        if (attach(slot_tree, p, 0)) return -1;
    }
    if (mount(NULL, R, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV, NULL)) return setup_fail("read-only /");
    if (chdir(R) || syscall(SYS_pivot_root, ".", ".") || umount2(".", MNT_DETACH) || chdir("/box"))
        return setup_fail("pivot_root");
    if (sethostname("box", 3)) return setup_fail("hostname");
    return 0;
}

/* No capability survives into the sandbox: the bounding and ambient sets are emptied
   (the uid change below empties the others) */
static void drop_capabilities(void)
{
    for (int cap = 0; cap <= 63; cap++)
        if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) && errno != EINVAL) _exit(121);
    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
}

static int become_slot_user(uid_t uid, gid_t gid)
{
    if (setgroups(0, NULL) || setresgid(gid, gid, gid) || setresuid(uid, uid, uid)) return -1;
    return getuid() == 0 || geteuid() == 0 ? -1 : 0;
}

/* What the direct sandbox's first process is to do (direct_init) */
struct direct_plan {
    int is_run, slot_tree, n_files;
    const int *file_trees;
    char **file_names, **inner_av;
    const char *size;
    uid_t uid;
    gid_t gid;
    /* compile-run: the run that follows the compile (NULL otherwise), its tmpfs size, where
       the compiler's output goes, and the launcher's go-ahead ('r') once it has read the
       compile's figures and set the run's limits */
    char **run_av;
    const char *run_size;
    int compile_out_fd, go_fd;
};

/* In a child of the sandbox's first process: becomes the step's command (never returns) */
static void start_payload(char **inner_av, uid_t uid, gid_t gid)
{
    setsid();
    drop_capabilities();
    if (become_slot_user(uid, gid)) _exit(121);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
    /* what prutor-run does inside bubblewrap, without its exec */
    int inner_argc = 0;
    while (inner_av[inner_argc]) inner_argc++;
    _exit(confine_exec(inner_argc, inner_av, "/tmp"));
}

/* Waits, as the namespace's init (reaping orphans too), for pid: its exit code or 128 + signal */
static int reap_until(pid_t pid, long *maxrss_kb)
{
    int wst = 0;
    struct rusage ru;
    for (;;) {
        pid_t r = wait4(-1, &wst, 0, &ru);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return 255;
        if (r != pid) continue;
        if (maxrss_kb) *maxrss_kb = ru.ru_maxrss;
        return WIFEXITED(wst) ? WEXITSTATUS(wst) : 128 + WTERMSIG(wst);
    }
}

/* compile-run: the compile's view becomes a run's, as a run step would get it: a fresh
   /box tmpfs holding only the compiled binary (read-only), fresh /tmp and /dev/shm; the
   slot (and the source in it) is no longer reachable */
static int switch_to_run(const char *size, uid_t uid, gid_t gid)
{
    struct stat st;
    int prog = open_tree(AT_FDCWD, "/box/prog", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_SYMLINK_NOFOLLOW);
    if (prog < 0 || fstat(prog, &st) || !S_ISREG(st.st_mode)) return setup_fail("the compiled binary");
    if (chdir("/") || umount2("/box", MNT_DETACH) || umount2("/tmp", MNT_DETACH) || umount2("/dev/shm", MNT_DETACH))
        return setup_fail("the compile's mounts");
    if (tmpfs_at("/tmp", MS_NOSUID | MS_NODEV, size, "1777", 0, 0) || tmpfs_at("/dev/shm", MS_NOSUID | MS_NODEV, size, "1777", 0, 0)
        || tmpfs_at("/box", MS_NOSUID | MS_NODEV, size, "0755", uid, gid))
        return -1;
    int fd = open("/box/prog", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) return setup_fail("/box/prog");
    close(fd);
    if (attach(prog, "/box/prog", MS_RDONLY)) return -1;
    close(prog);
    return chdir("/box") ? setup_fail("/box") : 0;
}

/* The sandbox's first process (pid 1 of its namespace, as bubblewrap's init is): builds
   the view, starts the step's command (confine.h) as the slot user, reaps orphans, and
   reports on fd 3 as bubblewrap's --json-status-fd does ({"child-pid"}, then
   {"exit-code"}); when it exits the kernel kills whatever is left in the namespace.
   compile-run: after the compile it reports {"compile-exit"}, kills what the compile
   left, and on the launcher's go-ahead turns the view into the run's and starts the run. */
static void direct_init(const struct direct_plan *p)
{
    if (direct_enter(p->is_run, p->slot_tree, p->file_trees, p->file_names, p->n_files, p->size, p->uid, p->gid)) {
        dprintf(3, "{\"setup-error\": \"%s\"}\n", direct_err);
        _exit(119);
    }
    pid_t payload = fork();
    if (payload < 0) _exit(119);
    if (payload == 0) {
        if (p->run_av) {
            /* the compiler gets no stdin (the run's input) and writes to its own pipe */
            int nul = open("/dev/null", O_RDONLY);
            if (nul < 0 || dup2(nul, 0) < 0 || dup2(p->compile_out_fd, 1) < 0 || dup2(p->compile_out_fd, 2) < 0) _exit(119);
        }
        start_payload(p->inner_av, p->uid, p->gid);
    }
    dprintf(3, "{\"child-pid\": %d}\n", (int)payload);
    if (p->run_av) {
        int compiled = reap_until(payload, NULL);
        kill(-1, SIGKILL);  /* whatever the compile left in the namespace */
        while (wait(NULL) > 0 || errno == EINTR) {}
        close(p->compile_out_fd);
        dprintf(3, "{\"compile-exit\": %d}\n", compiled);
        char go = 0;
        if (read(p->go_fd, &go, 1) != 1 || go != 'r') _exit(compiled);
        if (switch_to_run(p->run_size, p->uid, p->gid)) {
            dprintf(3, "{\"run-setup-error\": \"%s\"}\n", direct_err);
            _exit(119);
        }
        payload = fork();
        if (payload < 0) _exit(119);
        if (payload == 0) start_payload(p->run_av, p->uid, p->gid);
    }
    close(0);
    close(1);
    close(2);
    drop_capabilities();
    if (become_slot_user(p->uid, p->gid)) { kill(payload, SIGKILL); _exit(121); }
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    long maxrss_kb = 0;
    int code = reap_until(payload, &maxrss_kb);
    dprintf(3, "{\"exit-code\": %d, \"maxrss\": %ld}\n", code, maxrss_kb);
    _exit(code);
}

/* The slot's user, from /etc/passwd itself rather than getpwnam(): the launcher is linked
   statically (sandbox/install.sh) so that this setuid program loads no shared object at
   all, neither through the dynamic loader nor through NSS (getpwnam would dlopen the
   modules nsswitch.conf names); the slot users are local system users (setup-box.sh). */
static int slot_user(const char *name, uid_t *uid, gid_t *gid)
{
    FILE *f = fopen("/etc/passwd", "re");
    if (!f) return -1;
    struct passwd *pw;
    while ((pw = fgetpwent(f)) && strcmp(pw->pw_name, name) != 0) {}
    if (pw) {
        *uid = pw->pw_uid;
        *gid = pw->pw_gid;
    }
    fclose(f);
    return pw ? 0 : -1;
}

static int valid_cmd0(const char *c)
{
    if (strncmp(c, "./", 2) == 0) {
        for (const char *p = c + 2; *p; p++)
            if (!isalnum((unsigned char)*p) && *p != '_' && *p != '.' && *p != '-') return 0;
        return c[2] != 0 && c[2] != '.';
    }
    if (strncmp(c, "/usr/", 5) == 0) return strstr(c, "..") == NULL;
    return 0;
}

int main(int argc, char **argv)
{
    if (fcntl(3, F_GETFD) != -1) status_fd = 3;
    signal(SIGALRM, SIG_IGN);
    signal(SIGPIPE, SIG_IGN);
    if (argc < 3) die("usage");
    const char *mode = argv[1];
    int is_probe = strcmp(mode, "probe") == 0, is_run = strcmp(mode, "run") == 0,
        is_clean = strcmp(mode, "clean") == 0, is_pair = strcmp(mode, "compile-run") == 0;
    if (!is_probe && !is_run && !is_clean && !is_pair && strcmp(mode, "compile") != 0) die("bad mode");
    const char *workdir = argv[2];
    if (strlen(workdir) >= PATH_MAX - 64 || strstr(workdir, "/.") || strstr(workdir, "//")) die("bad work dir");

    char root[PATH_MAX];
    int slot = resolve_slot(workdir, root, sizeof root);
    struct stat st;
    if (lstat(workdir, &st) || !S_ISDIR(st.st_mode)) die("work dir missing");

    char uname[32];
    snprintf(uname, sizeof uname, "prutor-box%d", slot);
    uid_t uid = 0;
    gid_t gid = 0;
    if (slot_user(uname, &uid, &gid) || uid == 0 || gid == 0) die("no user %s", uname);
    cgroup_detect();
    if (is_clean) {
        /* what a step interrupted before its own clean-up may have left */
        if (cg_kind == CG_V2) {
            cg2_remove_stale(slot, "compile");
            cg2_remove_stale(slot, "run");
        }
        kill_user(uid, gid);
        empty_dir(workdir, NULL, 0, uid);
        dprintf(status_fd, "{\"status\":\"ok\"}\n");
        return 0;
    }

    long cpu_ms = 2000, wall_ms = 5000, mem_kb = 65536, fsize_kb = 1024, nproc = 16, nofile = 32,
         out_bytes = 65536;
    int use_ns = 1, cmd_at = -1, cmd_end = argc, run_cmd_at = -1;
    /* compile-run: the run's limits */
    long r_cpu_ms = 0, r_wall_ms = 0, r_mem_kb = 0, r_fsize_kb = 0, r_nproc = 0, r_nofile = 0, r_out_bytes = 0;
    if (is_probe) {
        use_ns = 1;
    } else {
        if (argc < 14 || strcmp(argv[12], "--") != 0) die("usage");
        cpu_ms = parse_num(argv[3], 10, 120000, "CPU_MS");
        wall_ms = parse_num(argv[4], 10, 300000, "WALL_MS");
        mem_kb = parse_num(argv[5], 1024, 8388608, "MEMORY_KB");
        fsize_kb = parse_num(argv[6], 0, 1048576, "FSIZE_KB");
        nproc = parse_num(argv[7], 1, 1024, "NPROC");
        nofile = parse_num(argv[8], 4, 4096, "NOFILE");
        out_bytes = parse_num(argv[9], 0, 67108864, "OUTPUT_BYTES");
        if (strcmp(argv[10], "ns") == 0) use_ns = 1;
        else if (strcmp(argv[10], "plain") == 0) use_ns = 0;
        else die("bad isolation");
        if (!use_ns && !allow_plain) die("plain isolation is not allowed on this host (no allow_plain line in " CONF_PATH ")");
        if (strcmp(argv[11], "-") != 0) die("usage");
        cmd_at = 13;
        if (argc - cmd_at > MAX_ARGS - 40) die("too many arguments");
        if (!valid_cmd0(argv[cmd_at])) die("bad command");
        if (is_pair) {
            /* ... -- COMPILE_CMD... -- RUN_CPU_MS RUN_WALL_MS RUN_MEMORY_KB RUN_FSIZE_KB RUN_NPROC
               RUN_NOFILE RUN_OUTPUT_BYTES RUN_CMD... */
            int sep = cmd_at + 1;
            while (sep < argc && strcmp(argv[sep], "--") != 0) sep++;
            if (sep + 9 > argc) die("usage");
            cmd_end = sep;
            r_cpu_ms = parse_num(argv[sep + 1], 10, 120000, "RUN_CPU_MS");
            r_wall_ms = parse_num(argv[sep + 2], 10, 300000, "RUN_WALL_MS");
            r_mem_kb = parse_num(argv[sep + 3], 1024, 8388608, "RUN_MEMORY_KB");
            r_fsize_kb = parse_num(argv[sep + 4], 0, 1048576, "RUN_FSIZE_KB");
            r_nproc = parse_num(argv[sep + 5], 1, 1024, "RUN_NPROC");
            r_nofile = parse_num(argv[sep + 6], 4, 4096, "RUN_NOFILE");
            r_out_bytes = parse_num(argv[sep + 7], 0, 67108864, "RUN_OUTPUT_BYTES");
            run_cmd_at = sep + 8;
            if (!valid_cmd0(argv[run_cmd_at])) die("bad run command");
            if (!use_ns) unsupported("compile-run needs namespaces");
        }
    }

    /* cgroups bound memory, processes and CPU for the whole step (both steps: a
       compiler fed a hostile source can be made to allocate a lot) */
    if (!is_probe) cgroup_setup(slot, is_run ? "run" : "compile", mem_kb, nproc + 4);
    /* the run's figures must be the run's alone: per-step cgroups are needed */
    if (is_pair && !cg_on) unsupported("compile-run needs cgroups");
    if (!is_probe && !cg_on) nproc = nproc_within_memory(nproc, mem_kb, is_run ? 1 : 4);
    long oom_before = cg_oom_kills();

    /* the run step sees only the files the engine placed in the slot (read-only binds
       on a private tmpfs); collect them now, before anything runs */
    char *run_files[MAX_RUN_FILES];
    int run_fds[MAX_RUN_FILES];
    int n_run_files = 0;
    /* the slot and (run) its files, opened without following links: the direct sandbox
       binds what was checked here, whatever is renamed in the slot meanwhile */
    int slot_fd = open(workdir, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (slot_fd < 0) die("work dir unreadable");
    if (is_run && use_ns) {
        DIR *d = opendir(workdir);
        if (!d) die("work dir unreadable");
        struct dirent *e;
        while ((e = readdir(d))) {
            struct stat fst;
            if (e->d_name[0] == '.') continue;
            int fd = openat(slot_fd, e->d_name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
            if (fd < 0) continue;
            if (fstat(fd, &fst) || !S_ISREG(fst.st_mode)) { close(fd); continue; }
            if (n_run_files == MAX_RUN_FILES) die("too many files in the work dir");
            run_fds[n_run_files] = fd;
            run_files[n_run_files++] = strdup(e->d_name);
        }
        closedir(d);
    }

    /* limits for the inner launcher (applied right before the user's command) */
    char a_cpu[24], a_as[24], a_fs[24], a_np[24], a_nf[24], a_st[24], a_sz[32];
    long cpu_s = (cpu_ms + 999) / 1000;
    snprintf(a_cpu, sizeof a_cpu, "%ld", cpu_s);
    /* with a memory cgroup the address space is only a sanity cap, so that a large
       allocation is caught by the cgroup (memory_limit) instead of failing quietly */
    snprintf(a_as, sizeof a_as, "%ld", cg_on ? (mem_kb * 4 > 16777216 ? mem_kb * 4 : 16777216) : mem_kb);
    snprintf(a_fs, sizeof a_fs, "%ld", fsize_kb);
    snprintf(a_np, sizeof a_np, "%ld", nproc);
    snprintf(a_nf, sizeof a_nf, "%ld", nofile);
    snprintf(a_st, sizeof a_st, "%ld", mem_kb);
    /* every writable filesystem of the sandbox is a tmpfs of this size (/tmp, /dev/shm,
       the run's /box); the root and /dev are read-only */
    snprintf(a_sz, sizeof a_sz, "%ld", (fsize_kb + 1024) * 1024L * 2);

    /* bwrap's ~60 arguments + 3 per run file + the inner launcher's 9 + the command's
       (at most MAX_ARGS - 40) + NULL */
    int netns_fd = -1;
    if (use_ns && netns_path[0] == '/') {
        struct stat nst;
        netns_fd = open(netns_path, O_RDONLY | O_CLOEXEC);
        /* only a root-owned namespace file, not something a user could have put there */
        if (netns_fd >= 0 && (fstat(netns_fd, &nst) || nst.st_uid != 0)) { close(netns_fd); netns_fd = -1; }
    }
    char *av[MAX_ARGS + 80 + 3 * MAX_RUN_FILES];
    char run_src[MAX_RUN_FILES][PATH_MAX], run_dst[MAX_RUN_FILES][NAME_MAX + 8];
    int n = 0;
    if (use_ns) {
        const char *bw[] = {BWRAP, "--unshare-all", netns_fd >= 0 ? "--share-net" : "--unshare-net",
                            "--die-with-parent", "--new-session", "--cap-drop", "ALL",
                            "--ro-bind", "/usr", "/usr", "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64",
                            "--symlink", "usr/bin", "/bin", "--symlink", "usr/sbin", "/sbin",
                            "--ro-bind-try", "/etc/ld.so.cache", "/etc/ld.so.cache",
                            "--proc", "/proc", "--dev", "/dev", "--size", a_sz, "--tmpfs", "/tmp",
                            "--size", a_sz, "--tmpfs", "/dev/shm", NULL};
        for (int i = 0; bw[i]; i++) av[n++] = (char *)bw[i];
        if (is_run) {
            av[n++] = "--size"; av[n++] = a_sz; av[n++] = "--tmpfs"; av[n++] = "/box";
            for (int i = 0; i < n_run_files; i++) {
                snprintf(run_src[i], sizeof run_src[i], "%s/%s", workdir, run_files[i]);
                snprintf(run_dst[i], sizeof run_dst[i], "/box/%s", run_files[i]);
                av[n++] = "--ro-bind"; av[n++] = run_src[i]; av[n++] = run_dst[i];
            }
        } else {
            av[n++] = "--bind"; av[n++] = (char *)workdir; av[n++] = "/box";
        }
        const char *tail[] = {"--remount-ro", "/dev", "--remount-ro", "/", "--chdir", "/box",
                              "--hostname", "box", "--clearenv", "--setenv", "PATH", "/usr/bin:/bin",
                              "--setenv", "TMPDIR", "/tmp", "--setenv", "LANG", "C.UTF-8",
                              "--json-status-fd", "3", "--", NULL};
        for (int i = 0; tail[i]; i++) av[n++] = (char *)tail[i];
    }
    int inner_at = n;
    av[n++] = INNER;
    av[n++] = is_probe ? "0" : (is_run ? "2" : "1");
    av[n++] = a_cpu; av[n++] = a_as; av[n++] = a_fs; av[n++] = a_np; av[n++] = a_nf; av[n++] = a_st;
    av[n++] = "--";
    if (n + (is_probe ? 1 : argc - cmd_at) >= (int)(sizeof av / sizeof av[0])) die("too many arguments");
    if (is_probe) av[n++] = "/usr/bin/true";
    else for (int i = cmd_at; i < cmd_end; i++) av[n++] = argv[i];
    av[n] = NULL;
    /* compile-run: the run's confinement, as a run step's */
    char r_cpu[24], r_as[24], r_fs[24], r_np[24], r_nf[24], r_st[24], r_sz[32];
    char *rav[MAX_ARGS + 12];
    if (is_pair) {
        int k = 0;
        snprintf(r_cpu, sizeof r_cpu, "%ld", (r_cpu_ms + 999) / 1000);
        snprintf(r_as, sizeof r_as, "%ld", r_mem_kb * 4 > 16777216 ? r_mem_kb * 4 : 16777216);
        snprintf(r_fs, sizeof r_fs, "%ld", r_fsize_kb);
        snprintf(r_np, sizeof r_np, "%ld", r_nproc);
        snprintf(r_nf, sizeof r_nf, "%ld", r_nofile);
        snprintf(r_st, sizeof r_st, "%ld", r_mem_kb);
        snprintf(r_sz, sizeof r_sz, "%ld", (r_fsize_kb + 1024) * 1024L * 2);
        rav[k++] = INNER; rav[k++] = "2";
        rav[k++] = r_cpu; rav[k++] = r_as; rav[k++] = r_fs; rav[k++] = r_np; rav[k++] = r_nf; rav[k++] = r_st;
        rav[k++] = "--";
        if (k + argc - run_cmd_at >= (int)(sizeof rav / sizeof rav[0])) die("too many arguments");
        for (int i = run_cmd_at; i < argc; i++) rav[k++] = argv[i];
        rav[k] = NULL;
    }
    char tmpdir_env[PATH_MAX + 8];
    snprintf(tmpdir_env, sizeof tmpdir_env, "TMPDIR=%s", workdir);
    char *envp[] = {"PATH=/usr/bin:/bin", "LANG=C.UTF-8", use_ns ? "TMPDIR=/tmp" : tmpdir_env, NULL};

    /* plain mode has no private /box: the run may not write into the slot dir */
    if (!use_ns && is_run) chmod(workdir, 02750);

    /* orphans of the sandbox are reparented to us and reaped below, not left to init */
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    int direct = use_ns && !box_bwrap && direct_root_ready();
    int slot_tree = -1, run_trees[MAX_RUN_FILES];
    if (direct) {
        slot_tree = open_tree(slot_fd, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH);
        if (slot_tree < 0) direct = 0;
        for (int i = 0; direct && i < n_run_files; i++) {
            run_trees[i] = open_tree(run_fds[i], "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH);
            if (run_trees[i] < 0) direct = 0;
        }
    }
    const char *via = !use_ns ? "plain" : direct ? "direct" : "bwrap";
    char direct_failed[200] = "";
    int out_pipe[2], err_pipe[2], js_pipe[2], cout_pipe[2] = {-1, -1}, go_pipe[2] = {-1, -1};
    if (is_pair && !direct) unsupported("compile-run needs the launcher's own namespaces");
    if (is_pair && (pipe2(cout_pipe, O_CLOEXEC) || pipe2(go_pipe, O_CLOEXEC))) die("pipe");
    /* this launcher and the step it starts run on the claimed CPU (inherited through clone) */
    int cpu_lock = -1;
    int on_cpu = is_probe ? -1 : claim_cpu(slot, &cpu_lock);
    /* a step without a CPU of its own still gets no more than one CPU's worth (v2: cpu.max) */
    if (!is_probe && on_cpu < 0) cgroup_one_cpu();
    char buf[65536], js[1024];
    size_t js_len = 0;
    long t0, deadline;
    pid_t child;
    for (;;) {
        if (pipe2(out_pipe, O_CLOEXEC) || pipe2(err_pipe, O_CLOEXEC) || pipe2(js_pipe, O_CLOEXEC)) die("pipe");
        t0 = now_ms();
        deadline = t0 + wall_ms;
        child = -1;
        if (direct) {
            child = spawn(CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS | (netns_fd >= 0 ? 0 : CLONE_NEWNET));
            /* root may not make namespaces here (a container without CAP_SYS_ADMIN): bubblewrap */
            if (child < 0) { direct = 0; via = "bwrap"; }
        }
        if (!direct) child = spawn(0);
        if (child < 0) die("fork");
        if (child == 0) {
            if (cpu_lock >= 0) close(cpu_lock);  /* the claim is the launcher's, not the sandbox's */
            if (cgroup_join()) _exit(124);
            /* Apache ignores SIGPIPE and SIGXFSZ, and ignored signals survive exec: reset them */
            for (int sig = 1; sig < NSIG; sig++) signal(sig, SIG_DFL);
            sigset_t none;
            sigemptyset(&none);
            sigprocmask(SIG_SETMASK, &none, NULL);
            umask(022);
            if (chdir(workdir)) _exit(120);
            dup2(out_pipe[1], 1);
            dup2(err_pipe[1], 2);
            if (use_ns) dup2(js_pipe[1], 3); else close(3);
            /* join the shared empty network namespace while still root; without it bwrap makes one */
            if (netns_fd >= 0 && setns(netns_fd, CLONE_NEWNET) != 0) _exit(123);
            if (direct) {
                /* after joining the step's cgroups, so that the sandbox sees them as its root */
                unshare(CLONE_NEWCGROUP);
                prctl(PR_SET_PDEATHSIG, SIGKILL);
                struct direct_plan plan = {is_run, slot_tree, n_run_files, run_trees, run_files, av + inner_at, a_sz,
                                           uid, gid, is_pair ? rav : NULL, r_sz, cout_pipe[1], go_pipe[0]};
                direct_init(&plan);
            }
            /* nothing of the engine leaks: fds above 3 close on exec, env is cleared */
            if (become_slot_user(uid, gid)) _exit(121);
            prctl(PR_SET_PDEATHSIG, SIGKILL);
            prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
            execve(av[0], av, envp);
            _exit(122);
        }
        close(out_pipe[1]);
        close(err_pipe[1]);
        close(js_pipe[1]);
        if (is_pair) { close(cout_pipe[1]); close(go_pipe[0]); }
        if (!direct) break;
        /* the direct sandbox says it is up before anything of the step runs; if it could not
           be built (a mount refused here), the step runs in bubblewrap instead */
        while (!memchr(js, '\n', js_len) && now_ms() < deadline) {
            struct pollfd jp = {js_pipe[0], POLLIN, 0};
            if (poll(&jp, 1, (int)(deadline - now_ms())) <= 0) continue;
            ssize_t got = read(js_pipe[0], js + js_len, sizeof js - 1 - js_len);
            if (got <= 0) break;
            js_len += (size_t)got;
        }
        js[js_len] = 0;
        if (strstr(js, "child-pid") || now_ms() >= deadline) break;
        snprintf(direct_failed, sizeof direct_failed, "%.*s", (int)strcspn(js, "\n"), js);
        while (waitpid(child, NULL, 0) < 0 && errno == EINTR) {}
        if (is_pair) unsupported(direct_failed);
        close(out_pipe[0]);
        close(err_pipe[0]);
        close(js_pipe[0]);
        js_len = 0;
        direct = 0;
        via = "bwrap";
    }

    /* pump output with caps, until both pipes close or the wall clock runs out */
    int pidfd = (int)syscall(SYS_pidfd_open, child, 0);
    /* stdout, stderr, the status pipe, (compile-run) the compiler's output, the child */
    struct pollfd pf[5] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}, {js_pipe[0], POLLIN, 0},
                           {cout_pipe[0], POLLIN, 0}, {pidfd, POLLIN, 0}};
    int exited = 0;
    long written[3] = {0, 0, 0};
    int wst = 0;
    int open_n = is_pair ? 4 : 3, timed_out = 0, out_limit = 0, killed = 0;
    int cpu_exceeded = 0;
    /* compile-run: 0 compiling, 1 running, 2 compiled and not run; the compile's figures */
    int phase = 0;
    long c_exit = -1, c_wall = 0, c_cpu = 0, c_peak = -1, c_oom = 0;
    long c_out_bytes = out_bytes;
    while (open_n > 0) {
        long left = deadline - now_ms();
        if (left <= 0) { timed_out = 1; break; }
        /* the CPU limit binds the step's processes together (RLIMIT_CPU binds each one):
           with cpuacct, look every 20 ms */
        if (cg_on && !is_probe) {
            long used = cg_cpu_ms();
            if (used > cpu_ms + 100) { timed_out = 1; cpu_exceeded = 1; break; }
            if (left > 20) left = 20;
        }
        /* once the child is gone, drain what is buffered and stop (a background child of
           the plain mode may hold the pipes open) */
        int r = poll(pf, exited ? 4 : 5, exited ? 0 : (int)left);
        if (r < 0) { if (errno == EINTR) continue; break; }
        if (r == 0 && exited) break;
        if (!exited && pidfd >= 0 && (pf[4].revents & POLLIN)) exited = 1;
        for (int i = 0; i < 4; i++) {
            if (pf[i].fd < 0 || !(pf[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            ssize_t got = read(pf[i].fd, buf, sizeof buf);
            if (got <= 0) { close(pf[i].fd); pf[i].fd = -1; open_n--; continue; }
            if (i == 2) {
                size_t c = (size_t)got < sizeof js - 1 - js_len ? (size_t)got : sizeof js - 1 - js_len;
                memcpy(js + js_len, buf, c);
                js_len += c;
                js[js_len] = 0;
                char *ce = phase == 0 && is_pair ? strstr(js, "\"compile-exit\"") : NULL;
                if (ce && strchr(ce, '\n')) {
                    /* the compile is over: its figures, then the run's limits, then the go-ahead */
                    c_exit = strtol(strchr(ce, ':') + 1, NULL, 10);
                    c_wall = now_ms() - t0;
                    c_cpu = cg_cpu_ms();
                    c_oom = cg_oom_kills() - oom_before;
                    c_peak = cg_on ? cg_peak_kb() : -1;
                    phase = 2;
                    if (c_exit == 0 && c_oom == 0) {
                        cgroup_setup(slot, "run", r_mem_kb, r_nproc + 4);
                        /* the run must not start outside its limits */
                        if (!cg_on || cgroup_move(child)) { kill(child, SIGKILL); die("the run's cgroup"); }
                        oom_before = cg_oom_kills();
                        cpu_ms = r_cpu_ms;
                        out_bytes = r_out_bytes;
                        nproc = r_nproc;
                        t0 = now_ms();
                        deadline = t0 + r_wall_ms;
                        phase = 1;
                    }
                    /* (a sandbox already gone is seen when its pipes close) */
                    if (write(go_pipe[1], phase == 1 ? "r" : "x", 1) != 1) {}
                }
                continue;
            }
            /* stdout and stderr go to fds 1 and 2, the compiler's output (compile-run) to fd 4 */
            long cap = i == 3 ? c_out_bytes : out_bytes;
            long room = cap - written[i == 3 ? 2 : i];
            long w = got < room ? got : (room > 0 ? room : 0);
            if (w > 0) {
                ssize_t off = 0;
                while (off < w) { ssize_t k = write(i == 3 ? 4 : i + 1, buf + off, w - off); if (k <= 0) break; off += k; }
                written[i == 3 ? 2 : i] += w;
            }
            if (got > room) { out_limit = 1; break; }
        }
        if (out_limit) break;
    }
    if (timed_out || out_limit) { kill(child, SIGKILL); killed = 1; }
    else if (!exited) {
        /* pipes closed but the child still runs (usually: it closed them on its way out and
           the kernel is still tearing its namespaces down, some tens of us): wait on the
           pidfd within the wall clock. (A 1 ms sleep-and-look here cost half the launches
           a whole millisecond.) Without a pidfd (kernel < 5.3), look every millisecond. */
        for (;;) {
            siginfo_t si;
            memset(&si, 0, sizeof si);
            if (waitid(P_PID, child, &si, WEXITED | WNOHANG | WNOWAIT) != 0 || si.si_pid != 0) break;
            long left = deadline - now_ms();
            if (left <= 0) { kill(child, SIGKILL); killed = 1; timed_out = 1; break; }
            struct pollfd xp = {pidfd, POLLIN, 0};
            if (pidfd < 0) usleep(1000);
            else if (poll(&xp, 1, (int)left) < 0 && errno != EINTR) usleep(1000);
        }
    }
    js[js_len] = 0;

    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    while (wait4(child, &wst, 0, &ru) < 0 && errno == EINTR) {}
    long wall = now_ms() - t0;
    kill_user(uid, gid);
    alarm(2);
    while (waitpid(-1, NULL, __WALL) > 0 || errno == EINTR) {}
    alarm(0);
    for (int i = 0; i < 4; i++) if (pf[i].fd >= 0) close(pf[i].fd);
    /* nothing of this step reaches the next one (the slot user has no process left); a
       compile-run keeps the compiled binary, which the run could not reach */
    if (!is_probe) empty_dir(workdir, is_run ? NULL : "prog", 0, uid);
    if (!use_ns) {
        chmod(workdir, 02770);
        empty_dir("/tmp", NULL, 1, uid);
        empty_dir("/var/tmp", NULL, 1, uid);
        empty_dir("/dev/shm", NULL, 1, uid);
        remove_ipc(uid);
    }

    long cpu = ru.ru_utime.tv_sec * 1000L + ru.ru_utime.tv_usec / 1000 + ru.ru_stime.tv_sec * 1000L + ru.ru_stime.tv_usec / 1000;
    long mem = ru.ru_maxrss;
    /* compile-run: the run's own maximum resident size (the rusage above has the compiler's) */
    char *rss = is_pair ? strstr(js, "\"maxrss\"") : NULL;
    if (is_pair) mem = rss ? strtol(strchr(rss, ':') + 1, NULL, 10) : 0;
    long oom = cg_oom_kills() - oom_before;
    long peak = -1;
    if (cg_on) {
        peak = cg_peak_kb();
        long cg_cpu_used = cg_cpu_ms();
        if (cg_cpu_used >= 0) cpu = cg_cpu_used;
    }

    int code = -1, sig = 0, started = 1;
    if (use_ns && !killed) {
        /* bwrap reports {"child-pid": N} once the sandbox is up, then {"exit-code": N} */
        started = strstr(js, "child-pid") != NULL;
        char *e = strstr(js, "\"exit-code\"");
        if (e && (e = strchr(e, ':'))) {
            int x = atoi(e + 1);
            if (x > 128 && x < 128 + 65) sig = x - 128; else code = x;
        } else if (WIFEXITED(wst)) {
            int x = WEXITSTATUS(wst);
            if (x > 128 && x < 128 + 65) sig = x - 128; else code = x;
        } else if (WIFSIGNALED(wst)) sig = WTERMSIG(wst);
    } else if (!killed) {
        if (WIFEXITED(wst)) code = WEXITSTATUS(wst);
        else if (WIFSIGNALED(wst)) sig = WTERMSIG(wst);
        if (code >= 120 && code <= 124 && written[0] == 0 && written[1] == 0) started = 0;
    }
    if (is_pair && strstr(js, "run-setup-error")) started = 0;
    const char *status = !started ? "setup_error" : timed_out ? "timeout" : out_limit ? "output_limit" : sig ? "signaled" : "exited";
    if (is_probe) status = (started && code == 0) ? "ok" : "setup_error";
    /* compile-run: the compile's figures; the run's status is "not_run" unless the compile
       succeeded (when a step was cut short in the compile, the flags above are the compile's) */
    char compile_js[400] = "";
    if (is_pair) {
        const char *c_status = status;
        int c_sig = 0, c_code = (int)c_exit;
        if (phase == 0) {
            c_wall = wall;
            c_cpu = cpu;
            c_peak = peak;
            c_oom = oom;
            c_code = -1;
        } else {
            if (c_exit > 128 && c_exit < 128 + 65) { c_sig = (int)(c_exit - 128); c_code = -1; }
            c_status = c_sig ? "signaled" : "exited";
        }
        snprintf(compile_js, sizeof compile_js,
                 ",\"compile\":{\"status\":\"%s\",\"exit\":%d,\"signal\":%d,\"cpu_ms\":%ld,\"wall_ms\":%ld,"
                 "\"peak_kb\":%ld,\"oom\":%ld,\"cpu_limit\":%d,\"output_bytes\":%ld}",
                 c_status, c_code, c_sig, c_cpu, c_wall, c_peak, c_oom, phase == 0 ? cpu_exceeded : 0, written[2]);
        if (phase != 1) status = "not_run";
    }
    /* why the direct sandbox could not be built, for the engine's log (JSON-safe: quotes dropped) */
    for (char *c = direct_failed; *c; c++) if (*c == '"' || *c == '\\' || (unsigned char)*c < 0x20) *c = '\'';
    dprintf(status_fd,
            "{\"status\":\"%s\",\"exit\":%d,\"signal\":%d,\"cpu_ms\":%ld,\"wall_ms\":%ld,\"mem_kb\":%ld,"
            "\"peak_kb\":%ld,\"oom\":%ld,\"cpu_limit\":%d,\"cgroup\":%d,\"ns\":%d,\"via\":\"%s\","
            "\"direct_failed\":\"%s\",\"nproc\":%ld,\"stdout_bytes\":%ld,\"stderr_bytes\":%ld,\"on_cpu\":%d,"
            "\"cgroups\":\"%s\"%s}\n",
            status, code, sig, cpu, wall, mem, peak, oom, cpu_exceeded, cg_on, use_ns, via, direct_failed, nproc,
            written[0], written[1], on_cpu, cg_kind_name[is_probe || cg_on ? cg_kind : CG_NONE], compile_js);
    return 0;
}
