/* uevents_enable 'NAME FIELDS' ...: the user_events check's tracer, run
 * in the guest before uevents_producer (tests/e2e/README.md).  For each
 * command it registers the event on tracefs's user_events_data and writes
 * 1 to the event's enable file, then exits: its file and enabler go away,
 * and the tracer's reference keeps the event, enabled.  uevents_producer,
 * registering the same commands, then finds them enabled at its
 * registration, as `rtrace --user-events-emulate --user-events-enable
 * NAME,...` makes them on the host.  (A real kernel has no way to enable
 * an event before it exists.)  Exit 0, or 1 with a message. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include "uevents_abi.h"

#define TRACING "/sys/kernel/tracing/"

int main(int argc, char **argv)
{
	static uint32_t bits[64];
	int fd = open(TRACING "user_events_data", O_RDWR);

	if (fd < 0) {
		perror("uevents_enable: " TRACING "user_events_data");
		return 1;
	}
	for (int i = 1; i < argc && i <= 64; i++) {
		struct ue_reg r = { 0 };
		char name[128], path[256];
		int efd;

		r.size = sizeof r;
		r.enable_bit = 0;
		r.enable_size = 4;
		r.enable_addr = (uintptr_t)&bits[i - 1];
		r.name_args = (uintptr_t)argv[i];
		if (ioctl(fd, UE_DIAG_IOCSREG, &r)) {
			fprintf(stderr, "uevents_enable: register '%s': %s\n", argv[i], strerror(errno));
			return 1;
		}
		snprintf(name, sizeof name, "%.*s", (int)strcspn(argv[i], " "), argv[i]);
		snprintf(path, sizeof path, TRACING "events/user_events/%s/enable", name);
		efd = open(path, O_WRONLY);
		if (efd < 0 || write(efd, "1", 1) != 1) {
			fprintf(stderr, "uevents_enable: %s: %s\n", path, strerror(errno));
			return 1;
		}
		close(efd);
		if (!(bits[i - 1] & 1)) {
			fprintf(stderr, "uevents_enable: %s: the enable bit is not set\n", name);
			return 1;
		}
	}
	return 0;
}
