//! Expected lines of the `ioctl_names` fixture (ioctls from over 30
//! subsystems), shared by the 64-bit and 32-bit tests.

/// Traced with this in the environment, the fixture's arguments print as
/// the bytes their codes carry (plain integer types as numbers) whatever
/// the machine's kernel BTF has (no
/// BTF is read from a directory that does not exist); the BTF decoding of
/// the same requests is tested in tests/ioctl_args.rs.
pub const NO_BTF: (&str, &str) = ("RTRACE_BTF_DIR", "/nonexistent/rtrace-no-btf");

/// What the 64-bit fixture prints from its marker on (with [`NO_BTF`]:
/// arguments a hand-written group does not decode print as the bytes their
/// `_IOW` codes carry, before the call). The NS_GET_OWNER_UID line (the owner
/// of this process's user namespace) depends on the machine; tests put
/// the uid the test itself asks the kernel for in place of `UID`.
pub const IOCTL_NAMES: &[&str] = &[
    "write(-1, \"BEGIN\", 5) = -1 [EBADF]",
    "ioctl(3, BLKGETSIZE64, &ADDR) = -1 [ENOTTY]",
    "ioctl(3, BLKSSZGET, ADDR) = -1 [ENOTTY]",
    "ioctl(3, BLKROGET, ADDR) = -1 [ENOTTY]",
    "ioctl(3, FS_IOC_GETFLAGS, &ADDR) = -1 [ENOTTY]",
    "ioctl(3, FS_IOC_GETVERSION, &ADDR) = -1 [ENOTTY]",
    "ioctl(3, FS_IOC_FIEMAP, {fm_start=0, fm_length=0, fm_flags=0, fm_extent_count=0}) = -1 [EOPNOTSUPP]",
    "ioctl(3, FS_IOC_FSGETXATTR, &ADDR) = -1 [ENOTTY]",
    "ioctl(3, EVIOCGVERSION, &ADDR) = -1 [ENOTTY]",
    "ioctl(3, EVIOCGID, &ADDR) = -1 [ENOTTY]",
    "ioctl(3, EVIOCGNAME(256), &ADDR) = -1 [ENOTTY]",
    "ioctl(3, EVIOCGBIT(EV_KEY, 96), &ADDR) = -1 [ENOTTY]",
    "ioctl(3, EVIOCGABS(ABS_Y), &ADDR) = -1 [ENOTTY]",
    "ioctl(3, HIDIOCGRDESCSIZE or HIDIOCGVERSION, &ADDR) = -1 [ENOTTY]",
    "ioctl(3, HIDIOCGRAWNAME(64), &ADDR) = -1 [ENOTTY]",
    "ioctl(3, HIDIOCGRDESCSIZE or HIDIOCGVERSION, &ADDR) = -1 [ENOTTY]",
    "ioctl(3, LOOP_GET_STATUS64, &ADDR) = -1 [ENOTTY]",
    "ioctl(3, LOOP_CTL_GET_FREE, 0x0) = -1 [ENOTTY]",
    "ioctl(3, RTC_RD_TIME, &ADDR) = -1 [ENOTTY]",
    "ioctl(3, RTC_AIE_ON, 0x0) = -1 [ENOTTY]",
    "ioctl(4, RNDGETENTCNT, [256]) = 0",
    "ioctl(3, UFFDIO_API, {api=0x100, features=0}) = -1 [ENOTTY]",
    "ioctl(3, UFFDIO_REGISTER, \"\\0\\1\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\") = -1 [ENOTTY]",
    "ioctl(5, NS_GET_NSTYPE) = 1073741824 (CLONE_NEWNET)",
    "ioctl(6, NS_GET_OWNER_UID, [UID]) = 0",
    "ioctl(7, NS_GET_PARENT) = -1 [EPERM]",
    "ioctl(3, NS_GET_USERNS) = -1 [ENOTTY]",
    "ioctl(3, PERF_EVENT_IOC_ENABLE, 0) = -1 [ENOTTY]",
    "ioctl(3, PERF_EVENT_IOC_RESET, 0) = -1 [ENOTTY]",
    "ioctl(3, TUNGETFEATURES, &ADDR) = -1 [ENOTTY]",
    // A `struct ifreq` (40 bytes), though the header says `int`.
    "ioctl(3, TUNSETIFF, \"\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\"..) = -1 [ENOTTY]",
    "ioctl(3, SNDRV_PCM_IOCTL_PVERSION, &ADDR) = -1 [ENOTTY]",
    "ioctl(3, SNDRV_CTL_IOCTL_CARD_INFO, &ADDR) = -1 [ENOTTY]",
    "ioctl(3, SOUND_MIXER_READ_VOLUME, &ADDR) = -1 [ENOTTY]",
    "ioctl(3, VIDIOC_QUERYCAP, &ADDR) = -1 [ENOTTY]",
    "ioctl(3, VIDIOC_G_FMT, {type=0}) = -1 [ENOTTY]",
    "ioctl(3, MEDIA_IOC_DEVICE_INFO, \"\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\"..) = -1 [ENOTTY]",
    "ioctl(3, CEC_ADAP_G_CAPS, \"\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\"..) = -1 [ENOTTY]",
    "ioctl(3, KVM_GET_API_VERSION, 0x0) = -1 [ENOTTY]",
    "ioctl(3, KVM_CREATE_VM, 0) = -1 [ENOTTY]",
    "ioctl(3, VFIO_GET_API_VERSION, 0x0) = -1 [ENOTTY]",
    "ioctl(3, VHOST_GET_FEATURES, &ADDR) = -1 [ENOTTY]",
    "ioctl(3, WDIOC_GETSUPPORT, &ADDR) = -1 [ENOTTY]",
    "ioctl(3, WDIOC_KEEPALIVE, NULL) = -1 [ENOTTY]",
    "ioctl(3, GPIO_GET_CHIPINFO_IOCTL, &ADDR) = -1 [ENOTTY]",
    // Decoded by the gpio group (src/ioctl/gpio.rs).
    "ioctl(3, GPIO_V2_GET_LINE_IOCTL, {num_lines=0, offsets=[], consumer=\"\", config={flags=0, num_attrs=0}}) = -1 [ENOTTY]",
    "ioctl(3, SPI_IOC_RD_MODE, &ADDR) = -1 [ENOTTY]",
    "ioctl(3, SPI_IOC_WR_MAX_SPEED_HZ, [0]) = -1 [ENOTTY]",
    "ioctl(3, SPI_IOC_MESSAGE(1), \"\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\") = -1 [ENOTTY]",
    "ioctl(3, FBIOGET_VSCREENINFO, ADDR) = -1 [ENOTTY]",
    "ioctl(3, CDROMEJECT, 0x0) = -1 [ENOTTY]",
    // Decoded by the hdio group (src/ioctl/hdio.rs): a failed getter's pointer.
    "ioctl(3, HDIO_GETGEO, &ADDR) = -1 [ENOTTY]",
    "ioctl(3, VT_OPENQRY, ADDR) = -1 [ENOTTY]",
    // Decoded by the kd group (src/ioctl/kd.rs): a failed getter's pointer.
    "ioctl(3, KDGETLED, &ADDR) = -1 [ENOTTY]",
    "ioctl(3, DRM_IOCTL_VERSION, \"\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\"..) = -1 [ENOTTY]",
    "ioctl(3, DRM_IOCTL_MODE_GETRESOURCES, \"\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\"..) = -1 [ENOTTY]",
    "ioctl(3, MEMGETINFO, &ADDR) = -1 [ENOTTY]",
    "ioctl(3, DMA_BUF_IOCTL_SYNC, \"\\0\\0\\0\\0\\0\\0\\0\\0\") = -1 [ENOTTY]",
    "ioctl(3, BTRFS_IOC_FS_INFO, &ADDR) = -1 [ENOTTY]",
    "ioctl(3, SECCOMP_IOCTL_NOTIF_ID_VALID, [0]) = -1 [ENOTTY]",
    "ioctl(3, INOTIFY_IOC_SETNEXTWD, 0) = -1 [ENOTTY]",
    "ioctl(3, PTP_CLOCK_GETCAPS, &ADDR) = -1 [ENOTTY]",
    "ioctl(3, PPS_GETPARAMS, &ADDR) = -1 [ENOTTY]",
    "ioctl(3, JSIOCGVERSION, &ADDR) = -1 [ENOTTY]",
    "ioctl(3, UI_DEV_CREATE or USB_RAW_IOCTL_RUN, 0x0) = -1 [ENOTTY]",
    "ioctl(3, UI_GET_SYSNAME(64), &ADDR) = -1 [ENOTTY]",
    "ioctl(3, JSIOCGNAME(128), &ADDR) = -1 [ENOTTY]",
    "ioctl(3, AUTOFS_IOC_READY, 0x0) = -1 [ENOTTY]",
    "ioctl(3, TEE_IOC_VERSION, &ADDR) = -1 [ENOTTY]",
    "ioctl(3, FUSE_DEV_IOC_CLONE, &ADDR) = -1 [ENOTTY]",
    "ioctl(3, RFKILL_IOCTL_NOINPUT, 0x0) = -1 [ENOTTY]",
    "ioctl(3, NBD_SET_SOCK, 0) = -1 [ENOTTY]",
    "ioctl(3, IOC_WATCH_QUEUE_SET_SIZE, 0x0) = -1 [ENOTTY]",
    "ioctl(3, SG_IO, ADDR) = -1 [ENOTTY]",
    "ioctl(3, USBDEVFS_GET_CAPABILITIES, &ADDR) = -1 [ENOTTY]",
    "ioctl(8, SIOCGIFINDEX, {ifr_name=\"\"}) = -1 [ENODEV]",
    "ioctl(3, TCGETS, &ADDR) = -1 [ENOTTY]",
    "ioctl(3, SNDCTL_TMR_START or TCSETS, {c_iflag=0, c_oflag=NL0|CR0|TAB0|BS0|VT0|FF0, c_cflag=B0|CS5, c_lflag=0, ..}) = -1 [ENOTTY]",
    "ioctl(-1, KVM_RUN, 0x0) = -1 [EBADF]",
    "exit_group(0)",
    "Process exited normally with code 0",
];

/// The owner of this process's user namespace, as the kernel tells the
/// test (NS_GET_OWNER_UID): what the fixture's line must show.
pub fn owner_uid() -> u32 {
    use std::os::fd::AsRawFd;
    let ns = std::fs::File::open("/proc/self/ns/user").unwrap();
    let mut uid: u32 = u32::MAX;
    // SAFETY: NS_GET_OWNER_UID writes one uid_t to the pointer.
    let r = unsafe { libc::ioctl(ns.as_raw_fd(), 0xb704, &mut uid as *mut u32) };
    assert_eq!(r, 0, "NS_GET_OWNER_UID failed");
    uid
}

/// [`IOCTL_NAMES`] with the machine's namespace owner in place.
pub fn ioctl_names_expected() -> Vec<String> {
    let uid = format!("[{}]", owner_uid());
    IOCTL_NAMES
        .iter()
        .map(|l| l.replace("[UID]", &uid))
        .collect()
}
