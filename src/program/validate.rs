//! The check of a compiled program's code ([`Code::validate`]): every id and span in range,
//! each attribute entry's copy of its op equal to the op, and each projection's key order
//! holding its object's attributes in order. The executors index the code without
//! fallbacks on the strength of it.

use super::key::AttrEntry;
use super::{Code, Op, OpId, Span};

impl Code {
    /// Checks that every id and span in the code is in range and that each attribute entry's
    /// copy of its op matches the op: what lets the executors index without fallbacks.
    pub(crate) fn validate(&self) -> Result<(), String> {
        let op_ok = |id: OpId| id.index() < self.ops.len();
        let span_ok = span_in;
        if !op_ok(self.root) {
            return Err(format!("root {} out of range", self.root));
        }
        for (i, op) in self.ops.iter().enumerate() {
            let ok = match *op {
                Op::String | Op::Number | Op::Bool | Op::Dynamic => true,
                Op::List { elem, items } | Op::Set { elem, items } => {
                    op_ok(elem) && (items.0 as usize) < self.item_limits.len()
                }
                Op::Map { elem } => op_ok(elem),
                Op::Tuple { elems } => {
                    span_ok(elems, self.tuple_elems.len())
                        && self
                            .tuple_elems
                            .get(elems.range())
                            .is_some_and(|e| e.iter().all(|&id| op_ok(id)))
                }
                Op::Pick { of, picks } => {
                    (picks.0 as usize) < self.picks.len()
                        && matches!(
                            self.ops.get(of.index()),
                            Some(Op::List { .. } | Op::Tuple { .. } | Op::Map { .. })
                        )
                }
                Op::DynamicSelect { selection } => (selection.0 as usize) < self.selections.len(),
                Op::Object { attrs } => {
                    span_ok(attrs, self.attrs.len())
                        && span_ok(attrs, self.attr_names.len())
                        && self.attrs.get(attrs.range()).is_some_and(|entries| {
                            entries
                                .iter()
                                .all(|e| self.ops.get(e.op.index()) == Some(&e.code))
                        })
                }
            };
            if !ok {
                return Err(format!("op @{i} ({op:?}) refers outside the program"));
            }
        }
        self.validate_key_orders()
    }

    /// Each key order is in range, belongs to an object op, and holds that op's attributes
    /// (the entries not stepped over) in its order: a decoder walking it fills the object's
    /// slots one after the other.
    fn validate_key_orders(&self) -> Result<(), String> {
        if !self.key_orders.is_empty() && self.key_orders.len() != self.ops.len() {
            return Err("key orders do not cover the ops".into());
        }
        for (i, (&order, op)) in self.key_orders.iter().zip(&self.ops).enumerate() {
            if order.len == 0 {
                continue;
            }
            let selected = match *op {
                Op::Object { attrs } => self.attrs.get(attrs.range()),
                _ => None,
            };
            let entries = self.attrs.get(order.range());
            let ok = match (selected, entries) {
                (Some(selected), Some(entries)) => {
                    span_in(order, self.attr_names.len())
                        && entries
                            .iter()
                            .filter(|e| !e.stepped_over)
                            .map(|e| (e.op, e.code))
                            .eq(selected.iter().map(|e| (e.op, e.code)))
                        && self
                            .key_markers
                            .get(order.range())
                            .is_some_and(|markers| markers_sound(entries, markers))
                }
                _ => false,
            };
            if !ok {
                return Err(format!("the key order of op @{i} ({op:?}) is not its own"));
            }
        }
        Ok(())
    }
}

/// A key order's markers ([`Code::key_markers`]): each 0, or the marker of a stepped-over
/// fixstr key of a length no selected key of the order has — else a selected key could
/// pass for it.
fn markers_sound(entries: &[AttrEntry], markers: &[u8]) -> bool {
    let selected_lens = AttrEntry::fixstr_lens(entries.iter().filter(|e| !e.stepped_over));
    entries.iter().zip(markers).all(|(e, &m)| {
        let bit = e.fixstr_len_bit();
        m == 0 || (e.stepped_over && m == e.marker() && bit != 0 && bit & selected_lens == 0)
    })
}

/// True if `span` lies within a table of `len` entries.
fn span_in(span: Span, len: usize) -> bool {
    span.range().end <= len
}

#[cfg(test)]
mod tests {
    use crate::schema::Selection;
    use crate::Program;

    /// A key order must be its object's: the selected attributes, in order, with their ops.
    #[test]
    fn a_key_order_must_hold_its_objects_attributes() {
        let full = Program::from_type_json(r#"["object",{"a":"string","b":"number","c":"bool"}]"#)
            .unwrap();
        let projected = || full.select(&Selection::parse(["b"]).unwrap()).unwrap();
        let p = projected();
        assert_eq!(p.code.validate(), Ok(()));
        let order = p
            .code
            .key_orders
            .iter()
            .find(|s| s.len != 0)
            .copied()
            .unwrap();
        assert_eq!(order.len, 3);
        let (a, b) = (order.start as usize, order.start as usize + 1);
        assert!(p.code.attrs[a].stepped_over && !p.code.attrs[b].stepped_over);
        let broken = |edit: &dyn Fn(&mut Program)| {
            let mut p = projected();
            edit(&mut p);
            p.code.validate().unwrap_err()
        };
        // The selected attribute stepped over, an unselected one decoded, the order moved
        // off the table's end, the orders not covering the ops.
        assert!(broken(&|p| p.code.attrs[b].stepped_over = true).contains("key order"));
        assert!(broken(&|p| p.code.attrs[a].stepped_over = false).contains("key order"));
        // "a" has the length of the selected "b": not known by its marker alone.
        assert_eq!(p.code.key_markers[a], 0);
        assert!(broken(&|p| p.code.key_markers[a] = 0xa1).contains("key order"));
        assert!(broken(&|p| p.code.key_markers.truncate(a)).contains("key order"));
        // "aa" (2 bytes) is; a selected attribute never is.
        let mut other = Program::from_type_json(r#"["object",{"aa":"string","b":"number"}]"#)
            .unwrap()
            .select(&Selection::parse(["b"]).unwrap())
            .unwrap();
        let order = other.code.key_orders.iter().find(|s| s.len != 0).copied();
        let start = order.unwrap().start as usize;
        assert_eq!(other.code.key_markers[start..start + 2], [0xa2, 0]);
        assert_eq!(other.code.validate(), Ok(()));
        other.code.key_markers[start + 1] = 0xa1;
        assert!(other.code.validate().unwrap_err().contains("key order"));
        // (A marker that is not the key's own, though of a length no selected key has.)
        other.code.key_markers[start + 1] = 0;
        other.code.key_markers[start] = 0xa3;
        assert!(other.code.validate().unwrap_err().contains("key order"));
        let past_the_end = |p: &mut Program| {
            let end = p.code.attrs.len() as u32;
            if let Some(s) = p.code.key_orders.iter_mut().find(|s| s.len != 0) {
                s.start = end;
            }
        };
        assert!(broken(&past_the_end).contains("key order"));
        assert!(broken(&|p| p.code.key_orders.truncate(1)).contains("cover"));
    }
}
