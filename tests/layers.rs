//! The crate's layers, checked from its own source: every `crate::`,
//! `super::`, `self::`, child-module and alias path in `src/` is an import
//! edge between two modules, and the edges must go down [`FLOORS`], the
//! layer order (HACKING.md's Layers section shows the same list, and this
//! test compares the two). Inside a floor the files must not import each
//! other in a circle either.
//!
//! What counts as an edge: a path that names an item of another module
//! file, in a `use` tree or in code (`crate::decode::put_fd(..)`), tests
//! included (a test module compiles with its file). A path is resolved to
//! the deepest module file it names: `crate::service::fs::UMODE_MASK` is an
//! edge to `service/fs.rs`, `crate::service::h` one to `service/mod.rs`.
//! Comments and string literals are not code and are skipped.
//!
//! The rules:
//! 1. Every top-level module (`src/X.rs` or `src/X/`) is on exactly one
//!    floor, so a new module has to be given its place.
//! 2. An edge between two top-level modules goes to a lower floor: never up,
//!    never sideways. That alone rules out any circle through two of them.
//! 3. The module files must not import each other in a circle. A
//!    directory's `mod.rs` and the files under it are the one allowance: the
//!    `mod.rs` gathers its files' tables while they use its shared items
//!    (`service::h`), as Rust's module tree makes natural. So the circle
//!    search runs twice, once without the edges from a `mod.rs` down to its
//!    own files and once without the edges from the files up to it; a
//!    circle found either time fails.
//!
//! The test's own parser is checked on small made-up trees at the end, so
//! a layer break it could not see would fail here first.

#[path = "common/source.rs"]
mod source;

use source::{code_of, sources};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The layer order, top floor first: each top-level module of the crate
/// (`main` is the binary, `src/main.rs`, and [`BINARY`] the modules it
/// declares). A module imports only from modules on lower floors.
/// HACKING.md's Layers section holds the same list between its `floors`
/// markers.
const FLOORS: &[&[&str]] = &[
    &["main"],
    &["cli"],
    &["trace"],
    &["select", "emu"],
    &["service", "diag"],
    &["ioctl"],
    &["call", "decode"],
    &["format", "sysent", "stack"],
    &["fdtable", "kernel", "output", "filter"],
    &["escape", "fasthash", "spelling"],
    &["abi"],
];

/// The binary's modules: `src/main.rs` and the modules it declares
/// (`src/cli/`), which reach the library as `rtrace_cli::`.
const BINARY: &[&str] = &["main", "cli"];

/// Upward edges tolerated for now, as (importing module, imported module),
/// each with the reason it is still here. Each is matched exactly.
const EXCEPTIONS: &[(&str, &str)] = &[];

/// A module: its path from the crate root (`["service", "fs"]`); the
/// binary is `["main"]`, the library root `[]`.
type Module = Vec<String>;

fn name(m: &[String]) -> String {
    if m.is_empty() {
        "crate root (lib.rs)".into()
    } else {
        m.join("::")
    }
}

/// The module a source file (relative to `src/`) is.
fn module_of(rel: &str) -> Module {
    let rel = rel.strip_suffix(".rs").expect("a .rs file");
    let mut parts: Vec<String> = rel.split('/').map(str::to_string).collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    if parts == ["lib"] {
        parts.clear();
    }
    parts
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The paths a `use` tree names, each with the name it binds
/// (`a::{b, c as d}` -> `a::b` as `b`, `a::c` as `d`; `a::{self}` -> `a`).
fn use_paths(tree: &str) -> Vec<(Vec<String>, Option<String>)> {
    fn walk(prefix: &[String], s: &str, out: &mut Vec<(Vec<String>, Option<String>)>) {
        // Split at the top level's commas.
        let (mut depth, mut start, mut parts) = (0, 0, Vec::new());
        for (i, c) in s.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    parts.push(&s[start..i]);
                    start = i + 1;
                }
                _ => {}
            }
        }
        parts.push(&s[start..]);
        for part in parts.into_iter().map(str::trim).filter(|p| !p.is_empty()) {
            if let Some(open) = part.find('{') {
                let head: Vec<String> = part[..open]
                    .split("::")
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(str::to_string)
                    .collect();
                let inner = &part[open + 1..part.rfind('}').expect("balanced use tree")];
                let mut p = prefix.to_vec();
                p.extend(head);
                walk(&p, inner, out);
            } else {
                let (path, alias) = match part.split_once(" as ") {
                    Some((path, alias)) => (path, Some(alias.trim().to_string())),
                    None => (part, None),
                };
                let mut p = prefix.to_vec();
                p.extend(path.split("::").map(|s| s.trim().to_string()));
                if p.last().is_some_and(|s| s == "self") {
                    p.pop();
                }
                let alias = alias.or_else(|| p.last().cloned());
                out.push((p, alias));
            }
        }
    }
    let tree: String = tree.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut out = Vec::new();
    walk(&[], &tree, &mut out);
    out
}

/// The module files of a source tree and the import edges between them:
/// (from, to) -> one path that makes the edge, for the message.
struct Graph {
    modules: BTreeSet<Module>,
    edges: BTreeMap<(Module, Module), String>,
}

/// Read the import edges of `files` (path relative to `src/`, text).
fn graph(files: &[(String, String)]) -> Graph {
    let modules: BTreeSet<Module> = files.iter().map(|(rel, _)| module_of(rel)).collect();
    let mut edges = BTreeMap::new();
    for (rel, text) in files {
        let here = module_of(rel);
        let code = code_of(text);
        // Inline modules (`mod tests { .. }`): byte ranges and names, so a
        // `super::` inside one is resolved from there.
        let mut inline: Vec<(usize, usize, String)> = Vec::new();
        let mut children: BTreeSet<String> = BTreeSet::new();
        let words: Vec<(usize, &str)> = word_starts(&code);
        for (k, &(at, w)) in words.iter().enumerate() {
            if w != "mod" {
                continue;
            }
            let Some(&(name_at, name)) = words.get(k + 1) else {
                continue;
            };
            let after = code[name_at + name.len()..].trim_start();
            if after.starts_with(';') {
                children.insert(name.to_string());
            } else if after.starts_with('{') {
                let open = code.len() - after.len();
                let mut depth = 0;
                let mut end = code.len();
                for (i, c) in code[open..].char_indices() {
                    match c {
                        '{' => depth += 1,
                        '}' => {
                            depth -= 1;
                            if depth == 0 {
                                end = open + i;
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                inline.push((at, end, name.to_string()));
            }
        }
        let scope_at = |at: usize| -> Module {
            let mut m = here.clone();
            m.extend(
                inline
                    .iter()
                    .filter(|(s, e, _)| (*s..*e).contains(&at))
                    .map(|(_, _, n)| n.clone()),
            );
            m
        };
        // Every path, from `use` trees and from code.
        let mut paths: Vec<(usize, Vec<String>, Option<String>)> = Vec::new();
        for &(at, w) in &words {
            if w == "use" {
                let end = code[at..].find(';').map_or(code.len(), |n| at + n);
                for (p, alias) in use_paths(&code[at + 3..end]) {
                    paths.push((at, p, alias));
                }
            }
        }
        let chars: Vec<(usize, char)> = code.char_indices().collect();
        let mut i = 0;
        while i < chars.len() {
            let (at, c) = chars[i];
            let starts = (c.is_ascii_alphabetic() || c == '_')
                && (i == 0 || {
                    let p = chars[i - 1].1;
                    !is_ident(p) && p != ':'
                });
            if !starts {
                i += 1;
                continue;
            }
            let mut end = at;
            let rest = &code[at..];
            let mut segs = Vec::new();
            let mut s = rest;
            loop {
                let n = s.find(|c: char| !is_ident(c)).unwrap_or(s.len());
                segs.push(s[..n].to_string());
                end += n;
                s = &s[n..];
                match s.strip_prefix("::") {
                    Some(t) if t.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') => {
                        s = t;
                        end += 2;
                    }
                    _ => break,
                }
            }
            if segs.len() > 1 {
                paths.push((at, segs, None));
            }
            while i < chars.len() && chars[i].0 < end {
                i += 1;
            }
        }
        // Names bound to modules by `use` (`use crate::service;`,
        // `use super::names::{self, ..}`), for paths that start with them.
        let mut aliases: BTreeMap<String, Module> = BTreeMap::new();
        let absolute = |at: usize, p: &[String], aliases: &BTreeMap<String, Module>| {
            let scope = scope_at(at);
            let first = p.first()?.as_str();
            Some(match first {
                "crate" => p[1..].to_vec(),
                "rtrace_cli" if here.first().is_some_and(|m| BINARY.contains(&m.as_str())) => {
                    p[1..].to_vec()
                }
                "self" => [scope.as_slice(), &p[1..]].concat(),
                "super" => {
                    let ups = p.iter().take_while(|s| *s == "super").count();
                    let base = &scope[..scope.len().checked_sub(ups)?];
                    [base, &p[ups..]].concat()
                }
                // The binary's root is `main`, but what it declares is
                // top-level (`mod cli;` is `src/cli/`), as the library
                // root's is.
                _ if scope == here && children.contains(first) && here == ["main"] => p.to_vec(),
                _ if scope == here && children.contains(first) => [here.as_slice(), p].concat(),
                _ => [aliases.get(first)?.as_slice(), &p[1..]].concat(),
            })
        };
        for (at, p, alias) in &paths {
            if let (Some(abs), Some(alias)) = (absolute(*at, p, &aliases), alias)
                && modules.contains(&abs)
            {
                aliases.insert(alias.clone(), abs);
            }
        }
        for (at, p, _) in &paths {
            let Some(abs) = absolute(*at, p, &aliases) else {
                continue;
            };
            let to = (0..=abs.len())
                .rev()
                .map(|n| abs[..n].to_vec())
                .find(|m| modules.contains(m))
                .unwrap_or_default();
            if to != here && !to.is_empty() {
                edges
                    .entry((here.clone(), to))
                    .or_insert_with(|| format!("{rel}: {}", p.join("::")));
            }
        }
    }
    Graph { modules, edges }
}

/// Each word of code with its byte offset.
fn word_starts(code: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in code.char_indices().chain([(code.len(), ' ')]) {
        match (start, is_ident(c)) {
            (None, true) => start = Some(i),
            (Some(s), false) => {
                out.push((s, &code[s..i]));
                start = None;
            }
            _ => {}
        }
    }
    out
}

/// Whether `a` encloses `b` (`service` encloses `service::netlink::diag`).
fn encloses(a: &[String], b: &[String]) -> bool {
    a.len() < b.len() && b[..a.len()] == *a
}

/// The circles of a graph: its strongly connected parts of two or more.
fn circles(nodes: &BTreeSet<Module>, edges: &[(Module, Module)]) -> Vec<Vec<Module>> {
    let index: BTreeMap<&Module, usize> = nodes.iter().enumerate().map(|(i, m)| (m, i)).collect();
    let list: Vec<&Module> = nodes.iter().collect();
    let mut next = vec![Vec::new(); list.len()];
    for (a, b) in edges {
        next[index[a]].push(index[b]);
    }
    // Tarjan's algorithm, iteratively.
    let n = list.len();
    let (mut idx, mut low, mut on) = (vec![usize::MAX; n], vec![0; n], vec![false; n]);
    let (mut stack, mut out, mut counter) = (Vec::new(), Vec::new(), 0);
    for root in 0..n {
        if idx[root] != usize::MAX {
            continue;
        }
        let mut work = vec![(root, 0)];
        while let Some(&(v, k)) = work.last() {
            if k == 0 && idx[v] == usize::MAX {
                idx[v] = counter;
                low[v] = counter;
                counter += 1;
                stack.push(v);
                on[v] = true;
            }
            if let Some(&w) = next[v].get(k) {
                work.last_mut().expect("not empty").1 += 1;
                if idx[w] == usize::MAX {
                    work.push((w, 0));
                } else if on[w] {
                    low[v] = low[v].min(idx[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == idx[v] {
                let mut part = Vec::new();
                while let Some(w) = stack.pop() {
                    on[w] = false;
                    part.push(list[w].clone());
                    if w == v {
                        break;
                    }
                }
                if part.len() > 1 {
                    part.sort();
                    out.push(part);
                }
            }
        }
    }
    out
}

/// Everything wrong with `files`' imports against `floors` (each problem a
/// line; empty when the layers hold).
fn problems(
    files: &[(String, String)],
    floors: &[&[&str]],
    exceptions: &[(&str, &str)],
) -> Vec<String> {
    let g = graph(files);
    let mut out = Vec::new();
    let floor_of = |top: &str| floors.iter().position(|f| f.contains(&top));
    // 1. Every top-level module on one floor, and every floor's module real.
    let tops: BTreeSet<&str> = g
        .modules
        .iter()
        .filter_map(|m| m.first().map(String::as_str))
        .collect();
    for top in &tops {
        match floors.iter().filter(|f| f.contains(top)).count() {
            1 => {}
            0 => out.push(format!(
                "module {top} is on no floor: give it its place in FLOORS"
            )),
            _ => out.push(format!("module {top} is on more than one floor")),
        }
    }
    for listed in floors.iter().flat_map(|f| f.iter()) {
        if !tops.contains(listed) {
            out.push(format!("FLOORS names {listed}, which is no module of src/"));
        }
    }
    // 2. Edges between top-level modules go down.
    for ((from, to), why) in &g.edges {
        let (Some(a), Some(b)) = (from.first(), to.first()) else {
            continue;
        };
        if a == b {
            continue;
        }
        let (Some(fa), Some(fb)) = (floor_of(a), floor_of(b)) else {
            continue;
        };
        let excepted = exceptions
            .iter()
            .any(|&(x, y)| x == name(from) && y == name(to));
        if fb <= fa && !excepted {
            let how = if fb == fa {
                "sideways on its floor"
            } else {
                "up"
            };
            out.push(format!(
                "{} imports {}, {how} the layer order ({why})",
                name(from),
                name(to)
            ));
        }
    }
    for &(x, y) in exceptions {
        if !g.edges.keys().any(|(a, b)| name(a) == x && name(b) == y) {
            out.push(format!(
                "exception {x} -> {y} no longer needed: remove it from EXCEPTIONS"
            ));
        }
    }
    // 3. No circle, counted without a mod.rs's edges down to its own files,
    //    and again without its files' edges up to it.
    for (without, test) in [
        ("a mod.rs's edges to its own files", true),
        ("the files' edges to their mod.rs", false),
    ] {
        let kept: Vec<(Module, Module)> = g
            .edges
            .keys()
            .filter(|(a, b)| {
                if test {
                    !encloses(a, b)
                } else {
                    !encloses(b, a)
                }
            })
            .cloned()
            .collect();
        for circle in circles(&g.modules, &kept) {
            let ties: Vec<&str> = kept
                .iter()
                .filter(|(a, b)| circle.contains(a) && circle.contains(b))
                .map(|e| g.edges[e].as_str())
                .collect();
            out.push(format!(
                "import circle (even without {without}): {}; the imports: {}",
                circle
                    .iter()
                    .map(|m| name(m))
                    .collect::<Vec<_>>()
                    .join(", "),
                ties.join("; ")
            ));
        }
    }
    out
}

#[test]
fn imports_go_down_the_layers_and_never_in_a_circle() {
    let files = sources();
    assert!(files.len() > 50, "src/ was read ({} files)", files.len());
    let g = graph(&files);
    // The parser finds the edges everyone knows are there.
    for (from, to) in [
        ("trace", "call"),
        ("service::fs", "decode"),
        ("main", "trace"),
        ("main", "cli"),
        ("cli", "trace"),
    ] {
        let key = (module_of_name(from), module_of_name(to));
        assert!(
            g.edges.contains_key(&key),
            "the edge {from} -> {to} was not seen"
        );
    }
    let found = problems(&files, FLOORS, EXCEPTIONS);
    assert!(
        found.is_empty(),
        "the layers do not hold (HACKING.md, Layers):\n{}",
        found.join("\n")
    );
}

fn module_of_name(s: &str) -> Module {
    s.split("::").map(str::to_string).collect()
}

#[test]
fn hacking_lists_the_same_floors() {
    let hacking = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("HACKING.md"))
        .expect("HACKING.md");
    let marker = "<!-- floors: tests/layers.rs compares this list with its FLOORS -->";
    let after = hacking
        .split_once(marker)
        .expect("HACKING.md's Layers section has the floors marker")
        .1;
    let block = after
        .trim_start()
        .strip_prefix("```text\n")
        .and_then(|b| b.split_once("```"))
        .expect("a ```text block follows the marker")
        .0;
    let listed: Vec<Vec<&str>> = block
        .lines()
        .map(|l| l.split_whitespace().collect())
        .filter(|l: &Vec<&str>| !l.is_empty())
        .collect();
    let ours: Vec<Vec<&str>> = FLOORS.iter().map(|f| f.to_vec()).collect();
    assert_eq!(
        listed, ours,
        "HACKING.md's floors differ from tests/layers.rs's FLOORS"
    );
}

// The parser itself, on made-up trees: each break must be seen.

fn tree(files: &[(&str, &str)]) -> Vec<(String, String)> {
    files
        .iter()
        .map(|(p, t)| (p.to_string(), t.to_string()))
        .collect()
}

const TWO: &[&[&str]] = &[&["high"], &["low"]];

#[test]
fn an_upward_import_is_seen_in_every_spelling() {
    for low in [
        "use crate::high::Thing;",
        "use crate::{high::Thing};",
        "use crate::{self as c, high};",
        "pub(crate) use super::high::{self, Thing as T};",
        "fn f() { crate::high::run(); }",
        "fn f() -> Vec<crate::high::Thing> { todo!() }",
        "mod tests { use super::super::high::Thing; }",
    ] {
        let files = tree(&[
            ("lib.rs", "pub mod high; pub mod low;"),
            ("high.rs", "use crate::low::Base; pub struct Thing;"),
            ("low.rs", low),
        ]);
        let found = problems(&files, TWO, &[]);
        assert!(
            found.iter().any(|p| p.starts_with("low imports high, up")),
            "{low}: {found:?}"
        );
    }
}

#[test]
fn comments_and_strings_are_not_imports() {
    let files = tree(&[
        ("lib.rs", "pub mod high; pub mod low;"),
        ("high.rs", "use crate::low::Base;"),
        (
            "low.rs",
            "//! See [`crate::high::Thing`].\n/* crate::high::x /* nested */ crate::high::y */\n\
             const S: &str = \"crate::high::z\"; const R: &str = r#\"crate::high::\"w\"#;\n\
             const C: char = '{'; fn f<'a>(x: &'a str) -> &'a str { x }\npub struct Base;",
        ),
    ]);
    assert_eq!(problems(&files, TWO, &[]), Vec::<String>::new());
}

#[test]
fn circles_inside_a_floor_are_seen() {
    // Siblings in a circle, and one closed through the mod.rs's own items.
    let siblings = tree(&[
        ("lib.rs", "pub mod low; pub mod high;"),
        ("high.rs", ""),
        ("low/mod.rs", "pub mod a; pub mod b;"),
        ("low/a.rs", "use super::b::B; pub struct A;"),
        ("low/b.rs", "use crate::low::a::A; pub struct B;"),
    ]);
    let found = problems(&siblings, TWO, &[]);
    assert!(
        found
            .iter()
            .any(|p| p.contains("import circle") && p.contains("low::a, low::b")),
        "{found:?}"
    );
    let through_parent = tree(&[
        ("lib.rs", "pub mod low; pub mod high;"),
        ("high.rs", ""),
        (
            "low/mod.rs",
            "pub mod a; pub mod b; pub fn base() {} fn g() { b::run(); }",
        ),
        ("low/a.rs", "pub fn a() { super::base(); }"),
        ("low/b.rs", "pub fn run() { super::a::a(); }"),
    ]);
    // mod.rs -> b -> a -> mod.rs runs down from the mod.rs into its files
    // and back up to it: the allowance (neither pass sees a circle).
    assert_eq!(problems(&through_parent, TWO, &[]), Vec::<String>::new());
}

#[test]
fn an_unplaced_module_and_a_stale_exception_are_reported() {
    let files = tree(&[
        ("lib.rs", "pub mod high; pub mod low; pub mod new;"),
        ("high.rs", ""),
        ("low.rs", ""),
        ("new.rs", ""),
    ]);
    let found = problems(&files, TWO, &[("low", "high")]);
    assert!(
        found
            .iter()
            .any(|p| p.starts_with("module new is on no floor")),
        "{found:?}"
    );
    assert!(
        found
            .iter()
            .any(|p| p.starts_with("exception low -> high no longer needed")),
        "{found:?}"
    );
}
