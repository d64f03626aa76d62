//! The panic guard around one page's parse. Parsing is total, so a caught
//! panic is a bug: its message is kept for the phase to log once with the
//! page's URL, and never printed by the default hook (no backtrace on the
//! user's terminal). Panics outside a guard are printed as usual.

use std::cell::{Cell, RefCell};
use std::panic::{self, AssertUnwindSafe, PanicHookInfo};
use std::sync::Once;

thread_local! {
    static GUARDED: Cell<bool> = const { Cell::new(false) };
    static MESSAGE: RefCell<Option<String>> = const { RefCell::new(None) };
}

static HOOK: Once = Once::new();

/// Runs `f`; a panic inside it becomes `Err` with the panic's message and
/// place.
pub fn catch<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    HOOK.call_once(install_hook);
    let was_guarded = GUARDED.replace(true);
    let outcome = panic::catch_unwind(AssertUnwindSafe(f));
    GUARDED.set(was_guarded);
    outcome.map_err(|payload| {
        MESSAGE
            .take()
            .unwrap_or_else(|| payload_text(payload.as_ref()))
    })
}

fn install_hook() {
    let previous = panic::take_hook();
    panic::set_hook(Box::new(move |info| {
        if GUARDED.get() {
            MESSAGE.set(Some(describe(info)));
        } else {
            previous(info);
        }
    }));
}

fn describe(info: &PanicHookInfo<'_>) -> String {
    let text = payload_text(info.payload());
    match info.location() {
        Some(at) => format!("{text} (at {}:{})", at.file(), at.line()),
        None => text,
    }
}

fn payload_text(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "panic with a non-text payload".into())
}

#[cfg(test)]
mod tests {
    use super::catch;

    #[test]
    fn a_caught_panic_becomes_its_message_and_place() {
        assert_eq!(catch(|| 7), Ok(7));
        let message = catch(|| {
            let v: Vec<u8> = Vec::new();
            v[usize::MAX / 2]
        })
        .unwrap_err();
        assert!(message.contains("index out of bounds"), "{message}");
        assert!(message.contains("guard.rs"), "{message}");
        // The guard nests.
        let inner = catch(|| catch(|| -> u8 { panic!("inner") }).unwrap_err()).unwrap();
        assert!(inner.starts_with("inner (at "), "{inner}");
    }
}
