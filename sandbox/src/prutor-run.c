/*
 * prutor-run: the inner launcher, run as the slot's user inside bubblewrap's sandbox.
 * Sets the rlimits, installs the seccomp filter (level 1: compile, level 2: run)
 * and execs the command with a clean environment and no extra fds (confine.h).
 *
 * usage: prutor-run LEVEL CPU_S AS_KB FSIZE_KB NPROC NOFILE STACK_KB -- CMD [ARG...]
 */
#define _GNU_SOURCE
#include "confine.h"

int main(int argc, char **argv)
{
    return confine_exec(argc, argv, getenv("TMPDIR"));
}
