//! The V4L2 requests (issue 25, session 12): the `ioctl_v4l2` fixture makes
//! each request a capture program makes on fd -1 with exact arguments.
//! Plain, the calls fail and what the program asks shows; under
//! `-e inject=ioctl:retval=42` they succeed without reaching a driver, and
//! what the fixture left in the answer fields shows as the kernel's
//! answer, after `=`. The lines are strace 6's information in rtrace's
//! grammar (strace shows the answer inside the argument, after `=>`);
//! addresses are normalised.

mod common;

use common::{assert_lines, trace};

/// Run the fixture under rtrace with `args`, tracing ioctl only; the
/// normalised ioctl lines.
fn run(args: &[&str]) -> Vec<String> {
    let bin = common::fixture("ioctl_v4l2");
    let mut all = vec!["-e", "trace=ioctl"];
    all.extend_from_slice(args);
    let run = trace(&all, &[bin.file_name().unwrap().to_str().unwrap()]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    run.lines()
        .into_iter()
        .filter(|l| l.starts_with("ioctl("))
        .collect()
}

const INJECT: &str = "inject=ioctl:retval=42";

/// The line of `request` in `lines`.
fn line_of<'a>(lines: &'a [String], request: &str) -> &'a str {
    line_with(lines, &format!("ioctl(-1, {request}, "))
}

/// The line holding `piece` in `lines` (under `-X raw` the request is a
/// number, which the normaliser takes for an address).
fn line_with<'a>(lines: &'a [String], piece: &str) -> &'a str {
    lines
        .iter()
        .find(|l| l.contains(piece))
        .unwrap_or_else(|| panic!("no {piece} in {lines:#?}"))
}

#[test]
fn failed_requests_show_what_the_program_asks() {
    let want = [
        r#"ioctl(-1, VIDIOC_QUERYCAP, &ADDR) = -1 [EBADF]"#,
        r#"ioctl(-1, VIDIOC_ENUM_FMT, {index=0, type=V4L2_BUF_TYPE_VIDEO_CAPTURE}) = -1 [EBADF]"#,
        r#"ioctl(-1, VIDIOC_G_FMT, {type=V4L2_BUF_TYPE_VIDEO_CAPTURE}) = -1 [EBADF]"#,
        r#"ioctl(-1, VIDIOC_S_FMT, {type=V4L2_BUF_TYPE_VIDEO_CAPTURE, fmt.pix={width=640, height=480, pixelformat=v4l2_fourcc('Y', 'U', 'Y', 'V') /* V4L2_PIX_FMT_YUYV */, field=V4L2_FIELD_NONE, bytesperline=1280, sizeimage=614400, colorspace=V4L2_COLORSPACE_SRGB}}) = -1 [EBADF]"#,
        r#"ioctl(-1, VIDIOC_TRY_FMT, {type=V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE, fmt.pix_mp={width=320, height=240, pixelformat=v4l2_fourcc('J', 'P', '\'', '\xfe'), field=V4L2_FIELD_INTERLACED, colorspace=V4L2_COLORSPACE_REC709, plane_fmt=[{sizeimage=76800, bytesperline=320}, {sizeimage=38400, bytesperline=160}], num_planes=2}}) = -1 [EBADF]"#,
        r#"ioctl(-1, VIDIOC_S_FMT, {type=V4L2_BUF_TYPE_VIDEO_OVERLAY, fmt.win={w={left=10, top=0, width=100, height=50}, field=V4L2_FIELD_ANY, chromakey=0xff00ff, clips=[{c={left=-1, top=2, width=3, height=4}}, {c={left=5, top=0, width=0, height=0}}], clipcount=2, bitmap=NULL, global_alpha=0x80}}) = -1 [EBADF]"#,
        r#"ioctl(-1, VIDIOC_S_FMT, {type=V4L2_BUF_TYPE_VBI_CAPTURE, fmt.vbi={sampling_rate=27000000, offset=248, samples_per_line=1440, sample_format=v4l2_fourcc('G', 'R', 'E', 'Y') /* V4L2_PIX_FMT_GREY */, start=[6, -1], count=[17, 17], flags=V4L2_VBI_INTERLACED}}) = -1 [EBADF]"#,
        r#"ioctl(-1, VIDIOC_S_FMT, {type=V4L2_BUF_TYPE_SLICED_VBI_CAPTURE, fmt.sliced={service_set=V4L2_SLICED_VPS|V4L2_SLICED_CAPTION_525, service_lines=[[0, 0x400, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x1000]], io_size=64}}) = -1 [EBADF]"#,
        r#"ioctl(-1, VIDIOC_S_FMT, {type=V4L2_BUF_TYPE_SDR_CAPTURE, fmt.sdr={pixelformat=v4l2_fourcc('C', 'U', '0', '8') /* V4L2_SDR_FMT_CU8 */, buffersize=65536}}) = -1 [EBADF]"#,
        r#"ioctl(-1, VIDIOC_S_FMT, {type=V4L2_BUF_TYPE_META_CAPTURE, fmt.meta={dataformat=v4l2_fourcc('U', 'V', 'C', 'H') /* V4L2_META_FMT_UVC */, buffersize=4096}}) = -1 [EBADF]"#,
        r#"ioctl(-1, VIDIOC_ENUM_FRAMESIZES, {index=1, pixel_format=v4l2_fourcc('Y', 'U', 'Y', 'V') /* V4L2_PIX_FMT_YUYV */}) = -1 [EBADF]"#,
        r#"ioctl(-1, VIDIOC_ENUM_FRAMEINTERVALS, {index=0, pixel_format=v4l2_fourcc('Y', 'U', 'Y', 'V') /* V4L2_PIX_FMT_YUYV */, width=1280, height=720}) = -1 [EBADF]"#,
        r#"ioctl(-1, VIDIOC_REQBUFS, {type=V4L2_BUF_TYPE_VIDEO_CAPTURE, memory=V4L2_MEMORY_MMAP, count=4}) = -1 [EBADF]"#,
        r#"ioctl(-1, VIDIOC_CREATE_BUFS, {count=2, memory=V4L2_MEMORY_MMAP, format={type=V4L2_BUF_TYPE_META_CAPTURE, fmt.meta={dataformat=v4l2_fourcc('U', 'V', 'C', 'H') /* V4L2_META_FMT_UVC */, buffersize=4096}}}) = -1 [EBADF]"#,
        r#"ioctl(-1, VIDIOC_QUERYBUF, {type=V4L2_BUF_TYPE_VIDEO_CAPTURE, index=1}) = -1 [EBADF]"#,
        r#"ioctl(-1, VIDIOC_QBUF, {type=V4L2_BUF_TYPE_VIDEO_CAPTURE, index=1}) = -1 [EBADF]"#,
        r#"ioctl(-1, VIDIOC_DQBUF, {type=V4L2_BUF_TYPE_VIDEO_CAPTURE}) = -1 [EBADF]"#,
        r#"ioctl(-1, VIDIOC_STREAMON, [V4L2_BUF_TYPE_VIDEO_CAPTURE]) = -1 [EBADF]"#,
        r#"ioctl(-1, VIDIOC_STREAMOFF, [V4L2_BUF_TYPE_VIDEO_CAPTURE]) = -1 [EBADF]"#,
        r#"ioctl(-1, VIDIOC_S_FBUF, {capability=0x2, flags=0x1, base=NULL}) = -1 [EBADF]"#,
        r#"ioctl(-1, VIDIOC_G_PARM, {type=V4L2_BUF_TYPE_VIDEO_CAPTURE}) = -1 [EBADF]"#,
        r#"ioctl(-1, VIDIOC_S_PARM, {type=V4L2_BUF_TYPE_VIDEO_CAPTURE, parm.capture={capability=V4L2_CAP_TIMEPERFRAME, capturemode=0, timeperframe=1/30, extendedmode=0, readbuffers=2}}) = -1 [EBADF]"#,
        r#"ioctl(-1, VIDIOC_S_STD, [0x1]) = -1 [EBADF]"#,
        r#"ioctl(-1, VIDIOC_ENUMSTD, {index=2}) = -1 [EBADF]"#,
        r#"ioctl(-1, VIDIOC_ENUMINPUT, {index=0}) = -1 [EBADF]"#,
        r#"ioctl(-1, VIDIOC_S_TUNER, {index=0, name="FM", type=V4L2_TUNER_RADIO, capability=V4L2_TUNER_CAP_LOW|V4L2_TUNER_CAP_STEREO, rangelow=1400000, rangehigh=1728000, rxsubchans=V4L2_TUNER_SUB_STEREO, audmode=V4L2_TUNER_MODE_STEREO, signal=-3, afc=0}) = -1 [EBADF]"#,
        r#"ioctl(-1, VIDIOC_CROPCAP, {type=V4L2_BUF_TYPE_VIDEO_CAPTURE}) = -1 [EBADF]"#,
        r#"ioctl(-1, VIDIOC_G_CROP, {type=V4L2_BUF_TYPE_VIDEO_CAPTURE}) = -1 [EBADF]"#,
        r#"ioctl(-1, VIDIOC_S_CROP, {type=V4L2_BUF_TYPE_VIDEO_CAPTURE, c={left=16, top=0, width=320, height=240}}) = -1 [EBADF]"#,
        r#"ioctl(-1, VIDIOC_G_CTRL, {id=V4L2_CID_BRIGHTNESS}) = -1 [EBADF]"#,
        r#"ioctl(-1, VIDIOC_S_CTRL, {id=V4L2_CTRL_CLASS_CAMERA+0x1234, value=-5}) = -1 [EBADF]"#,
        r#"ioctl(-1, VIDIOC_QUERYCTRL, {id=V4L2_CTRL_FLAG_NEXT_CTRL|V4L2_CID_CONTRAST}) = -1 [EBADF]"#,
        r#"ioctl(-1, VIDIOC_QUERY_EXT_CTRL, {id=V4L2_CID_GAIN}) = -1 [EBADF]"#,
        r#"ioctl(-1, VIDIOC_S_EXT_CTRLS, {ctrl_class=V4L2_CTRL_CLASS_CAMERA, count=2, controls=[{id=V4L2_CID_EXPOSURE_ABSOLUTE, size=0, value=250, value64=250}, {id=V4L2_CID_RDS_TX_PS_NAME, size=3, string="abc"}]}) = -1 [EBADF] {controls=[{id=V4L2_CID_EXPOSURE_ABSOLUTE, size=0, value=250, value64=250}, {id=V4L2_CID_RDS_TX_PS_NAME, size=3, string="abc"}], error_idx=2}"#,
        r#"ioctl(-1, VIDIOC_G_EXT_CTRLS, {ctrl_class=V4L2_CTRL_CLASS_CAMERA, count=2}) = -1 [EBADF] {controls=[{id=V4L2_CID_EXPOSURE_ABSOLUTE, size=0, value=250, value64=250}, {id=V4L2_CID_RDS_TX_PS_NAME, size=3, string="abc"}], error_idx=2}"#,
    ];
    assert_lines(&run(&[]), &want);
}

#[test]
fn answered_requests_show_what_the_kernel_wrote() {
    let want = [
        r#"ioctl(-1, VIDIOC_QUERYCAP, {driver="vivid", card="Test Camera", bus_info="platform:vivid-000", version=KERNEL_VERSION(6, 1, 0), capabilities=V4L2_CAP_VIDEO_CAPTURE|V4L2_CAP_STREAMING|V4L2_CAP_DEVICE_CAPS, device_caps=V4L2_CAP_VIDEO_CAPTURE|V4L2_CAP_STREAMING}) = 42 (INJECTED)"#,
        r#"ioctl(-1, VIDIOC_ENUM_FMT, {index=0, type=V4L2_BUF_TYPE_VIDEO_CAPTURE}) = 42 {flags=V4L2_FMT_FLAG_COMPRESSED, description="Motion-JPEG", pixelformat=v4l2_fourcc('M', 'J', 'P', 'G') /* V4L2_PIX_FMT_MJPEG */} (INJECTED)"#,
        r#"ioctl(-1, VIDIOC_G_FMT, {type=V4L2_BUF_TYPE_VIDEO_CAPTURE}) = 42 {fmt.pix={width=640, height=480, pixelformat=v4l2_fourcc('Y', 'U', 'Y', 'V') /* V4L2_PIX_FMT_YUYV */, field=V4L2_FIELD_NONE, bytesperline=1280, sizeimage=614400, colorspace=V4L2_COLORSPACE_SRGB}} (INJECTED)"#,
        r#"ioctl(-1, VIDIOC_S_FMT, {type=V4L2_BUF_TYPE_VIDEO_CAPTURE, fmt.pix={width=640, height=480, pixelformat=v4l2_fourcc('Y', 'U', 'Y', 'V') /* V4L2_PIX_FMT_YUYV */, field=V4L2_FIELD_NONE, bytesperline=1280, sizeimage=614400, colorspace=V4L2_COLORSPACE_SRGB}}) = 42 {fmt.pix={width=640, height=480, pixelformat=v4l2_fourcc('Y', 'U', 'Y', 'V') /* V4L2_PIX_FMT_YUYV */, field=V4L2_FIELD_NONE, bytesperline=1280, sizeimage=614400, colorspace=V4L2_COLORSPACE_SRGB}} (INJECTED)"#,
        r#"ioctl(-1, VIDIOC_TRY_FMT, {type=V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE, fmt.pix_mp={width=320, height=240, pixelformat=v4l2_fourcc('J', 'P', '\'', '\xfe'), field=V4L2_FIELD_INTERLACED, colorspace=V4L2_COLORSPACE_REC709, plane_fmt=[{sizeimage=76800, bytesperline=320}, {sizeimage=38400, bytesperline=160}], num_planes=2}}) = 42 {fmt.pix_mp={width=320, height=240, pixelformat=v4l2_fourcc('J', 'P', '\'', '\xfe'), field=V4L2_FIELD_INTERLACED, colorspace=V4L2_COLORSPACE_REC709, plane_fmt=[{sizeimage=76800, bytesperline=320}, {sizeimage=38400, bytesperline=160}], num_planes=2}} (INJECTED)"#,
        r#"ioctl(-1, VIDIOC_S_FMT, {type=V4L2_BUF_TYPE_VIDEO_OVERLAY, fmt.win={w={left=10, top=0, width=100, height=50}, field=V4L2_FIELD_ANY, chromakey=0xff00ff, clips=[{c={left=-1, top=2, width=3, height=4}}, {c={left=5, top=0, width=0, height=0}}], clipcount=2, bitmap=NULL, global_alpha=0x80}}) = 42 {fmt.win={w={left=10, top=0, width=100, height=50}, field=V4L2_FIELD_ANY, chromakey=0xff00ff, clips=[{c={left=-1, top=2, width=3, height=4}}, {c={left=5, top=0, width=0, height=0}}], clipcount=2, bitmap=NULL, global_alpha=0x80}} (INJECTED)"#,
        r#"ioctl(-1, VIDIOC_S_FMT, {type=V4L2_BUF_TYPE_VBI_CAPTURE, fmt.vbi={sampling_rate=27000000, offset=248, samples_per_line=1440, sample_format=v4l2_fourcc('G', 'R', 'E', 'Y') /* V4L2_PIX_FMT_GREY */, start=[6, -1], count=[17, 17], flags=V4L2_VBI_INTERLACED}}) = 42 {fmt.vbi={sampling_rate=27000000, offset=248, samples_per_line=1440, sample_format=v4l2_fourcc('G', 'R', 'E', 'Y') /* V4L2_PIX_FMT_GREY */, start=[6, -1], count=[17, 17], flags=V4L2_VBI_INTERLACED}} (INJECTED)"#,
        r#"ioctl(-1, VIDIOC_S_FMT, {type=V4L2_BUF_TYPE_SLICED_VBI_CAPTURE, fmt.sliced={service_set=V4L2_SLICED_VPS|V4L2_SLICED_CAPTION_525, service_lines=[[0, 0x400, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x1000]], io_size=64}}) = 42 {fmt.sliced={service_set=V4L2_SLICED_VPS|V4L2_SLICED_CAPTION_525, service_lines=[[0, 0x400, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x1000]], io_size=64}} (INJECTED)"#,
        r#"ioctl(-1, VIDIOC_S_FMT, {type=V4L2_BUF_TYPE_SDR_CAPTURE, fmt.sdr={pixelformat=v4l2_fourcc('C', 'U', '0', '8') /* V4L2_SDR_FMT_CU8 */, buffersize=65536}}) = 42 {fmt.sdr={pixelformat=v4l2_fourcc('C', 'U', '0', '8') /* V4L2_SDR_FMT_CU8 */, buffersize=65536}} (INJECTED)"#,
        r#"ioctl(-1, VIDIOC_S_FMT, {type=V4L2_BUF_TYPE_META_CAPTURE, fmt.meta={dataformat=v4l2_fourcc('U', 'V', 'C', 'H') /* V4L2_META_FMT_UVC */, buffersize=4096}}) = 42 {fmt.meta={dataformat=v4l2_fourcc('U', 'V', 'C', 'H') /* V4L2_META_FMT_UVC */, buffersize=4096}} (INJECTED)"#,
        r#"ioctl(-1, VIDIOC_ENUM_FRAMESIZES, {index=1, pixel_format=v4l2_fourcc('Y', 'U', 'Y', 'V') /* V4L2_PIX_FMT_YUYV */}) = 42 {type=V4L2_FRMSIZE_TYPE_DISCRETE, discrete={width=1280, height=720}} (INJECTED)"#,
        r#"ioctl(-1, VIDIOC_ENUM_FRAMEINTERVALS, {index=0, pixel_format=v4l2_fourcc('Y', 'U', 'Y', 'V') /* V4L2_PIX_FMT_YUYV */, width=1280, height=720}) = 42 {type=V4L2_FRMIVAL_TYPE_STEPWISE, stepwise={min=1/60, max=1/5, step=1/1}} (INJECTED)"#,
        r#"ioctl(-1, VIDIOC_REQBUFS, {type=V4L2_BUF_TYPE_VIDEO_CAPTURE, memory=V4L2_MEMORY_MMAP, count=4}) = 42 {count=4} (INJECTED)"#,
        r#"ioctl(-1, VIDIOC_CREATE_BUFS, {count=2, memory=V4L2_MEMORY_MMAP, format={type=V4L2_BUF_TYPE_META_CAPTURE, fmt.meta={dataformat=v4l2_fourcc('U', 'V', 'C', 'H') /* V4L2_META_FMT_UVC */, buffersize=4096}}}) = 42 {index=4, count=2} (INJECTED)"#,
        r#"ioctl(-1, VIDIOC_QUERYBUF, {type=V4L2_BUF_TYPE_VIDEO_CAPTURE, index=1}) = 42 {memory=V4L2_MEMORY_MMAP, m.offset=0x1000, length=614400, bytesused=614400, flags=V4L2_BUF_FLAG_MAPPED|V4L2_BUF_FLAG_DONE|V4L2_BUF_FLAG_TIMESTAMP_MONOTONIC|V4L2_BUF_FLAG_TSTAMP_SRC_SOE, ..} (INJECTED)"#,
        r#"ioctl(-1, VIDIOC_QBUF, {type=V4L2_BUF_TYPE_VIDEO_CAPTURE, index=1}) = 42 {memory=V4L2_MEMORY_MMAP, m.offset=0x1000, length=614400, bytesused=614400, flags=V4L2_BUF_FLAG_MAPPED|V4L2_BUF_FLAG_DONE|V4L2_BUF_FLAG_TIMESTAMP_MONOTONIC|V4L2_BUF_FLAG_TSTAMP_SRC_SOE, ..} (INJECTED)"#,
        r#"ioctl(-1, VIDIOC_DQBUF, {type=V4L2_BUF_TYPE_VIDEO_CAPTURE}) = 42 {index=1, memory=V4L2_MEMORY_MMAP, m.offset=0x1000, length=614400, bytesused=614400, flags=V4L2_BUF_FLAG_MAPPED|V4L2_BUF_FLAG_DONE|V4L2_BUF_FLAG_TIMESTAMP_MONOTONIC|V4L2_BUF_FLAG_TSTAMP_SRC_SOE, timestamp={tv_sec=12, tv_usec=345}, ..} (INJECTED)"#,
        r#"ioctl(-1, VIDIOC_STREAMON, [V4L2_BUF_TYPE_VIDEO_CAPTURE]) = 42 (INJECTED)"#,
        r#"ioctl(-1, VIDIOC_STREAMOFF, [V4L2_BUF_TYPE_VIDEO_CAPTURE]) = 42 (INJECTED)"#,
        r#"ioctl(-1, VIDIOC_S_FBUF, {capability=0x2, flags=0x1, base=NULL}) = 42 (INJECTED)"#,
        r#"ioctl(-1, VIDIOC_G_PARM, {type=V4L2_BUF_TYPE_VIDEO_CAPTURE}) = 42 {parm.capture={capability=V4L2_CAP_TIMEPERFRAME, capturemode=0, timeperframe=1/30, extendedmode=0, readbuffers=2}} (INJECTED)"#,
        r#"ioctl(-1, VIDIOC_S_PARM, {type=V4L2_BUF_TYPE_VIDEO_CAPTURE, parm.capture={capability=V4L2_CAP_TIMEPERFRAME, capturemode=0, timeperframe=1/30, extendedmode=0, readbuffers=2}}) = 42 {parm.capture={capability=V4L2_CAP_TIMEPERFRAME, capturemode=0, timeperframe=1/30, extendedmode=0, readbuffers=2}} (INJECTED)"#,
        r#"ioctl(-1, VIDIOC_S_STD, [0x1]) = 42 (INJECTED)"#,
        r#"ioctl(-1, VIDIOC_ENUMSTD, {index=2}) = 42 {name="PAL", frameperiod=1/25, framelines=625} (INJECTED)"#,
        r#"ioctl(-1, VIDIOC_ENUMINPUT, {index=0}) = 42 {name="Camera 1", type=V4L2_INPUT_TYPE_CAMERA} (INJECTED)"#,
        r#"ioctl(-1, VIDIOC_S_TUNER, {index=0, name="FM", type=V4L2_TUNER_RADIO, capability=V4L2_TUNER_CAP_LOW|V4L2_TUNER_CAP_STEREO, rangelow=1400000, rangehigh=1728000, rxsubchans=V4L2_TUNER_SUB_STEREO, audmode=V4L2_TUNER_MODE_STEREO, signal=-3, afc=0}) = 42 (INJECTED)"#,
        r#"ioctl(-1, VIDIOC_CROPCAP, {type=V4L2_BUF_TYPE_VIDEO_CAPTURE}) = 42 {bounds={left=0, top=0, width=640, height=480}, defrect={left=-8, top=0, width=0, height=0}, pixelaspect=54/59} (INJECTED)"#,
        r#"ioctl(-1, VIDIOC_G_CROP, {type=V4L2_BUF_TYPE_VIDEO_CAPTURE}) = 42 {c={left=16, top=0, width=320, height=240}} (INJECTED)"#,
        r#"ioctl(-1, VIDIOC_S_CROP, {type=V4L2_BUF_TYPE_VIDEO_CAPTURE, c={left=16, top=0, width=320, height=240}}) = 42 (INJECTED)"#,
        r#"ioctl(-1, VIDIOC_G_CTRL, {id=V4L2_CID_BRIGHTNESS}) = 42 {value=-5} (INJECTED)"#,
        r#"ioctl(-1, VIDIOC_S_CTRL, {id=V4L2_CTRL_CLASS_CAMERA+0x1234, value=-5}) = 42 {value=-5} (INJECTED)"#,
        r#"ioctl(-1, VIDIOC_QUERYCTRL, {id=V4L2_CTRL_FLAG_NEXT_CTRL|V4L2_CID_CONTRAST}) = 42 {id=V4L2_CTRL_FLAG_NEXT_CTRL|V4L2_CID_CONTRAST, type=V4L2_CTRL_TYPE_INTEGER, name="Contrast", ..} (INJECTED)"#,
        r#"ioctl(-1, VIDIOC_QUERY_EXT_CTRL, {id=V4L2_CID_GAIN}) = 42 {id=V4L2_CID_GAIN, type=V4L2_CTRL_TYPE_INTEGER64, name="Gain", ..} (INJECTED)"#,
        r#"ioctl(-1, VIDIOC_S_EXT_CTRLS, {ctrl_class=V4L2_CTRL_CLASS_CAMERA, count=2, controls=[{id=V4L2_CID_EXPOSURE_ABSOLUTE, size=0, value=250, value64=250}, {id=V4L2_CID_RDS_TX_PS_NAME, size=3, string="abc"}]}) = 42 {controls=[{id=V4L2_CID_EXPOSURE_ABSOLUTE, size=0, value=250, value64=250}, {id=V4L2_CID_RDS_TX_PS_NAME, size=3, string="abc"}]} (INJECTED)"#,
        r#"ioctl(-1, VIDIOC_G_EXT_CTRLS, {ctrl_class=V4L2_CTRL_CLASS_CAMERA, count=2}) = 42 {controls=[{id=V4L2_CID_EXPOSURE_ABSOLUTE, size=0, value=250, value64=250}, {id=V4L2_CID_RDS_TX_PS_NAME, size=3, string="abc"}]} (INJECTED)"#,
    ];
    assert_lines(&run(&["-e", INJECT]), &want);
}

#[test]
fn verbose_shows_a_controls_range_and_flags() {
    let lines = run(&["-v", "-e", INJECT]);
    assert_eq!(
        line_of(&lines, "VIDIOC_QUERYCTRL"),
        "ioctl(-1, VIDIOC_QUERYCTRL, {id=V4L2_CTRL_FLAG_NEXT_CTRL|V4L2_CID_CONTRAST}) = 42 \
         {id=V4L2_CTRL_FLAG_NEXT_CTRL|V4L2_CID_CONTRAST, type=V4L2_CTRL_TYPE_INTEGER, \
         name=\"Contrast\", minimum=-64, maximum=64, step=1, default_value=0, \
         flags=V4L2_CTRL_FLAG_SLIDER} (INJECTED)"
    );
    assert_eq!(
        line_of(&lines, "VIDIOC_QUERY_EXT_CTRL"),
        "ioctl(-1, VIDIOC_QUERY_EXT_CTRL, {id=V4L2_CID_GAIN}) = 42 {id=V4L2_CID_GAIN, \
         type=V4L2_CTRL_TYPE_INTEGER64, name=\"Gain\", minimum=0, maximum=1099511627776, \
         step=2, default_value=0, flags=0, elem_size=8, elems=1, nr_of_dims=1, dims=[1]} \
         (INJECTED)"
    );
}

#[test]
fn x_raw_and_x_verbose_spell_the_numbers_as_strace() {
    let raw = run(&["-X", "raw", "-e", INJECT]);
    assert_eq!(
        line_with(&raw, "= 42 {index=1, memory="),
        "ioctl(-1, ADDR, {type=0x1}) = 42 {index=1, memory=0x1, m.offset=0x1000, \
         length=614400, bytesused=614400, flags=0x12005, timestamp={tv_sec=12, tv_usec=345}, ..} \
         (INJECTED)"
    );
    assert_eq!(
        line_with(&raw, "}}) = 42 {fmt.meta="),
        "ioctl(-1, ADDR, {type=0xd, fmt.meta={dataformat=0x48435655, buffersize=4096}}) \
         = 42 {fmt.meta={dataformat=0x48435655, buffersize=4096}} (INJECTED)"
    );
    assert_eq!(
        line_with(&raw, "{driver="),
        "ioctl(-1, ADDR, {driver=\"vivid\", card=\"Test Camera\", \
         bus_info=\"platform:vivid-000\", version=0x60100, capabilities=0x84000001, \
         device_caps=0x4000001}) = 42 (INJECTED)"
    );
    let verbose = run(&["-X", "verbose", "-e", INJECT]);
    assert_eq!(
        line_with(&verbose, "/* VIDIOC_QUERYCAP */"),
        "ioctl(-1, ADDR /* VIDIOC_QUERYCAP */, {driver=\"vivid\", card=\"Test Camera\", \
         bus_info=\"platform:vivid-000\", version=0x60100 /* KERNEL_VERSION(6, 1, 0) */, \
         capabilities=0x84000001 /* V4L2_CAP_VIDEO_CAPTURE|V4L2_CAP_STREAMING|\
         V4L2_CAP_DEVICE_CAPS */, device_caps=0x4000001 /* V4L2_CAP_VIDEO_CAPTURE|\
         V4L2_CAP_STREAMING */}) = 42 (INJECTED)"
    );
    assert_eq!(
        line_with(&verbose, "/* VIDIOC_DQBUF */"),
        "ioctl(-1, ADDR /* VIDIOC_DQBUF */, {type=0x1 /* V4L2_BUF_TYPE_VIDEO_CAPTURE */}) \
         = 42 {index=1, memory=0x1 /* V4L2_MEMORY_MMAP */, m.offset=0x1000, length=614400, \
         bytesused=614400, flags=0x5 /* V4L2_BUF_FLAG_MAPPED|V4L2_BUF_FLAG_DONE */|0x2000 \
         /* V4L2_BUF_FLAG_TIMESTAMP_MONOTONIC */|0x10000 /* V4L2_BUF_FLAG_TSTAMP_SRC_SOE */, \
         timestamp={tv_sec=12, tv_usec=345}, ..} (INJECTED)"
    );
    assert_eq!(
        line_with(&verbose, "/* VIDIOC_S_CTRL */"),
        "ioctl(-1, ADDR /* VIDIOC_S_CTRL */, {id=0x9a1234 /* V4L2_CTRL_CLASS_CAMERA+0x1234 \
         */, value=-5}) = 42 {value=-5} (INJECTED)"
    );
}

/// A 32-bit program's requests whose structs are the same on both ABIs
/// (no pointer, no timeval: their codes are the same) decode alike; the
/// others have other codes there, which the group does not claim.
#[test]
fn an_i386_program_s_same_layout_requests_decode_alike() {
    let bin = common::fixture_m32("ioctl_v4l2");
    let run = trace(
        &["-e", "trace=ioctl", "-e", INJECT],
        &[bin.file_name().unwrap().to_str().unwrap()],
    );
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let i386 = run.lines();
    let native = run_lines_injected();
    for request in [
        "VIDIOC_QUERYCAP",
        "VIDIOC_ENUM_FMT",
        "VIDIOC_ENUM_FRAMESIZES",
        "VIDIOC_ENUM_FRAMEINTERVALS",
        "VIDIOC_REQBUFS",
        "VIDIOC_STREAMON",
        "VIDIOC_G_PARM",
        "VIDIOC_S_PARM",
        "VIDIOC_S_STD",
        "VIDIOC_S_TUNER",
        "VIDIOC_CROPCAP",
        "VIDIOC_G_CROP",
        "VIDIOC_S_CROP",
        "VIDIOC_G_CTRL",
        "VIDIOC_S_CTRL",
        "VIDIOC_QUERYCTRL",
        "VIDIOC_QUERY_EXT_CTRL",
    ] {
        assert_eq!(line_of(&i386, request), line_of(&native, request));
    }
    assert!(
        line_of(&i386, "VIDIOC_G_FMT").starts_with("ioctl(-1, VIDIOC_G_FMT, \"\\1\\0\\0\\0"),
        "{i386:#?}"
    );
}

/// The x86_64 fixture's lines under injection.
fn run_lines_injected() -> Vec<String> {
    run(&["-e", INJECT])
}

#[test]
fn json_carries_names_and_values() {
    use serde_json::{Value, json};
    let bin = common::fixture("ioctl_v4l2");
    let run = trace(
        &["--json", "-e", "trace=ioctl", "-e", INJECT],
        &[bin.file_name().unwrap().to_str().unwrap()],
    );
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let objs: Vec<Value> = run
        .trace
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    let find = |request: &str| {
        objs.iter()
            .find(|o| o["name"] == "ioctl" && o["args"]["request"] == request)
            .unwrap_or_else(|| panic!("no {request} in {}", run.trace))
    };
    let g_fmt = find("VIDIOC_G_FMT");
    assert_eq!(
        g_fmt["args"]["arg"],
        json!({"type": {"value": 1, "name": "V4L2_BUF_TYPE_VIDEO_CAPTURE"}})
    );
    assert_eq!(
        g_fmt["returned"]["arg"]["fmt.pix"]["pixelformat"],
        json!({"value": 0x5659_5559, "name": "V4L2_PIX_FMT_YUYV"})
    );
    let dqbuf = find("VIDIOC_DQBUF");
    assert_eq!(
        dqbuf["returned"]["arg"]["flags"],
        json!({"value": 0x12005, "flags": ["V4L2_BUF_FLAG_MAPPED", "V4L2_BUF_FLAG_DONE",
               "V4L2_BUF_FLAG_TIMESTAMP_MONOTONIC", "V4L2_BUF_FLAG_TSTAMP_SRC_SOE"]})
    );
    let ext = find("VIDIOC_S_EXT_CTRLS");
    // A failed call's error_idx is the kernel's answer too.
    let failed = common::trace(
        &["--json", "-e", "trace=ioctl"],
        &[bin.file_name().unwrap().to_str().unwrap()],
    );
    let failed: Value = failed
        .trace
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|o| o["args"]["request"] == "VIDIOC_G_EXT_CTRLS")
        .expect("VIDIOC_G_EXT_CTRLS");
    assert_eq!(failed["errno"], "EBADF");
    assert_eq!(failed["returned"]["arg"]["error_idx"], 2);
    assert_eq!(
        ext["args"]["arg"]["controls"][1],
        json!({"id": {"value": 0x9b_0905, "name": "V4L2_CID_RDS_TX_PS_NAME"}, "size": 3,
               "string": "abc"})
    );
}

/// The clip rectangles and the extended controls are arrays as every
/// other: as many elements as `-s` says, then `..`.
#[test]
fn arrays_stop_at_the_string_limit() {
    let lines = run(&["-s", "1"]);
    let fmt = line_with(&lines, "V4L2_BUF_TYPE_VIDEO_OVERLAY");
    assert!(
        fmt.contains("clips=[{c={left=-1, top=2, width=3, height=4}}, ..], clipcount=2"),
        "{fmt}"
    );
    let ctrls = line_of(&lines, "VIDIOC_S_EXT_CTRLS");
    assert!(
        ctrls.contains(
            "controls=[{id=V4L2_CID_EXPOSURE_ABSOLUTE, size=0, value=250, value64=250}, ..]"
        ),
        "{ctrls}"
    );
}
