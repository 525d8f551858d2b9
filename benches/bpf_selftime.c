/* selftime FILE COMMAND...: runs COMMAND and writes its own wall time
 * (fork to the end of waitpid) and the CPU time it and its children used
 * (user and system), in nanoseconds, to FILE: "WALL CPU". A bench can
 * tell from them the traced program's time from its tracer's start-up
 * and draining, and its own cost from waiting for a CPU. Exits with the
 * command's status. */
#define _GNU_SOURCE
#include <stdio.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/wait.h>

static unsigned long long now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

int main(int argc, char **argv) {
    if (argc < 3) return 2;
    unsigned long long start = now_ns();
    pid_t child = fork();
    if (child < 0) return 1;
    if (child == 0) {
        execvp(argv[2], argv + 2);
        _exit(127);
    }
    int status;
    if (waitpid(child, &status, 0) != child) return 1;
    unsigned long long elapsed = now_ns() - start;
    /* The command and its descendants it reaped: the only child here. */
    struct rusage kids;
    getrusage(RUSAGE_CHILDREN, &kids);
    unsigned long long cpu =
        (kids.ru_utime.tv_sec + kids.ru_stime.tv_sec) * 1000000000ULL +
        (kids.ru_utime.tv_usec + kids.ru_stime.tv_usec) * 1000ULL;
    FILE *f = fopen(argv[1], "w");
    if (!f) return 1;
    fprintf(f, "%llu %llu\n", elapsed, cpu);
    if (fclose(f)) return 1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
