/*
 * syscalls.h: the one table of the seccomp allow-list (confine.h builds the filter from it;
 * sandbox/README.md describes it; sandbox/test.sh tries every refused family).
 *
 * A step gets one of four profiles:
 *   S_COMPILE  the compile step (gcc, cc1, as, collect2, ld; python3 -m py_compile) and
 *              Jobe's runs, which run in the compile step's mode (exec allowed)
 *   S_NATIVE   the run step of a compiled binary (./prog): C and C++
 *   S_INTERP   the run step of an interpreter under /usr (python3)
 *   S_MANAGED  any step of a managed runtime (MANAGED_RUNTIMES: the JVM, Node.js), which
 *              probes the host at start: an interpreter's calls, but a socket of any family
 *              fails (EACCES) instead of killing (the JVM's java.net probes IPv6 with one) and
 *              io_uring is refused (ENOSYS: libuv falls back to its thread pool); in a
 *              compile step (javac; Jobe's runs) exec is allowed as in S_COMPILE
 * Anything not in this table fails with ENOSYS (runtimes that probe for a newer call,
 * e.g. clone3, fall back to the older one). The families in SYSCALLS_KILL end the whole
 * step with SIGSYS in every profile (the verdict forbidden_syscall, Jobe's 19), as does any
 * call through a non-native ABI (i386's int 0x80, x32). A few calls are allowed only with
 * some arguments (SYSCALLS_ARGS; the rules are in confine.h).
 *
 * Each entry: X(family, profiles, name) or, for SYSCALLS_ERRNO, X(family, profiles, name,
 * errno). A name the installed libseccomp does not know on this architecture is skipped.
 */
#ifndef PRUTOR_SYSCALLS_H
#define PRUTOR_SYSCALLS_H

#define S_COMPILE 1
#define S_NATIVE 2
#define S_INTERP 4
#define S_MANAGED 8
#define S_RUN (S_NATIVE | S_INTERP | S_MANAGED)
#define S_ALL (S_COMPILE | S_NATIVE | S_INTERP | S_MANAGED)
#define S_NOT_NATIVE (S_COMPILE | S_INTERP | S_MANAGED)
#define S_NOT_MANAGED (S_COMPILE | S_NATIVE | S_INTERP)

/* The managed runtimes' programs (a step whose command is one of them gets S_MANAGED); the
   JVM is the engine's own image (engine/java/install.sh) */
#define MANAGED_RUNTIMES {"/usr/local/lib/prutor-java/jdk/bin/java", "/usr/bin/node", "/usr/bin/nodejs", NULL}

/* Allowed, with any arguments */
#define SYSCALLS_ALLOW(X)                                                                      \
    /* descriptors: I/O on what is open, pipes, waiting on descriptors */                      \
    X(descriptors, S_ALL, read) X(descriptors, S_ALL, write) X(descriptors, S_ALL, readv)       \
    X(descriptors, S_ALL, writev) X(descriptors, S_ALL, pread64) X(descriptors, S_ALL, pwrite64) \
    X(descriptors, S_ALL, preadv) X(descriptors, S_ALL, pwritev) X(descriptors, S_ALL, preadv2) \
    X(descriptors, S_ALL, pwritev2) X(descriptors, S_ALL, lseek) X(descriptors, S_ALL, close)   \
    X(descriptors, S_ALL, close_range) X(descriptors, S_ALL, dup) X(descriptors, S_ALL, dup2)   \
    X(descriptors, S_ALL, dup3) X(descriptors, S_ALL, fcntl) X(descriptors, S_ALL, flock)       \
    X(descriptors, S_ALL, fsync) X(descriptors, S_ALL, fdatasync) X(descriptors, S_ALL, ftruncate) \
    X(descriptors, S_ALL, fadvise64) X(descriptors, S_ALL, sendfile)                           \
    X(descriptors, S_ALL, copy_file_range) X(descriptors, S_ALL, pipe) X(descriptors, S_ALL, pipe2) \
    X(descriptors, S_ALL, select) X(descriptors, S_ALL, pselect6) X(descriptors, S_ALL, poll)   \
    X(descriptors, S_ALL, ppoll) X(descriptors, S_ALL, epoll_create)                           \
    X(descriptors, S_ALL, epoll_create1) X(descriptors, S_ALL, epoll_ctl)                      \
    X(descriptors, S_ALL, epoll_wait) X(descriptors, S_ALL, epoll_pwait)                       \
    X(descriptors, S_ALL, epoll_pwait2) X(descriptors, S_ALL, eventfd)                         \
    X(descriptors, S_ALL, eventfd2)                                                            \
    /* files: open, inspect, list, and change what the step may write (its tmpfs, /box) */     \
    X(files, S_ALL, open) X(files, S_ALL, openat) X(files, S_ALL, creat) X(files, S_ALL, stat) \
    X(files, S_ALL, fstat) X(files, S_ALL, lstat) X(files, S_ALL, newfstatat) X(files, S_ALL, statx) \
    X(files, S_ALL, statfs) X(files, S_ALL, fstatfs) X(files, S_ALL, access)                   \
    X(files, S_ALL, faccessat) X(files, S_ALL, faccessat2) X(files, S_ALL, readlink)           \
    X(files, S_ALL, readlinkat) X(files, S_ALL, getdents) X(files, S_ALL, getdents64)          \
    X(files, S_ALL, getcwd) X(files, S_ALL, chdir) X(files, S_ALL, fchdir) X(files, S_ALL, truncate) \
    X(files, S_ALL, unlink) X(files, S_ALL, unlinkat) X(files, S_ALL, rename)                  \
    X(files, S_ALL, renameat) X(files, S_ALL, renameat2) X(files, S_ALL, mkdir)                \
    X(files, S_ALL, mkdirat) X(files, S_ALL, rmdir) X(files, S_ALL, umask)                     \
    X(files, S_ALL, getxattr) X(files, S_ALL, lgetxattr) X(files, S_ALL, fgetxattr)            \
    X(files, S_ALL, listxattr) X(files, S_ALL, llistxattr) X(files, S_ALL, flistxattr)         \
    /* file metadata: gcc marks its output executable; Python's shutil copies modes and times; \
       a compiled C program has no use for them */                                            \
    X(file_metadata, S_NOT_NATIVE, chmod) X(file_metadata, S_NOT_NATIVE, fchmod)               \
    X(file_metadata, S_NOT_NATIVE, fchmodat) X(file_metadata, S_NOT_NATIVE, link)              \
    X(file_metadata, S_NOT_NATIVE, linkat) X(file_metadata, S_NOT_NATIVE, symlink)             \
    X(file_metadata, S_NOT_NATIVE, symlinkat) X(file_metadata, S_NOT_NATIVE, utime)            \
    X(file_metadata, S_NOT_NATIVE, utimes) X(file_metadata, S_NOT_NATIVE, utimensat)           \
    X(file_metadata, S_NOT_NATIVE, futimesat) X(file_metadata, S_NOT_NATIVE, fallocate)        \
    X(file_metadata, S_NOT_NATIVE, memfd_create)                                               \
    /* memory of the process itself */                                                         \
    X(memory, S_ALL, brk) X(memory, S_ALL, mmap) X(memory, S_ALL, munmap) X(memory, S_ALL, mremap) \
    X(memory, S_ALL, mprotect) X(memory, S_ALL, madvise) X(memory, S_ALL, mincore)             \
    X(memory, S_ALL, msync)                                                                    \
    /* System V IPC: private to the step (IPC namespace; plain mode removes it afterwards) */  \
    X(sysv_ipc, S_ALL, shmget) X(sysv_ipc, S_ALL, shmat) X(sysv_ipc, S_ALL, shmdt)             \
    X(sysv_ipc, S_ALL, shmctl) X(sysv_ipc, S_ALL, semget) X(sysv_ipc, S_ALL, semop)            \
    X(sysv_ipc, S_ALL, semtimedop) X(sysv_ipc, S_ALL, semctl) X(sysv_ipc, S_ALL, msgget)       \
    X(sysv_ipc, S_ALL, msgsnd) X(sysv_ipc, S_ALL, msgrcv) X(sysv_ipc, S_ALL, msgctl)           \
    /* threads and the C runtime's start */                                                    \
    X(threads, S_ALL, futex) X(threads, S_ALL, futex_waitv) X(threads, S_ALL, set_robust_list) \
    X(threads, S_ALL, set_tid_address) X(threads, S_ALL, rseq) X(threads, S_ALL, arch_prctl)   \
    X(threads, S_ALL, gettid) X(threads, S_ALL, sched_yield) X(threads, S_ALL, sched_getaffinity) \
    X(threads, S_ALL, sched_getparam) X(threads, S_ALL, sched_getscheduler)                    \
    X(threads, S_ALL, sched_get_priority_max) X(threads, S_ALL, sched_get_priority_min)        \
    X(threads, S_ALL, sched_rr_get_interval) X(threads, S_ALL, getcpu)                         \
    /* processes (clone and execve: SYSCALLS_ARGS); vfork: gcc starts cc1, as, ld with it */  \
    X(processes, S_ALL, fork) X(processes, S_NOT_NATIVE, vfork) X(processes, S_ALL, wait4)      \
    X(processes, S_ALL, waitid) X(processes, S_ALL, exit) X(processes, S_ALL, exit_group)      \
    X(processes, S_ALL, kill) X(processes, S_ALL, tgkill) X(processes, S_ALL, tkill)           \
    X(processes, S_ALL, getpid) X(processes, S_ALL, getppid) X(processes, S_ALL, getpgid)      \
    X(processes, S_ALL, getpgrp) X(processes, S_ALL, getsid) X(processes, S_ALL, setsid)       \
    X(processes, S_ALL, setpgid) X(processes, S_ALL, pidfd_open)                               \
    X(processes, S_ALL, pidfd_send_signal)                                                     \
    /* signals */                                                                              \
    X(signals, S_ALL, rt_sigaction) X(signals, S_ALL, rt_sigprocmask) X(signals, S_ALL, rt_sigreturn) \
    X(signals, S_ALL, rt_sigpending) X(signals, S_ALL, rt_sigsuspend)                          \
    X(signals, S_ALL, rt_sigtimedwait) X(signals, S_ALL, rt_sigqueueinfo)                      \
    X(signals, S_ALL, rt_tgsigqueueinfo) X(signals, S_ALL, sigaltstack) X(signals, S_ALL, pause) \
    X(signals, S_ALL, signalfd) X(signals, S_ALL, signalfd4) X(signals, S_ALL, restart_syscall) \
    /* time and timers (reading the clocks; setting them is killed) */                         \
    X(time, S_ALL, nanosleep) X(time, S_ALL, clock_nanosleep) X(time, S_ALL, clock_gettime)    \
    X(time, S_ALL, clock_getres) X(time, S_ALL, gettimeofday) X(time, S_ALL, time)             \
    X(time, S_ALL, times) X(time, S_ALL, alarm) X(time, S_ALL, getitimer) X(time, S_ALL, setitimer) \
    X(time, S_ALL, timer_create) X(time, S_ALL, timer_settime) X(time, S_ALL, timer_gettime)   \
    X(time, S_ALL, timer_getoverrun) X(time, S_ALL, timer_delete) X(time, S_ALL, timerfd_create) \
    X(time, S_ALL, timerfd_settime) X(time, S_ALL, timerfd_gettime)                            \
    /* who and where the process is, its limits (lowering only: the hard limits are set) */    \
    X(identity, S_ALL, getuid) X(identity, S_ALL, geteuid) X(identity, S_ALL, getgid)          \
    X(identity, S_ALL, getegid) X(identity, S_ALL, getresuid) X(identity, S_ALL, getresgid)    \
    X(identity, S_ALL, getgroups) X(identity, S_ALL, uname) X(identity, S_ALL, sysinfo)        \
    X(identity, S_ALL, getrlimit) X(identity, S_ALL, setrlimit) X(identity, S_ALL, prlimit64)  \
    X(identity, S_ALL, getrusage) X(identity, S_ALL, getrandom) X(identity, S_ALL, getpriority) \
    X(identity, S_ALL, setpriority)

/* Refused with an errno, the step goes on (a runtime falls back or ignores it) */
#define SYSCALLS_ERRNO(X)                                                                      \
    /* glibc tries clone3 first and falls back to clone, whose flags the filter can read */    \
    X(probes, S_ALL, clone3, ENOSYS)                                                           \
    /* libuv (Node.js) tries io_uring and falls back to its thread pool */                    \
    X(probes, S_MANAGED, io_uring_setup, ENOSYS) X(probes, S_MANAGED, io_uring_enter, ENOSYS)   \
    X(probes, S_MANAGED, io_uring_register, ENOSYS)                                            \
    /* the step keeps the CPU its launcher claimed: its threads may not spread over the host */ \
    X(cpu, S_ALL, sched_setaffinity, EPERM) X(cpu, S_ALL, sched_setscheduler, EPERM)           \
    X(cpu, S_ALL, sched_setparam, EPERM) X(cpu, S_ALL, sched_setattr, EPERM)

/* Kill the step (SIGSYS) in every profile: what reaches beyond the process and its files */
#define SYSCALLS_KILL(X)                                                                       \
    X(trace, S_ALL, ptrace) X(trace, S_ALL, process_vm_readv) X(trace, S_ALL, process_vm_writev) \
    X(trace, S_ALL, process_madvise) X(trace, S_ALL, pidfd_getfd) X(trace, S_ALL, kcmp)        \
    X(keyring, S_ALL, add_key) X(keyring, S_ALL, keyctl) X(keyring, S_ALL, request_key)        \
    X(bpf, S_ALL, bpf) X(perf, S_ALL, perf_event_open) X(userfaultfd, S_ALL, userfaultfd)      \
    X(mount, S_ALL, mount) X(mount, S_ALL, umount2) X(mount, S_ALL, pivot_root)                \
    X(mount, S_ALL, chroot) X(mount, S_ALL, fsopen) X(mount, S_ALL, fsconfig)                  \
    X(mount, S_ALL, fsmount) X(mount, S_ALL, fspick) X(mount, S_ALL, move_mount)               \
    X(mount, S_ALL, open_tree) X(mount, S_ALL, mount_setattr)                                  \
    X(namespaces, S_ALL, unshare) X(namespaces, S_ALL, setns)                                  \
    X(modules, S_ALL, init_module) X(modules, S_ALL, finit_module) X(modules, S_ALL, delete_module) \
    X(kexec, S_ALL, kexec_load) X(kexec, S_ALL, kexec_file_load) X(reboot, S_ALL, reboot)      \
    X(swap, S_ALL, swapon) X(swap, S_ALL, swapoff)                                             \
    X(io_uring, S_NOT_MANAGED, io_uring_setup) X(io_uring, S_NOT_MANAGED, io_uring_enter)      \
    X(io_uring, S_NOT_MANAGED, io_uring_register)                                              \
    X(file_handles, S_ALL, open_by_handle_at) X(file_handles, S_ALL, name_to_handle_at)        \
    X(clock, S_ALL, settimeofday) X(clock, S_ALL, clock_settime) X(clock, S_ALL, clock_adjtime) \
    X(clock, S_ALL, adjtimex)                                                                  \
    X(host, S_ALL, sethostname) X(host, S_ALL, setdomainname) X(host, S_ALL, vhangup)          \
    X(host, S_ALL, acct) X(host, S_ALL, quotactl) X(host, S_ALL, quotactl_fd)                  \
    X(host, S_ALL, lookup_dcookie) X(host, S_ALL, syslog) X(host, S_ALL, fanotify_init)        \
    X(io_ports, S_ALL, iopl) X(io_ports, S_ALL, ioperm) X(io_ports, S_ALL, modify_ldt)          \
    /* no network at all (socket: SYSCALLS_ARGS); only socketpair makes a socket */           \
    X(sockets, S_ALL, connect) X(sockets, S_ALL, bind)               \
    X(sockets, S_ALL, listen) X(sockets, S_ALL, accept) X(sockets, S_ALL, accept4)             \
    X(sockets, S_ALL, sendto) X(sockets, S_ALL, sendmsg) X(sockets, S_ALL, sendmmsg)           \
    X(sockets, S_ALL, recvfrom) X(sockets, S_ALL, recvmsg) X(sockets, S_ALL, recvmmsg)         \
    /* a run may exec exactly once (its own command: SYSCALLS_ARGS) */                         \
    X(exec, S_RUN, execveat)

/* Allowed only with some arguments; the rules are in confine.h (confine_args) */
#define SYSCALLS_ARGS(X)                                                                       \
    X(namespaces, S_ALL, clone)        /* no CLONE_NEW* flag; one is killed */                 \
    X(exec, S_ALL, execve)             /* compile: any; run: the step's own command only */   \
    X(personality, S_ALL, personality) /* the query and PER_LINUX; any other is killed */      \
    X(sockets, S_ALL, socket)          /* AF_UNIX fails (EACCES); any other killed (managed: fails) */ \
    X(sockets, S_ALL, socketpair)      /* AF_UNIX; any other family is killed */               \
    X(tty, S_ALL, ioctl)               /* terminal queries, FIONREAD/FIONBIO/FIOCLEX; TIOCSTI killed */ \
    X(prctl, S_ALL, prctl)             /* names, death signal, no_new_privs, reads */

#endif
