//! Did-you-mean: the known name nearest to a misspelt one, for the error
//! messages of every option that takes names (`-e trace=`, `-e signal=`,
//! `--filter`, `--explain-ioctl`, `--list-ioctls`). Depends on nothing
//! else in the crate, so every layer may use it.

/// The name among `names` nearest to `word` by [`distance`], ignoring
/// case, when it is near enough to be a likely typo: at most one edit per
/// three characters (and one for short words). Ties go to the name that
/// sorts first, so the answer does not depend on the order of `names`.
///
/// Names whose length alone puts them further than that are not compared
/// (the distance is at least the difference in length), so a huge word
/// costs no more than a short one: the table is never built for it.
pub fn nearest<'a>(word: &str, names: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let word = word.to_ascii_lowercase();
    let len = word.chars().count();
    let limit = (len / 3).max(1);
    names
        .into_iter()
        .filter(|name| within_reach(len, name.chars().count(), limit))
        .map(|name| (distance(&word, &name.to_ascii_lowercase()), name))
        .filter(|&(d, _)| d <= limit)
        .min_by_key(|&(d, name)| (d, name))
        .map(|(_, name)| name)
}

/// Whether words of lengths `a` and `b` can be at most `limit` edits
/// apart.
fn within_reach(a: usize, b: usize, limit: usize) -> bool {
    a.abs_diff(b) <= limit
}

/// The edit distance between `a` and `b` in characters: insertions,
/// deletions, substitutions and swaps of two neighbours (`wirte`) each
/// count one (the optimal string alignment distance).
pub fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    // Three rows of the table: two back, the previous one and this one.
    let mut older: Vec<usize> = vec![0; b.len() + 1];
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut row = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            row[j] = (prev[j - 1] + cost).min(prev[j] + 1).min(row[j - 1] + 1);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                row[j] = row[j].min(older[j - 2] + 1);
            }
        }
        older = std::mem::replace(&mut prev, row);
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances() {
        assert_eq!(distance("wirte", "write"), 1);
        assert_eq!(distance("opnat", "openat"), 1);
        assert_eq!(distance("", "abc"), 3);
        assert_eq!(distance("kitten", "sitting"), 3);
        assert_eq!(distance("same", "same"), 0);
    }

    #[test]
    fn names_too_far_in_length_are_not_compared() {
        // The length difference is a lower bound of the distance.
        for (a, b) in [("abc", "abcdefgh"), ("kitten", "sitting"), ("", "x")] {
            let d = distance(a, b);
            let n = (a.chars().count(), b.chars().count());
            assert!(d >= n.0.abs_diff(n.1), "{a} {b}");
            assert!(within_reach(n.0, n.1, d));
            assert_eq!(
                within_reach(n.0, n.1, d.saturating_sub(1)),
                d > n.0.abs_diff(n.1)
            );
        }
        assert!(!within_reach(10_000, 12, 3333));
        let long = "A".repeat(10_000);
        assert_eq!(nearest(&long, ["BLKGETSIZE64", "AAAAAAAAAAA"]), None);
    }

    #[test]
    fn nearest_names() {
        let names = ["open", "openat", "write", "BLKGETSIZE64"];
        assert_eq!(nearest("opne", names), Some("open"));
        assert_eq!(nearest("blkgetsize46", names), Some("BLKGETSIZE64"));
        assert_eq!(nearest("zzzzzz", names), None);
    }
}
