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
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

static void lim(int res, rlim_t soft, rlim_t hard)
{
    struct rlimit r = {soft, hard};
    if (setrlimit(res, &r) != 0) {
        perror("prutor-run: setrlimit");
        _exit(125);
    }
}

static const int deny_always[] = {
    SCMP_SYS(ptrace), SCMP_SYS(process_vm_readv), SCMP_SYS(process_vm_writev), SCMP_SYS(mount),
    SCMP_SYS(umount2), SCMP_SYS(pivot_root), SCMP_SYS(chroot), SCMP_SYS(unshare), SCMP_SYS(setns),
    SCMP_SYS(keyctl), SCMP_SYS(add_key), SCMP_SYS(request_key), SCMP_SYS(bpf), SCMP_SYS(perf_event_open),
    SCMP_SYS(userfaultfd), SCMP_SYS(kexec_load), SCMP_SYS(kexec_file_load), SCMP_SYS(init_module),
    SCMP_SYS(finit_module), SCMP_SYS(delete_module), SCMP_SYS(reboot), SCMP_SYS(swapon), SCMP_SYS(swapoff),
    SCMP_SYS(settimeofday), SCMP_SYS(clock_settime), SCMP_SYS(sethostname), SCMP_SYS(setdomainname),
    SCMP_SYS(iopl), SCMP_SYS(ioperm), SCMP_SYS(io_uring_setup), SCMP_SYS(io_uring_enter),
    SCMP_SYS(io_uring_register), SCMP_SYS(open_by_handle_at), SCMP_SYS(name_to_handle_at),
    SCMP_SYS(fanotify_init), SCMP_SYS(quotactl), SCMP_SYS(acct), SCMP_SYS(lookup_dcookie),
    SCMP_SYS(socket), SCMP_SYS(connect), SCMP_SYS(bind), SCMP_SYS(listen), SCMP_SYS(accept),
    SCMP_SYS(accept4), SCMP_SYS(sendto), SCMP_SYS(sendmsg), SCMP_SYS(recvfrom), SCMP_SYS(recvmsg),
    SCMP_SYS(vhangup), SCMP_SYS(personality), SCMP_SYS(fsopen), SCMP_SYS(fsmount), SCMP_SYS(move_mount),
    SCMP_SYS(open_tree), SCMP_SYS(mount_setattr),
};

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
        scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
        if (!ctx) _exit(126);
        for (size_t i = 0; i < sizeof deny_always / sizeof deny_always[0]; i++)
            if (deny_always[i] >= 0) seccomp_rule_add(ctx, SCMP_ACT_KILL_PROCESS, deny_always[i], 0);
        /* new namespaces from clone are refused; clone3 hides its flags, so glibc falls back to clone */
        seccomp_rule_add(ctx, SCMP_ACT_KILL_PROCESS, SCMP_SYS(clone), 1,
                         SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_NEWUSER, CLONE_NEWUSER));
        seccomp_rule_add(ctx, SCMP_ACT_KILL_PROCESS, SCMP_SYS(clone), 1,
                         SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_NEWNS, CLONE_NEWNS));
        seccomp_rule_add(ctx, SCMP_ACT_KILL_PROCESS, SCMP_SYS(clone), 1,
                         SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_NEWNET, CLONE_NEWNET));
        seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
        /* the step keeps the CPU its launcher claimed: its threads may not spread over the host */
        seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(sched_setaffinity), 0);
        if (level >= 2) {
            /* the run step may exec exactly once: this execve, recognised by its pathname pointer */
            seccomp_rule_add(ctx, SCMP_ACT_KILL_PROCESS, SCMP_SYS(execve), 1,
                             SCMP_A0(SCMP_CMP_NE, (scmp_datum_t)(uintptr_t)cmd[0]));
            seccomp_rule_add(ctx, SCMP_ACT_KILL_PROCESS, SCMP_SYS(execveat), 0);
        }
        if (seccomp_load(ctx) != 0) {
            fprintf(stderr, "prutor-run: seccomp\n");
            _exit(126);
        }
        seccomp_release(ctx);
    }
    execve(cmd[0], cmd, envp);
    fprintf(stderr, "prutor-run: cannot run %s: %s\n", cmd[0], strerror(errno));
    return 127;
}

#endif
