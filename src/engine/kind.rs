//! Where the SQL phases run: `--engine local`, `ballista` or `df://HOST:PORT`.

use std::fmt;
use std::str::FromStr;

/// The engine a command's SQL runs on.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum EngineKind {
    /// DataFusion in this process (the default).
    #[default]
    Local,
    /// A Ballista scheduler and executor started inside this process: the
    /// distributed plans, without a cluster (for trying Ballista).
    InProcess,
    /// A running Ballista cluster: its scheduler's host and port.
    Cluster { host: String, port: u16 },
}

impl FromStr for EngineKind {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        match text {
            "local" => return Ok(EngineKind::Local),
            "ballista" => return Ok(EngineKind::InProcess),
            _ => {}
        }
        let Some(address) = text.strip_prefix("df://") else {
            return Err(format!(
                "unknown engine {text:?}: local, ballista, or df://HOST:PORT (a Ballista scheduler)"
            ));
        };
        let (host, port) =
            host_and_port(address.trim_end_matches('/')).map_err(|why| format!("{text}: {why}"))?;
        Ok(EngineKind::Cluster { host, port })
    }
}

/// `HOST:PORT` split, or why it is not one (a scheduler's address, as
/// `--engine df://…` and `ballista executor --scheduler` take it).
pub fn host_and_port(address: &str) -> Result<(String, u16), String> {
    let (host, port) = address
        .rsplit_once(':')
        .ok_or("the scheduler's port is missing (HOST:PORT)")?;
    let port = port
        .parse::<u16>()
        .map_err(|_| format!("{port:?} is not a port"))?;
    if host.is_empty() || host.contains(['/', '@', '?', '#']) {
        return Err(format!("{host:?} is not a host name"));
    }
    Ok((host.to_string(), port))
}

impl fmt::Display for EngineKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineKind::Local => f.write_str("local"),
            EngineKind::InProcess => f.write_str("ballista"),
            EngineKind::Cluster { host, port } => write!(f, "df://{host}:{port}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engines_are_named_as_on_the_command_line() {
        for text in [
            "local",
            "ballista",
            "df://10.0.0.7:50050",
            "df://scheduler:1",
        ] {
            assert_eq!(text.parse::<EngineKind>().unwrap().to_string(), text);
        }
        let cluster: EngineKind = "df://[::1]:50050/".parse().unwrap();
        assert_eq!(
            cluster,
            EngineKind::Cluster {
                host: "[::1]".into(),
                port: 50050
            }
        );
    }

    #[test]
    fn a_bad_engine_is_refused_with_what_would_do() {
        for (text, says) in [
            ("spark", "local, ballista, or df://"),
            ("df://host", "port is missing"),
            ("df://host:99999", "not a port"),
            ("df://:50050", "not a host"),
            ("df://user@host:1", "not a host"),
        ] {
            let err = text.parse::<EngineKind>().unwrap_err();
            assert!(err.contains(says), "{text}: {err}");
        }
    }
}
