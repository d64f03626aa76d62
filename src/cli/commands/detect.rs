//! `detect`: the charset and language of one page or anchor text, printed
//! as lines or JSON.

use super::super::args::DetectArgs;
use crate::error::{Error, Result};
use crate::lang::TargetLang;

pub(in crate::cli) fn detect(args: &DetectArgs) -> Result<String> {
    let target = args.lang.as_deref().map(TargetLang::parse).transpose()?;
    let bytes = crate::detect::read_input(&args.input)?;
    let found = if args.anchor {
        crate::detect::anchor(&bytes, target.as_ref())
    } else {
        crate::detect::page(&bytes, target.as_ref())
    };
    if args.json {
        let json = serde_json::to_string(&found).map_err(|source| Error::Json {
            what: "the detection".into(),
            source,
        })?;
        Ok(json + "\n")
    } else {
        Ok(found.to_lines())
    }
}

/// Prints what [`detect`] finds.
pub(in crate::cli) fn print(args: &DetectArgs) -> Result<()> {
    print!("{}", detect(args)?);
    Ok(())
}
