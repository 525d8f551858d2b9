//! The events of the emulated user_events, as kernel/trace/trace_events_user.c
//! makes them: fields parsed by the one grammar rtrace has
//! (`abi::user_events::parse_fields`, which the decoder uses too), the
//! comparison of a redefinition
//! (`user_fields_match`), and what tracefs shows of an event (its `format`
//! file, its line in `user_events_status`).

pub use crate::abi::user_events::{ENTRY, Field, Filter, Loc, argv_split, kstrtoull, parse_fields};

pub use crate::abi::gen_user_events::{
    USER_EVENT_REG_MULTI_FORMAT as REG_MULTI_FORMAT, USER_EVENT_REG_PERSIST as REG_PERSIST,
};

/// One event.
#[derive(Debug)]
pub struct Event {
    /// The registered name.
    pub name: Vec<u8>,
    /// The tracepoint's name: the name, or `name.ID` for multi-format.
    pub tp_name: Vec<u8>,
    /// `user_events` or `user_events_multi`.
    pub system: &'static str,
    /// The registration's flags.
    pub flags: u16,
    /// Its fields in order.
    pub fields: Vec<Field>,
    /// The kernel's refcnt.
    pub refs: u32,
    /// A tracer (ftrace) records it.
    pub enabled: bool,
    /// The trace event id shown in `format`.
    pub id: u32,
    /// Not deleted yet (a deleted event stays for its open enable files).
    pub alive: bool,
}

/// `user_fields_match`: whether a redefinition's words are this event's
/// fields.
pub fn fields_match(fields: &[Field], argv: &[Vec<u8>]) -> bool {
    if argv.is_empty() {
        return fields.is_empty();
    }
    let mut i = 0;
    for f in fields {
        if i >= argv.len() {
            return false;
        }
        let start = i;
        let mut dyn_text = Vec::new();
        let mut colon = false;
        while i < argv.len() {
            if i != start {
                dyn_text.push(b' ');
            }
            dyn_text.extend_from_slice(&argv[i]);
            let semi = argv[i].contains(&b';');
            i += 1;
            if semi {
                colon = true;
                break;
            }
        }
        let mut mine = f.ty.clone();
        mine.push(b' ');
        mine.extend_from_slice(&f.name);
        if f.is_struct {
            mine.extend_from_slice(format!(" {}", f.size).as_bytes());
        }
        if colon {
            mine.push(b';');
        }
        if dyn_text != mine {
            return false;
        }
    }
    i == argv.len()
}

/// `user_field_format`: the print fmt's conversion of a field.
fn print_conv(ty: &[u8]) -> &'static str {
    match ty {
        b"s64" => "%lld",
        b"u64" => "%llu",
        b"s32" | b"int" | b"s16" | b"short" | b"s8" | b"char" => "%d",
        b"u32" | b"unsigned int" | b"u16" | b"unsigned short" | b"u8" | b"unsigned char" => "%u",
        _ if memchr::memmem::find(ty, b"char[").is_some() => "%s",
        _ => "%llu",
    }
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

impl Event {
    /// Payload bytes a write needs at least (after the write_index).
    pub fn min_size(&self) -> usize {
        self.fields.last().map_or(0, |f| f.offset + f.size - ENTRY)
    }

    /// `user_event_set_print_fmt`.
    pub fn print_fmt(&self) -> String {
        let names: Vec<String> = self
            .fields
            .iter()
            .map(|f| format!("{}={}", text(&f.name), print_conv(&f.ty)))
            .collect();
        let mut s = format!("\"{}\"", names.join(" "));
        for f in &self.fields {
            let func = match f.filter {
                Filter::DynString => Some("__get_str"),
                Filter::RelDynString => Some("__get_rel_str"),
                _ => None,
            };
            match func {
                Some(func) => s.push_str(&format!(", {func}({})", text(&f.name))),
                None => s.push_str(&format!(", REC->{}", text(&f.name))),
            }
        }
        s
    }

    /// The event's `format` file (`f_show` of trace_events.c).
    pub fn format_file(&self) -> String {
        let mut s = format!(
            "name: {}\nID: {}\nformat:\n\
             \tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\
             \tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n\
             \tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n\
             \tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n",
            text(&self.tp_name),
            self.id
        );
        for f in &self.fields {
            let ty = text(&f.ty);
            // f_show (since 6.2) prints an array as `TYPE NAME[len]` with
            // the field's `len`, or `TYPE NAME[]` when it is 0; but
            // user_event_add_field kmallocs its fields and never sets
            // `len`: on kernels that zero allocations (init_on_alloc,
            // Debian's default) it is 0, so `char tag[]` (elsewhere,
            // whatever the memory held). A __data_loc type is no array.
            let bracket = ty.find('[').filter(|_| !ty.starts_with("__data_loc"));
            let decl = match bracket {
                Some(i) => format!("{} {}[]", &ty[..i], text(&f.name)),
                None => format!("{ty} {}", text(&f.name)),
            };
            s.push_str(&format!(
                "\tfield:{decl};\toffset:{};\tsize:{};\tsigned:{};\n",
                f.offset,
                f.size,
                u8::from(f.signed)
            ));
        }
        s.push_str(&format!("\nprint fmt: {}\n", self.print_fmt()));
        s
    }
}

/// `jhash(key, length, initval)` of include/linux/jhash.h (Bob Jenkins'
/// lookup3 `hashlittle`): the key of an event in the kernel's
/// `register_table`.
pub fn jhash(key: &[u8], initval: u32) -> u32 {
    let mut a = 0xdead_beef_u32
        .wrapping_add(key.len() as u32)
        .wrapping_add(initval);
    let (mut b, mut c) = (a, a);
    let word = |k: &[u8]| {
        k.iter()
            .enumerate()
            .fold(0u32, |v, (i, &x)| v.wrapping_add(u32::from(x) << (8 * i)))
    };
    let mut k = key;
    while k.len() > 12 {
        a = a.wrapping_add(word(&k[0..4]));
        b = b.wrapping_add(word(&k[4..8]));
        c = c.wrapping_add(word(&k[8..12]));
        // __jhash_mix
        a = a.wrapping_sub(c) ^ c.rotate_left(4);
        c = c.wrapping_add(b);
        b = b.wrapping_sub(a) ^ a.rotate_left(6);
        a = a.wrapping_add(c);
        c = c.wrapping_sub(b) ^ b.rotate_left(8);
        b = b.wrapping_add(a);
        a = a.wrapping_sub(c) ^ c.rotate_left(16);
        c = c.wrapping_add(b);
        b = b.wrapping_sub(a) ^ a.rotate_left(19);
        a = a.wrapping_add(c);
        c = c.wrapping_sub(b) ^ b.rotate_left(4);
        b = b.wrapping_add(a);
        k = &k[12..];
    }
    if k.is_empty() {
        return c;
    }
    // The last 1 to 12 bytes, little-endian words zero-padded.
    a = a.wrapping_add(word(&k[..k.len().min(4)]));
    if k.len() > 4 {
        b = b.wrapping_add(word(&k[4..k.len().min(8)]));
    }
    if k.len() > 8 {
        c = c.wrapping_add(word(&k[8..]));
    }
    // __jhash_final
    c = (c ^ b).wrapping_sub(b.rotate_left(14));
    a = (a ^ c).wrapping_sub(c.rotate_left(11));
    b = (b ^ a).wrapping_sub(a.rotate_left(25));
    c = (c ^ b).wrapping_sub(b.rotate_left(16));
    a = (a ^ c).wrapping_sub(c.rotate_left(4));
    b = (b ^ a).wrapping_sub(a.rotate_left(14));
    (c ^ b).wrapping_sub(b.rotate_left(24))
}

/// The bucket of `register_table` (`DECLARE_HASHTABLE(register_table, 8)`)
/// an event registered as `name` is in: `hash_min(jhash(name), 8)`, for a
/// 32-bit key `hash_32`: the golden-ratio product's top 8 bits.
pub fn bucket(name: &[u8]) -> u32 {
    jhash(name, 0).wrapping_mul(0x61c8_8647) >> 24
}

/// `user_seq_show`: the `user_events_status` file. The kernel walks
/// `register_table` with `hash_for_each`: bucket by bucket, each bucket
/// newest first (`hash_add` puts an event at its bucket's head); `events`
/// come in creation order.
pub fn status_file<'a>(events: impl Iterator<Item = &'a Event>) -> String {
    let mut events: Vec<&Event> = events.collect();
    events.reverse();
    // Stable: within a bucket the newest stays first.
    events.sort_by_key(|e| bucket(&e.name));
    let (mut s, mut active, mut busy) = (String::new(), 0, 0);
    for e in events {
        s.push_str(&text(&e.tp_name));
        if e.enabled {
            s.push_str(" # Used by ftrace");
            busy += 1;
        }
        s.push('\n');
        active += 1;
    }
    s.push_str(&format!("\nActive: {active}\nBusy: {busy}\n"));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The `format` file as f_show prints it: the common fields, a blank
    /// line, the event's (arrays with `[]`, the kernel's unset `len`),
    /// the print fmt.
    #[test]
    fn format_file_as_f_show() {
        let mut e = event("rtrace_probe", 1000);
        e.fields = parse_fields(Some(
            b"u32 count;char[8] tag;__rel_loc char[] note;unsigned char[2] u",
        ))
        .unwrap();
        let fmt = e.format_file();
        let fields: Vec<&str> = fmt.lines().skip(8).take(4).collect();
        assert_eq!(
            fields,
            [
                "\tfield:u32 count;\toffset:8;\tsize:4;\tsigned:0;",
                "\tfield:char tag[];\toffset:12;\tsize:8;\tsigned:1;",
                "\tfield:__rel_loc char note[];\toffset:20;\tsize:4;\tsigned:1;",
                "\tfield:unsigned char u[];\toffset:24;\tsize:2;\tsigned:0;",
            ],
            "{fmt}"
        );
        assert!(
            fmt.starts_with("name: rtrace_probe\nID: 1000\nformat:\n"),
            "{fmt}"
        );
    }

    /// lookup3.c's own checks of `hashlittle` (its driver5), which the
    /// kernel's jhash is.
    #[test]
    fn jhash_is_lookup3() {
        assert_eq!(jhash(b"", 0), 0xdead_beef);
        assert_eq!(jhash(b"", 0xdead_beef), 0xbd5b_7dde);
        assert_eq!(jhash(b"Four score and seven years ago", 0), 0x1777_0551);
        assert_eq!(jhash(b"Four score and seven years ago", 1), 0xcd62_8161);
    }

    fn event(name: &str, id: u32) -> Event {
        Event {
            name: name.as_bytes().to_vec(),
            tp_name: name.as_bytes().to_vec(),
            system: "user_events",
            flags: 0,
            fields: Vec::new(),
            refs: 1,
            enabled: id.is_multiple_of(2),
            id,
            alive: true,
        }
    }

    /// The status file lists events by their bucket, newest first in one:
    /// b (bucket 98), a (116), rtrace_probe (133), rtrace_rel and
    /// rtrace_multi (both 167; rtrace_rel was made after), c (241).
    #[test]
    fn status_lists_in_hash_order() {
        let names = ["rtrace_probe", "rtrace_multi", "rtrace_rel", "a", "b", "c"];
        let events: Vec<Event> = names
            .iter()
            .enumerate()
            .map(|(i, n)| event(n, i as u32))
            .collect();
        assert_eq!(
            status_file(events.iter()),
            "b # Used by ftrace\na\nrtrace_probe # Used by ftrace\n\
             rtrace_rel # Used by ftrace\nrtrace_multi\nc\n\nActive: 6\nBusy: 3\n"
        );
    }

    fn layout(args: &str) -> Result<Vec<(String, usize, usize)>, i32> {
        let fields = parse_fields(Some(args.as_bytes())).map_err(|_| libc::EINVAL);
        fields.map(|v| {
            v.iter()
                .map(|f| {
                    (
                        format!("{} {}", text(&f.ty), text(&f.name)),
                        f.offset,
                        f.size,
                    )
                })
                .collect()
        })
    }

    #[test]
    fn the_kernels_grammar() {
        assert_eq!(
            layout("u32 count;char[8] tag").unwrap(),
            [("u32 count".into(), 8, 4), ("char[8] tag".into(), 12, 8)]
        );
        assert_eq!(
            layout(" unsigned int a; __rel_loc char[] b;;struct x y 3").unwrap(),
            [
                ("unsigned int a".into(), 8, 4),
                ("__rel_loc char[] b".into(), 12, 4),
                ("struct x y".into(), 16, 3)
            ]
        );
        for bad in [
            "long x",
            "u32 x y",
            "char[] s",
            "char[2000] s",
            "u32",
            "struct s x",
        ] {
            assert_eq!(layout(bad), Err(libc::EINVAL), "{bad}");
        }
        assert_eq!(kstrtoull(b"0x10", 0), Some(16));
        assert_eq!(kstrtoull(b"1\n", 10), Some(1));
        assert_eq!(kstrtoull(b"1 ", 10), None);
    }

    #[test]
    fn redefinitions_compare_as_the_kernel_does() {
        let f = parse_fields(Some(b"u32 count;char[8] tag")).unwrap();
        assert!(fields_match(&f, &argv_split(b"u32 count;char[8] tag")));
        assert!(fields_match(&f, &argv_split(b"u32  count; char[8] tag")));
        assert!(!fields_match(&f, &argv_split(b"u64 count")));
        assert!(!fields_match(&f, &argv_split(b"u32 count")));
    }
}
