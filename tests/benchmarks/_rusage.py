"""One command's wall time, CPU time and peak memory, as the kernel counted them for that process alone.

    wall_s, cpu_s, done, rss_kib = timed([...], env)     # rss_kib None where it cannot be known

The peak resident memory (ru_maxrss) of a child that a Python process forks starts at the forking process's
own: Linux keeps the old memory's high-water mark across exec (a 16 MiB benchmark would read as every child's
floor). So the command runs under a small C launcher (compiled here once, with `cc`) that forks it and reports
its wait4 figures: a process forked from a 1 MiB one starts at 1 MiB. Without a C compiler the command runs
directly and its peak memory is not given.
"""

from __future__ import annotations

import atexit
import functools
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

_LAUNCHER = r"""
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 3) return 125;
    pid_t pid = fork();
    if (pid < 0) return 125;
    if (pid == 0) {
        execvp(argv[2], argv + 2);
        _exit(127);
    }
    int status;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) < 0) return 126;
    FILE *out = fopen(argv[1], "w");
    if (out == NULL) return 126;
    fprintf(out, "%ld.%06ld %ld.%06ld %ld\n", (long)ru.ru_utime.tv_sec, (long)ru.ru_utime.tv_usec,
            (long)ru.ru_stime.tv_sec, (long)ru.ru_stime.tv_usec, ru.ru_maxrss);
    fclose(out);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
"""


@functools.cache
def launcher() -> Path | None:
    """The compiled launcher, or None where no C compiler is here (or it fails)."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        return None
    folder = Path(tempfile.mkdtemp(prefix="linkvet-rusage-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    source, binary = folder / "launch.c", folder / "launch"
    source.write_text(_LAUNCHER)
    built = subprocess.run([compiler, "-O2", "-o", str(binary), str(source)], capture_output=True)
    return binary if built.returncode == 0 else None


def timed(
    command: list[str], env: dict[str, str] | None = None
) -> tuple[float, float, subprocess.CompletedProcess[str], int | None]:
    """Run `command` to its end: its wall time, its CPU time (user + system, the whole process), what it
    printed, and its peak resident memory in KiB (None without the launcher)."""
    wrapper = launcher()
    with (
        tempfile.TemporaryFile("w+") as out,
        tempfile.TemporaryFile("w+") as err,
        tempfile.NamedTemporaryFile("r") as figures,
    ):
        argv = command if wrapper is None else [str(wrapper), figures.name, *command]
        started = time.monotonic()
        child = subprocess.Popen(argv, stdout=out, stderr=err, text=True, env=env)
        _pid, status, usage = os.wait4(child.pid, 0)
        wall = time.monotonic() - started
        code = os.waitstatus_to_exitcode(status)
        child.returncode = code
        out.seek(0)
        err.seek(0)
        done = subprocess.CompletedProcess(command, code, out.read(), err.read())
        if wrapper is None:
            return wall, usage.ru_utime + usage.ru_stime, done, None
        text = figures.read().split()
    if len(text) != 3:
        raise SystemExit(f"{command[0]} could not be run: {done.stderr.strip() or code}")
    return wall, float(text[0]) + float(text[1]), done, int(text[2])
