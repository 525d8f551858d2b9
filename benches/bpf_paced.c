/* paced RATE MS FILE: calls getppid RATE times a second (0: as fast as it
 * can) for MS milliseconds, paced on the vDSO clock (no system call of its
 * own in the loop), and writes "CALLS ELAPSED_NS" to FILE: the rate it
 * reached, which a slowed program may keep below RATE. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

static unsigned long long now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

int main(int argc, char **argv) {
    if (argc < 4) return 2;
    unsigned long long rate = strtoull(argv[1], 0, 10);
    unsigned long long span = strtoull(argv[2], 0, 10) * 1000000ULL;
    unsigned long long start = now_ns(), t, done = 0;
    while ((t = now_ns()) - start < span) {
        /* The calls due by now: a program that falls behind catches up at
         * once, in a burst, as a real one would. */
        unsigned long long due = rate ? (t - start) * rate / 1000000000ULL : done + 64;
        while (done < due) {
            syscall(SYS_getppid);
            done++;
        }
    }
    unsigned long long elapsed = now_ns() - start;
    FILE *f = fopen(argv[3], "w");
    if (!f) return 1;
    fprintf(f, "%llu %llu\n", done, elapsed);
    return fclose(f) ? 1 : 0;
}
