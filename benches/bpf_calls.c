/* bpf_calls CALL N: N of one call in a loop, for what tracing each kind
 * of call costs (benches/README.md, session 32). CALL is one of
 *   g  getppid
 *   o  openat and close of /usr/include/stdio.h
 *   s  newfstatat of that path
 *   f  fstat of an open fd (glibc makes it newfstatat with "")
 *   r  pread64 of 10 KiB at offset 0 of that file
 *   w  write of 10 KiB to /dev/null
 *   d  lseek to 0 and getdents64 of /usr/include (a 64 KiB buffer)
 * Run by hand under benches/bpf_selftime.c, bare, under bpf_floor and
 * under `rtrace --bpf -f -o /dev/null`. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc != 3 || !argv[1][0] || argv[1][1]) {
		fprintf(stderr, "usage: bpf_calls g|o|s|f|r|w|d N\n");
		return 2;
	}
	long n = atol(argv[2]);
	static char buf[65536];
	const char *path = "/usr/include/stdio.h";
	int fd = open(path, O_RDONLY), out = open("/dev/null", O_WRONLY);
	int dir = open("/usr/include", O_RDONLY | O_DIRECTORY);
	if (fd < 0 || out < 0 || dir < 0) {
		perror("bpf_calls: open");
		return 1;
	}
	struct stat st;
	for (long i = 0; i < n; i++) {
		switch (argv[1][0]) {
		case 'g':
			getppid();
			break;
		case 'o':
			close(openat(AT_FDCWD, path, O_RDONLY));
			break;
		case 's':
			fstatat(AT_FDCWD, path, &st, AT_SYMLINK_NOFOLLOW);
			break;
		case 'f':
			fstat(fd, &st);
			break;
		case 'r':
			pread(fd, buf, 10240, 0);
			break;
		case 'w':
			write(out, buf, 10240);
			break;
		case 'd':
			lseek(dir, 0, SEEK_SET);
			syscall(SYS_getdents64, dir, buf, sizeof(buf));
			break;
		default:
			fprintf(stderr, "bpf_calls: no call %s\n", argv[1]);
			return 2;
		}
	}
	return 0;
}
