/*
 * usbmon_client: a small capture client of our own for the end-to-end
 * suite. It reads events from /dev/usbmonBUS through every non-mmap way the
 * binary API offers, so that rtrace's decoding of each can be compared with
 * the kernel's text API:
 *
 *   MON_IOCQ_RING_SIZE  once at the start
 *   MON_IOCQ_URB_LEN    before each event
 *   MON_IOCX_GETX       event 0, 3, 6, ... (64-byte header, 4096-byte data buffer)
 *   MON_IOCX_GET        event 1, 4, 7, ... (48-byte header, 64-byte data buffer)
 *   read(2)             event 2, 5, 8, ... (48-byte header and data in one buffer)
 *   MON_IOCG_STATS      once at the end
 *
 * Usage: usbmon_client BUS COUNT. It prints one summary line on stdout:
 * `usbmon_client: fetched N events (getx=A get=B read=C)`.
 *
 * `usbmon_client BUS COUNT mmap` fetches the way libpcap does instead:
 * MON_IOCT_RING_SIZE, mmap of the ring, MON_IOCX_MFETCH (up to 32 at a
 * time, flushing what the previous one returned), a last MON_IOCH_MFLUSH;
 * summary `usbmon_client: fetched N events (mfetch=K) ring=R`. Built statically
 * on the host (gcc -static) and run inside the test VM; also built as a
 * 32-bit program (usbmon_client32), whose GET and GETX are the compat
 * requests MON_IOCX_GET32 and MON_IOCX_GETX32 (a 12-byte mon_bin_get).
 *
 * `usbmon_client BUS COUNT refetch` is a deliberately wrong client, for
 * rtrace's ABI diagnostics on the real kernel: on the mapped ring it makes
 * two MFETCHes of up to COUNT events without flushing in between (the
 * kernel hands out the first one's events again), then MON_IOCH_MFLUSH of
 * 100 more events than it fetched (the kernel discards events it never
 * saw); summary `usbmon_client: refetch first=K1 second=K2 same=S
 * flushed=F` (S = 1 when the second fetch began with the first's offsets).
 *
 * The requests and structs come from drivers/usb/mon/mon_bin.c (there is no
 * uapi header).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

struct mon_bin_hdr {
	uint64_t id;
	unsigned char type;
	unsigned char xfer_type;
	unsigned char epnum;
	unsigned char devnum;
	uint16_t busnum;
	char flag_setup;
	char flag_data;
	int64_t ts_sec;
	int32_t ts_usec;
	int status;
	uint32_t len_urb;
	uint32_t len_cap;
	unsigned char setup[8];
	int interval;
	int start_frame;
	uint32_t xfer_flags;
	uint32_t ndesc;
};

struct mon_bin_stats {
	uint32_t queued;
	uint32_t dropped;
};

struct mon_bin_get {
	struct mon_bin_hdr *hdr;
	void *data;
	size_t alloc;
};

struct mon_bin_mfetch {
	uint32_t *offvec;
	uint32_t nfetch;
	uint32_t nflush;
};

#define MON_IOC_MAGIC 0x92
#define MON_IOCQ_URB_LEN _IO(MON_IOC_MAGIC, 1)
#define MON_IOCG_STATS _IOR(MON_IOC_MAGIC, 3, struct mon_bin_stats)
#define MON_IOCQ_RING_SIZE _IO(MON_IOC_MAGIC, 5)
#define MON_IOCX_GET _IOW(MON_IOC_MAGIC, 6, struct mon_bin_get)
#define MON_IOCX_GETX _IOW(MON_IOC_MAGIC, 10, struct mon_bin_get)
#define MON_IOCT_RING_SIZE _IO(MON_IOC_MAGIC, 4)
#define MON_IOCX_MFETCH _IOWR(MON_IOC_MAGIC, 7, struct mon_bin_mfetch)
#define MON_IOCH_MFLUSH _IO(MON_IOC_MAGIC, 8)

_Static_assert(sizeof(struct mon_bin_hdr) == 64, "mon_bin_hdr is 64 bytes");
#ifdef __i386__
_Static_assert(MON_IOCX_GETX == 0x400C920A, "MON_IOCX_GETX32 code");
_Static_assert(MON_IOCX_GET == 0x400C9206, "MON_IOCX_GET32 code");
_Static_assert(MON_IOCX_MFETCH == 0xC00C9207, "MON_IOCX_MFETCH32 code");
#else
_Static_assert(MON_IOCX_GETX == 0x4018920A, "MON_IOCX_GETX code");
_Static_assert(MON_IOCX_GET == 0x40189206, "MON_IOCX_GET code");
_Static_assert(MON_IOCX_MFETCH == 0xC0109207, "MON_IOCX_MFETCH code");
#endif
_Static_assert(MON_IOCG_STATS == 0x80089203, "MON_IOCG_STATS code");

static void die(const char *what)
{
	fprintf(stderr, "usbmon_client: %s: %s\n", what, strerror(errno));
	exit(2);
}

/* The libpcap way: a mapped ring and MFETCH; fillers ('@') are skipped. */
static int fetch_mapped(int fd, int count)
{
	const uint32_t ring = 256 * 1024;
	if (ioctl(fd, MON_IOCT_RING_SIZE, ring) < 0)
		die("MON_IOCT_RING_SIZE");
	unsigned char *map = mmap(NULL, ring, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		die("mmap");
	uint32_t offvec[32];
	uint32_t nflush = 0;
	int got = 0, fetches = 0;
	while (got < count) {
		uint32_t want = (uint32_t)(count - got);
		struct mon_bin_mfetch mf = { offvec, want < 32 ? want : 32, nflush };
		if (ioctl(fd, MON_IOCX_MFETCH, &mf) < 0)
			die("MON_IOCX_MFETCH");
		for (uint32_t i = 0; i < mf.nfetch; i++)
			if (((struct mon_bin_hdr *)(map + offvec[i]))->type != '@')
				got++;
		nflush = mf.nfetch;
		fetches++;
	}
	if (ioctl(fd, MON_IOCH_MFLUSH, nflush) < 0)
		die("MON_IOCH_MFLUSH");
	struct mon_bin_stats st;
	if (ioctl(fd, MON_IOCG_STATS, &st) < 0)
		die("MON_IOCG_STATS");
	munmap(map, ring);
	close(fd);
	printf("usbmon_client: fetched %d events (mfetch=%d) ring=%u dropped=%u\n",
	       got, fetches, ring, st.dropped);
	return 0;
}

/* The wrong way: fetch twice without a flush, then flush too many. */
static int refetch(int fd, int count)
{
	const uint32_t ring = 256 * 1024;
	if (count < 1 || count > 32)
		count = 32;
	if (ioctl(fd, MON_IOCT_RING_SIZE, ring) < 0)
		die("MON_IOCT_RING_SIZE");
	unsigned char *map = mmap(NULL, ring, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		die("mmap");
	uint32_t first[32], second[32];
	struct mon_bin_mfetch mf = { first, (uint32_t)count, 0 };
	if (ioctl(fd, MON_IOCX_MFETCH, &mf) < 0)
		die("MON_IOCX_MFETCH");
	uint32_t k1 = mf.nfetch;
	mf = (struct mon_bin_mfetch){ second, (uint32_t)count, 0 };
	if (ioctl(fd, MON_IOCX_MFETCH, &mf) < 0)
		die("MON_IOCX_MFETCH again");
	uint32_t k2 = mf.nfetch;
	int same = k2 >= k1 && memcmp(first, second, k1 * sizeof(uint32_t)) == 0;
	int flushed = ioctl(fd, MON_IOCH_MFLUSH, (unsigned long)k2 + 100);
	if (flushed < 0)
		die("MON_IOCH_MFLUSH");
	munmap(map, ring);
	close(fd);
	printf("usbmon_client: refetch first=%u second=%u same=%d flushed=%d\n", k1, k2, same,
	       flushed);
	return 0;
}

int main(int argc, char **argv)
{
	int mapped = argc == 4 && strcmp(argv[3], "mmap") == 0;
	int wrong = argc == 4 && strcmp(argv[3], "refetch") == 0;
	if (argc != 3 && !mapped && !wrong) {
		fprintf(stderr, "usage: usbmon_client BUS COUNT [mmap|refetch]\n");
		return 2;
	}
	char path[64];
	snprintf(path, sizeof(path), "/dev/usbmon%d", atoi(argv[1]));
	int count = atoi(argv[2]);

	int fd = open(path, O_RDONLY);
	if (fd < 0)
		die(path);
	if (mapped)
		return fetch_mapped(fd, count);
	if (wrong)
		return refetch(fd, count);
	int ring = ioctl(fd, MON_IOCQ_RING_SIZE);
	if (ring < 0)
		die("MON_IOCQ_RING_SIZE");

	static unsigned char data[4096];
	static unsigned char small[64];
	static unsigned char readbuf[8192];
	struct mon_bin_hdr hdr;
	int n_getx = 0, n_get = 0, n_read = 0, bad_len = 0;

	for (int i = 0; i < count; i++) {
		/* 0 when no event is waiting yet: the fetch below then blocks. */
		int urb_len = ioctl(fd, MON_IOCQ_URB_LEN);
		if (urb_len < 0)
			die("MON_IOCQ_URB_LEN");
		uint32_t len_cap;
		switch (i % 3) {
		case 0: {
			struct mon_bin_get get = { &hdr, data, sizeof(data) };
			if (ioctl(fd, MON_IOCX_GETX, &get) < 0)
				die("MON_IOCX_GETX");
			len_cap = hdr.len_cap;
			n_getx++;
			break;
		}
		case 1: {
			memset(&hdr, 0, sizeof(hdr));
			struct mon_bin_get get = { &hdr, small, sizeof(small) };
			if (ioctl(fd, MON_IOCX_GET, &get) < 0)
				die("MON_IOCX_GET");
			len_cap = hdr.len_cap;
			n_get++;
			break;
		}
		default: {
			ssize_t got = read(fd, readbuf, sizeof(readbuf));
			if (got < 48)
				die("read");
			memcpy(&len_cap, readbuf + 36, 4);
			n_read++;
			break;
		}
		}
		if (urb_len > 0 && (uint32_t)urb_len != len_cap)
			bad_len++;
	}

	struct mon_bin_stats st;
	if (ioctl(fd, MON_IOCG_STATS, &st) < 0)
		die("MON_IOCG_STATS");
	close(fd);
	printf("usbmon_client: fetched %d events (getx=%d get=%d read=%d) ring=%d dropped=%u bad_urb_len=%d\n",
	       n_getx + n_get + n_read, n_getx, n_get, n_read, ring, st.dropped, bad_len);
	return 0;
}
