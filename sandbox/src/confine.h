/*
 * confine.h: the last steps before a sandboxed command, taken inside its namespaces as the
 * slot's user: the rlimits, the seccomp filter (level 1: compile, level 2: run), no
 * inherited descriptor, a clean environment, then exec. Used by prutor-run (the inner
 * launcher that bubblewrap starts) and by prutor-box itself in the namespaces it makes
 * directly, where it saves an exec and a dynamic link of every step.
 *
 * confine_exec(argc, argv, tmpdir) takes prutor-run's argv:
 *   NAME LEVEL CPU_S AS_KB FSIZE_KB NPROC NOFILE STACK_KB -- CMD [ARG...]
 * and returns only if it cannot run CMD (125: bad limits, 126: seccomp, 127: exec).
 */
#ifndef PRUTOR_CONFINE_H
#define PRUTOR_CONFINE_H
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "syscalls.h"

static void lim(int res, rlim_t soft, rlim_t hard)
{
    struct rlimit r = {soft, hard};
    if (setrlimit(res, &r) != 0) {
        perror("prutor-run: setrlimit");
        _exit(125);
    }
}

/*
 * The seccomp filter of a step, built from the table in syscalls.h: everything not listed
 * fails with ENOSYS, the listed calls are allowed, refused with an errno or kill the step;
 * a call through a non-native ABI (int 0x80, x32) kills it too.
 *
 * The BPF program is written here, not by libseccomp (whose header only names the calls):
 * libseccomp took 1.4-1.9 ms to build this filter, in every launch (a run step costs 4 ms
 * in all); writing it takes microseconds. Its shape is a list: per call "if nr == N return
 * ACTION", or a small block that reads the arguments. Kernels since 5.11 cache per call
 * what a filter answers without reading arguments, so an allowed call does not run it.
 */
#if defined(__x86_64__)
#define CONFINE_ARCH AUDIT_ARCH_X86_64
#define CONFINE_X32_BIT 0x40000000u /* __X32_SYSCALL_BIT: the x32 ABI's calls */
#elif defined(__aarch64__)
#define CONFINE_ARCH AUDIT_ARCH_AARCH64
#define CONFINE_X32_BIT 0u
#else
#error "confine.h: the seccomp filter knows x86_64 and aarch64 only"
#endif
#define CONFINE_KILL SECCOMP_RET_KILL_PROCESS
#define CONFINE_ALLOW SECCOMP_RET_ALLOW
#define CONFINE_ERRNO(e) (SECCOMP_RET_ERRNO | ((e) & SECCOMP_RET_DATA))
/* an argument's low and high 32-bit words (both architectures are little-endian) */
#define CONFINE_ARG_LO(i) (offsetof(struct seccomp_data, args) + 8 * (i))
#define CONFINE_ARG_HI(i) (offsetof(struct seccomp_data, args) + 8 * (i) + 4)

struct confine_call {
    int profiles, nr, err;
};
#define CONFINE_CALL(family, profiles, name) {profiles, SCMP_SYS(name), 0},
#define CONFINE_CALL_ERRNO(family, profiles, name, err) {profiles, SCMP_SYS(name), err},
static const struct confine_call confine_allow[] = {SYSCALLS_ALLOW(CONFINE_CALL)};
static const struct confine_call confine_errno[] = {SYSCALLS_ERRNO(CONFINE_CALL_ERRNO)};
static const struct confine_call confine_kill[] = {SYSCALLS_KILL(CONFINE_CALL)};
static const struct confine_call confine_args[] = {SYSCALLS_ARGS(CONFINE_CALL)};
#undef CONFINE_CALL
#undef CONFINE_CALL_ERRNO

#ifndef PR_SET_VMA
#define PR_SET_VMA 0x53564d41
#endif
#define CONFINE_TCGETS2 _IOR('T', 0x2A, char[44]) /* TCGETS2 (struct termios2: 44 bytes) */

struct confine_bpf {
    struct sock_filter f[1024];
    unsigned n;
    int bad;
    unsigned char seen[128]; /* one bit per call number: a call listed twice is an error */
};

static void bpf_put(struct confine_bpf *b, uint16_t code, uint32_t k, uint8_t jt, uint8_t jf)
{
    if (b->n >= sizeof b->f / sizeof b->f[0]) { b->bad = 1; return; }
    b->f[b->n++] = (struct sock_filter)BPF_JUMP(code, k, jt, jf);
}

/* "if nr == N": the block that follows (until bpf_end) runs for N only */
static unsigned bpf_call(struct confine_bpf *b, int nr)
{
    if (nr < 0 || nr >= (int)sizeof b->seen * 8 || (b->seen[nr / 8] & (1 << (nr % 8)))) b->bad = 1;
    else b->seen[nr / 8] |= 1 << (nr % 8);
    bpf_put(b, BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)nr, 0, 0);
    return b->n - 1;
}
static void bpf_end(struct confine_bpf *b, unsigned at)
{
    unsigned len = b->n - at - 1;
    if (len > 255) b->bad = 1;
    else b->f[at].jf = (uint8_t)len;
}

/* A call allowed for some values of one argument's low 32 bits (the kernel reads an int
   there): `allow` values are allowed, `special` ones get `special_action`, others `other` */
static void bpf_values(struct confine_bpf *b, int nr, int arg, const uint32_t *allow, unsigned n_allow,
                       const uint32_t *special, unsigned n_special, uint32_t special_action, uint32_t other)
{
    unsigned at = bpf_call(b, nr), m = n_allow + n_special;
    bpf_put(b, BPF_LD | BPF_W | BPF_ABS, CONFINE_ARG_LO(arg), 0, 0);
    for (unsigned j = 0; j < m; j++) /* then: RET other (m), RET ALLOW (m + 1), RET special (m + 2) */
        bpf_put(b, BPF_JMP | BPF_JEQ | BPF_K, j < n_allow ? allow[j] : special[j - n_allow],
                (uint8_t)(j < n_allow ? m - j : m + 1 - j), 0);
    bpf_put(b, BPF_RET | BPF_K, other, 0, 0);
    bpf_put(b, BPF_RET | BPF_K, CONFINE_ALLOW, 0, 0);
    if (n_special) bpf_put(b, BPF_RET | BPF_K, special_action, 0, 0);
    bpf_end(b, at);
}

/* The calls of SYSCALLS_ARGS */
static void confine_arg_rules(struct confine_bpf *b, int profile, int exec_any, const char *cmd0)
{
    /* clone: a new thread or process, never a new namespace (the kernel reads the low 32
       bits of the flags; clone3 hides its flags in memory the filter cannot read: ENOSYS,
       glibc falls back to clone) */
    unsigned at = bpf_call(b, SCMP_SYS(clone));
    bpf_put(b, BPF_LD | BPF_W | BPF_ABS, CONFINE_ARG_LO(0), 0, 0);
    bpf_put(b, BPF_JMP | BPF_JSET | BPF_K,
            CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET, 0, 1);
    bpf_put(b, BPF_RET | BPF_K, CONFINE_KILL, 0, 0);
    bpf_put(b, BPF_RET | BPF_K, CONFINE_ALLOW, 0, 0);
    bpf_end(b, at);
    /* execve: the compile step starts cc1, as, ld; a run step may exec exactly once, this
       execve of its own command, recognised by its pathname pointer (all 64 bits) */
    at = bpf_call(b, SCMP_SYS(execve));
    if (!exec_any) {
        uint64_t p = (uint64_t)(uintptr_t)cmd0;
        bpf_put(b, BPF_LD | BPF_W | BPF_ABS, CONFINE_ARG_LO(0), 0, 0);
        bpf_put(b, BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)p, 0, 3);
        bpf_put(b, BPF_LD | BPF_W | BPF_ABS, CONFINE_ARG_HI(0), 0, 0);
        bpf_put(b, BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)(p >> 32), 0, 1);
        bpf_put(b, BPF_RET | BPF_K, CONFINE_ALLOW, 0, 0);
        bpf_put(b, BPF_RET | BPF_K, CONFINE_KILL, 0, 0);
    } else {
        bpf_put(b, BPF_RET | BPF_K, CONFINE_ALLOW, 0, 0);
    }
    bpf_end(b, at);
    /* personality: the query (0xffffffff) and the default (PER_LINUX); any change is killed */
    static const uint32_t persona[] = {0, 0xffffffffu};
    bpf_values(b, SCMP_SYS(personality), 0, persona, 2, NULL, 0, 0, CONFINE_KILL);
    /* no socket at all (an AF_UNIX one could reach a concurrent sandbox's abstract socket
       through the shared network namespace, or a host's service in plain mode): socket
       fails for AF_UNIX (EACCES: glibc then does without nscd, as when Python's site looks
       the user up) and kills for any other family; socketpair, which reaches nothing, is
       allowed for AF_UNIX */
    static const uint32_t unix_only[] = {AF_UNIX};
    bpf_values(b, SCMP_SYS(socket), 0, NULL, 0, unix_only, 1, CONFINE_ERRNO(EACCES),
               profile == S_MANAGED ? CONFINE_ERRNO(EACCES) : CONFINE_KILL);
    bpf_values(b, SCMP_SYS(socketpair), 0, unix_only, 1, NULL, 0, 0, CONFINE_KILL);
    /* ioctl: terminal and descriptor queries (isatty, the window size, bytes to read, the
       non-blocking and close-on-exec flags); TIOCSTI (typing into a terminal) is killed,
       any other request fails as on a file that does not know it (ENOTTY) */
    static const uint32_t ioctls[] = {TCGETS, CONFINE_TCGETS2, TIOCGWINSZ, TIOCGPGRP, FIONREAD, FIONBIO, FIOCLEX, FIONCLEX};
    static const uint32_t tiocsti[] = {TIOCSTI};
    bpf_values(b, SCMP_SYS(ioctl), 1, ioctls, sizeof ioctls / sizeof ioctls[0], tiocsti, 1, CONFINE_KILL, CONFINE_ERRNO(ENOTTY));
    /* prctl: thread and mapping names, the death signal, no_new_privs and reads; any other
       option (PR_SET_MM, PR_SET_PTRACER, PR_SET_SECCOMP, ...) fails as an unknown one (EINVAL) */
    static const uint32_t prctls[] = {PR_SET_NAME, PR_GET_NAME, PR_SET_VMA, PR_SET_PDEATHSIG, PR_GET_PDEATHSIG,
                                      PR_GET_DUMPABLE, PR_SET_NO_NEW_PRIVS, PR_GET_NO_NEW_PRIVS, PR_CAPBSET_READ,
                                      PR_GET_SECCOMP, PR_GET_TIMERSLACK, PR_SET_TIMERSLACK};
    bpf_values(b, SCMP_SYS(prctl), 0, prctls, sizeof prctls / sizeof prctls[0], NULL, 0, 0, CONFINE_ERRNO(EINVAL));
}

static void confine_table(struct confine_bpf *b, int profile, const struct confine_call *t, size_t n, uint32_t action)
{
    for (size_t i = 0; i < n; i++) {
        if (!(t[i].profiles & profile) || t[i].nr < 0) continue; /* not this step's, or not on this architecture */
        unsigned at = bpf_call(b, t[i].nr);
        bpf_put(b, BPF_RET | BPF_K, action ? action : CONFINE_ERRNO(t[i].err), 0, 0);
        bpf_end(b, at);
    }
}

/* Writes the filter of a step: S_COMPILE, S_NATIVE, S_INTERP or S_MANAGED (syscalls.h);
   exec_any: any number of execve (a compile step), else only cmd0, the pathname pointer of
   the run's one execve. 0, or -1 if the table is inconsistent (a call listed twice, the
   program too long) */
static int confine_build(struct confine_bpf *b, int profile, int exec_any, const char *cmd0)
{
    memset(b, 0, sizeof *b);
    bpf_put(b, BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch), 0, 0);
    bpf_put(b, BPF_JMP | BPF_JEQ | BPF_K, CONFINE_ARCH, 1, 0);
    bpf_put(b, BPF_RET | BPF_K, CONFINE_KILL, 0, 0); /* i386 (int 0x80) on x86_64, arm32 on aarch64 */
    bpf_put(b, BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr), 0, 0);
    if (CONFINE_X32_BIT) {
        bpf_put(b, BPF_JMP | BPF_JSET | BPF_K, CONFINE_X32_BIT, 0, 1);
        bpf_put(b, BPF_RET | BPF_K, CONFINE_KILL, 0, 0);
    }
    /* the most frequent first, for kernels that run the filter on every call */
    confine_table(b, profile, confine_allow, sizeof confine_allow / sizeof confine_allow[0], CONFINE_ALLOW);
    confine_arg_rules(b, profile, exec_any, cmd0);
    for (size_t i = 0; i < sizeof confine_args / sizeof confine_args[0]; i++) /* each has its rule above */
        if (confine_args[i].nr >= 0 && !(b->seen[confine_args[i].nr / 8] & (1 << (confine_args[i].nr % 8)))) b->bad = 1;
    confine_table(b, profile, confine_errno, sizeof confine_errno / sizeof confine_errno[0], 0);
    confine_table(b, profile, confine_kill, sizeof confine_kill / sizeof confine_kill[0], CONFINE_KILL);
    bpf_put(b, BPF_RET | BPF_K, CONFINE_ERRNO(ENOSYS), 0, 0);
    return b->bad ? -1 : 0;
}

static int confine_filter(int profile, int exec_any, const char *cmd0)
{
    static struct confine_bpf b;
    if (confine_build(&b, profile, exec_any, cmd0) != 0) return -1;
    struct sock_fprog prog = {.len = (unsigned short)b.n, .filter = b.f};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -1;
    return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
}

static int confine_exec(int argc, char **argv, const char *tmpdir)
{
    if (argc < 10 || strcmp(argv[8], "--") != 0) {
        fprintf(stderr, "prutor-run: usage\n");
        return 125;
    }
    int level = atoi(argv[1]);
    rlim_t cpu = strtoul(argv[2], NULL, 10), as = strtoul(argv[3], NULL, 10) * 1024,
           fsize = strtoul(argv[4], NULL, 10) * 1024, nproc = strtoul(argv[5], NULL, 10),
           nofile = strtoul(argv[6], NULL, 10), stack = strtoul(argv[7], NULL, 10) * 1024;
    char **cmd = argv + 9;

    lim(RLIMIT_CORE, 0, 0);
    if (level > 0) {
        lim(RLIMIT_CPU, cpu, cpu + 1);
        lim(RLIMIT_AS, as, as);
        lim(RLIMIT_FSIZE, fsize, fsize);
        lim(RLIMIT_NPROC, nproc, nproc);
        lim(RLIMIT_NOFILE, nofile, nofile);
        lim(RLIMIT_STACK, stack, stack);
        lim(RLIMIT_MEMLOCK, 0, 0);
        lim(RLIMIT_MSGQUEUE, 0, 0);
    }
    /* nothing but stdin, stdout and stderr reaches the command (close_range needs
       Linux 5.9; older kernels get the loop, and an fd that stays open stops the run) */
    if (syscall(SYS_close_range, 3, ~0U, 0) != 0) {
        long max = sysconf(_SC_OPEN_MAX);
        for (long fd = 3; fd < (max > 0 ? max : 65536); fd++) close((int)fd);
        if (fcntl(3, F_GETFD) != -1) {
            fprintf(stderr, "prutor-run: cannot close inherited descriptors\n");
            _exit(125);
        }
    }

    char *envp[] = {"PATH=/usr/bin:/bin", "LANG=C.UTF-8", NULL, NULL};
    char tmp[4200];
    if (tmpdir) {
        snprintf(tmp, sizeof tmp, "TMPDIR=%s", tmpdir);
        envp[2] = tmp;
    }

    if (level > 0) {
        /* a managed runtime's step (the JVM, Node.js) gets its own profile; else the run step
           of a program under /usr is an interpreter's (python3), of ./prog a compiled
           binary's (syscalls.h) */
        static const char *const managed[] = MANAGED_RUNTIMES;
        int is_managed = 0;
        for (int i = 0; managed[i]; i++) is_managed |= strcmp(cmd[0], managed[i]) == 0;
        int profile = is_managed ? S_MANAGED : level == 1 ? S_COMPILE : strncmp(cmd[0], "/usr/", 5) == 0 ? S_INTERP : S_NATIVE;
        if (confine_filter(profile, level == 1, cmd[0]) != 0) {
            fprintf(stderr, "prutor-run: seccomp\n");
            _exit(126);
        }
    }
    execve(cmd[0], cmd, envp);
    fprintf(stderr, "prutor-run: cannot run %s: %s\n", cmd[0], strerror(errno));
    return 127;
}

#endif
