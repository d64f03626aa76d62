//! The tree builder's list of active formatting elements (HTML §13.2.4.3)
//! as the depth bound follows it: the `<b>`, `<font>`, `<a>`… the builder
//! opens again by itself after a block closed them. Elements are told
//! apart by name and attribute text; the builder compares parsed
//! attributes, so this list keeps at least what the builder's does.

/// The formatting elements.
pub const FORMATTING: [&str; 14] = [
    "a", "b", "big", "code", "em", "font", "i", "nobr", "s", "small", "strike", "strong", "tt", "u",
];

/// Elements that put a marker in the list: the builder reopens nothing
/// from before one inside them.
pub const MARKERS: [&str; 7] = [
    "applet", "marquee", "object", "template", "td", "th", "caption",
];

enum Entry {
    Marker,
    Element {
        name: String,
        attrs: String,
        id: u64,
    },
}

/// The list; each element is known by the id its open element has.
#[derive(Default)]
pub struct ActiveFormatting {
    entries: Vec<Entry>,
}

impl ActiveFormatting {
    pub fn push_marker(&mut self) {
        self.entries.push(Entry::Marker);
    }

    /// Drops the entries after the last marker, and the marker.
    pub fn clear_to_marker(&mut self) {
        while let Some(entry) = self.entries.pop() {
            if matches!(entry, Entry::Marker) {
                break;
            }
        }
    }

    /// Adds an element opened as `id`; a fourth element alike after the
    /// last marker pushes out the earliest (the "Noah's Ark" clause).
    pub fn push(&mut self, name: &str, attrs: &str, id: u64) {
        let alike: Vec<usize> = self
            .after_marker()
            .filter(|&i| {
                matches!(&self.entries[i],
                    Entry::Element { name: n, attrs: a, .. } if n == name && a == attrs)
            })
            .collect();
        if alike.len() >= 3 {
            self.entries.remove(alike[0]);
        }
        self.entries.push(Entry::Element {
            name: name.to_string(),
            attrs: attrs.to_string(),
            id,
        });
    }

    /// The entries, markers too.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// The elements after the last marker.
    pub fn active(&self) -> usize {
        self.after_marker().count()
    }

    /// The place and id of the last `name` after the last marker.
    pub fn last(&self, name: &str) -> Option<(usize, u64)> {
        self.after_marker()
            .rev()
            .find_map(|i| match &self.entries[i] {
                Entry::Element { name: n, id, .. } if n == name => Some((i, *id)),
                _ => None,
            })
    }

    pub fn remove(&mut self, place: usize) {
        self.entries.remove(place);
    }

    /// The entries the builder opens again before a tag: from the first of
    /// the trailing run of entries whose elements are closed, as places
    /// and names.
    pub fn to_reopen(&self, is_open: impl Fn(u64) -> bool) -> Vec<(usize, String)> {
        let mut first = self.entries.len();
        while let Some(Entry::Element { id, .. }) = first.checked_sub(1).map(|i| &self.entries[i]) {
            if is_open(*id) {
                break;
            }
            first -= 1;
        }
        (first..self.entries.len())
            .filter_map(|i| match &self.entries[i] {
                Entry::Element { name, .. } => Some((i, name.clone())),
                Entry::Marker => None,
            })
            .collect()
    }

    /// The entry at `place` is now the element opened as `id`.
    pub fn reopened(&mut self, place: usize, new_id: u64) {
        if let Some(Entry::Element { id, .. }) = self.entries.get_mut(place) {
            *id = new_id;
        }
    }

    /// The places after the last marker.
    fn after_marker(&self) -> impl DoubleEndedIterator<Item = usize> + '_ {
        let start = self
            .entries
            .iter()
            .rposition(|e| matches!(e, Entry::Marker))
            .map_or(0, |m| m + 1);
        start..self.entries.len()
    }
}
