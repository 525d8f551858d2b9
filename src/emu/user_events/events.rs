//! The events of the emulated user_events, as kernel/trace/trace_events_user.c
//! makes them: fields parsed by the one grammar rtrace has
//! (`abi::user_events::parse_fields`, which the decoder uses too), the
//! comparison of a redefinition
//! (`user_fields_match`), and what tracefs shows of an event (its `format`
//! file, its line in `user_events_status`).

pub use crate::abi::user_events::{ENTRY, Field, Filter, Loc, argv_split, kstrtoull, parse_fields};

/// `USER_EVENT_REG_PERSIST`.
pub const REG_PERSIST: u16 = 1;
/// `USER_EVENT_REG_MULTI_FORMAT`.
pub const REG_MULTI_FORMAT: u16 = 2;

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
            let bracket = ty.find('[').filter(|_| !ty.starts_with("__data_loc"));
            let decl = match bracket {
                Some(i) => format!("{} {}{}", &ty[..i], text(&f.name), &ty[i..]),
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

/// `user_seq_show`: the `user_events_status` file.
pub fn status_file<'a>(events: impl Iterator<Item = &'a Event>) -> String {
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
