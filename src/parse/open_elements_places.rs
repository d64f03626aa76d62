//! The stack of open elements kept in step with its places: pushing,
//! popping and taking out elements, and where each name's, the special
//! elements' and the scope marks' open elements are.

use super::{Open, OpenElements};
use crate::parse::element_kinds::{kinds, CELLS, IS_SCOPE_MARK, IS_SPECIAL, IS_TABLE_MARK};

impl OpenElements {
    pub(super) fn push(&mut self, name: &str) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        self.open_ids.insert(id);
        self.index(self.stack.len(), name);
        self.stack.push(Open {
            name: name.to_string(),
            id,
            marker: false,
            dropped: false,
        });
        id
    }

    /// Records the element `name` at `index` in the places.
    fn index(&mut self, index: usize, name: &str) {
        match self.at.get_mut(name) {
            Some(at) => at.push(index),
            None => {
                self.at.insert(name.to_string(), vec![index]);
            }
        }
        if matches!(name, "svg" | "math") {
            self.foreign_roots += 1;
        }
        let kinds = kinds(name);
        for (places, bit) in [
            (&mut self.specials, IS_SPECIAL),
            (&mut self.scope_marks, IS_SCOPE_MARK),
            (&mut self.table_marks, IS_TABLE_MARK),
        ] {
            if kinds & bit != 0 {
                places.push(index);
            }
        }
        if kinds & IS_SPECIAL != 0 && !matches!(name, "address" | "div" | "p") {
            self.list_stops.push(index);
        }
    }

    /// Forgets the places at `index` and after.
    fn unindex(&mut self, from: usize) {
        for open in &self.stack[from..] {
            if matches!(open.name.as_str(), "svg" | "math") {
                self.foreign_roots -= 1;
            }
            if let Some(at) = self.at.get_mut(&open.name) {
                at.truncate(at.partition_point(|&i| i < from));
            }
        }
        for places in [
            &mut self.specials,
            &mut self.scope_marks,
            &mut self.table_marks,
            &mut self.list_stops,
        ] {
            places.truncate(places.partition_point(|&i| i < from));
        }
    }

    /// Closes the element at `index` and every element opened after it;
    /// if the element was dropped, only the dropped ones (the builder,
    /// which never had it, closes nothing).
    pub(super) fn pop_to(&mut self, index: usize) {
        if index >= self.stack.len() {
            return;
        }
        if self.stack[index].dropped {
            return self.remove_dropped(index);
        }
        self.unindex(index);
        for open in self.stack.drain(index..).rev() {
            self.open_ids.remove(&open.id);
            // a cell or caption closes with its marker however it closes;
            // `applet`, `marquee`, `object` and `template` by their own end
            // tag only (see `close`)
            if open.marker && CELLS.contains(&open.name.as_str()) {
                self.formatting.clear_to_marker();
            }
        }
    }

    /// What the builder closes for table structure in the table or
    /// template at `context`: what was opened in it. Nothing in a
    /// template with content open: the builder clears to it only while
    /// it reads the template's content as table parts, and the model does
    /// not follow which way it reads it (a `<div>` first: as a body,
    /// where a `<td>` closes nothing).
    pub(super) fn clear_to_table(&mut self, context: usize) {
        let template = self.stack[context].name == "template";
        if template && context + 1 < self.stack.len() {
            return;
        }
        if self.stack[context].dropped {
            self.remove_dropped(context + 1);
        } else {
            self.pop_to(context + 1);
        }
    }

    /// Takes the dropped elements at `from` and after out of the stack,
    /// leaving the others open.
    fn remove_dropped(&mut self, from: usize) {
        self.take_out(from, |open| open.dropped);
    }

    /// Takes the element at `index` out of the stack, leaving the elements
    /// opened after it open.
    pub(super) fn remove(&mut self, index: usize) {
        let id = self.stack[index].id;
        self.take_out(index, |open| open.id == id);
    }

    /// Takes the elements at `from` and after that `out` picks out of the
    /// stack, and records the others at their new places.
    fn take_out(&mut self, from: usize, out: impl Fn(&Open) -> bool) {
        self.unindex(from);
        let rest: Vec<Open> = self.stack.drain(from..).collect();
        for open in rest {
            if out(&open) {
                self.open_ids.remove(&open.id);
            } else {
                self.index(self.stack.len(), &open.name);
                self.stack.push(open);
            }
        }
    }
}
