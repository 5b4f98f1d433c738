//! Who the HTTP server answers: the `Host` a request names and the `Origin` (or
//! `Sec-Fetch-Site`) a browser adds, checked before any route runs, and the CORS header an
//! allowed origin gets. Runs on the request's connection thread; pure.
//!
//! Why: a web page the user visits can make the browser send requests to a loopback port,
//! and a DNS-rebinding page (its own name pointed at 127.0.0.1) can also read the replies.
//! A browser always sends the page's host name in `Host` (which the page cannot set) and
//! its origin in `Origin` on a cross-origin fetch or POST (`Sec-Fetch-Site: cross-site` on a
//! plain `<img src>`, which has no `Origin`), so:
//!
//! - `Host` must be the address the client reached (an IP literal, with the server's port),
//!   or for a loopback connection `localhost`, `127.0.0.1` or `[::1]` with the port, or a
//!   name given with `--allow-host` (with the port, unless the name gives its own):
//!   anything else is 421 `HOST_NOT_ALLOWED`. A rebinding page's `Host` is its own name.
//! - `Origin`, when present, must be the server's own (`http://` + the `Host`) or one given
//!   with `--allow-origin`; a `Sec-Fetch-Site` of `cross-site` or `same-site` (another port of
//!   localhost is same-site) needs such an origin too: else 403 `ORIGIN_NOT_ALLOWED`.
//! - No CORS header is ever sent but `Access-Control-Allow-Origin` naming an origin given
//!   with `--allow-origin`, to a request from exactly that origin (and its preflight).
//!
//! A request without `Host` (HTTP/1.0; `conn` refuses an HTTP/1.1 one) is served: no browser
//! sends one, so it is no page's request.

use std::net::{IpAddr, SocketAddr};

use super::conn::{Reply, Request};

/// The hosts and origins one server accepts (from `serve`'s flags).
#[derive(Debug, Clone, Default)]
pub struct Guard {
    /// `--allow-host` names, lowercased: `name` (any port: the server's) or `name:port`.
    hosts: Vec<String>,
    /// `--allow-origin` origins, lowercased, without a trailing `/`.
    origins: Vec<String>,
}

/// What a request that passed may get back: the origin to name in
/// `Access-Control-Allow-Origin`, if it is an allowed one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Passed {
    pub cors: Option<String>,
}

impl Guard {
    pub fn new(hosts: &[String], origins: &[String]) -> Guard {
        Guard {
            hosts: hosts
                .iter()
                .map(|h| h.trim().to_ascii_lowercase())
                .collect(),
            origins: origins.iter().map(|o| normal_origin(o)).collect(),
        }
    }

    /// Whether `request` may be answered, or the refusal to answer with.
    pub fn check(&self, request: &Request) -> Result<Passed, Reply> {
        if let Some(host) = &request.host {
            if !self.host_allowed(host, request.local) {
                return Err(Reply::error(
                    421,
                    "HOST_NOT_ALLOWED",
                    &format!(
                        "Host `{host}` is not this server's address (for another name, \
                         start it with --allow-host NAME)"
                    ),
                ));
            }
        }
        let allowed = request
            .origin
            .as_deref()
            .map(normal_origin)
            .filter(|o| self.origins.contains(o));
        if let Some(origin) = &request.origin {
            let own = request.host.as_deref().is_some_and(|h| {
                normal_origin(origin) == format!("http://{}", h.to_ascii_lowercase())
            });
            if allowed.is_none() && !own {
                return Err(Reply::error(
                    403,
                    "ORIGIN_NOT_ALLOWED",
                    &format!(
                        "requests from origin `{origin}` are refused (a web page may not read \
                         this server; to allow one, start it with --allow-origin ORIGIN)"
                    ),
                ));
            }
        }
        let site = request.fetch_site.as_deref().map(str::to_ascii_lowercase);
        if matches!(site.as_deref(), Some("cross-site" | "same-site")) && allowed.is_none() {
            return Err(Reply::error(
                403,
                "ORIGIN_NOT_ALLOWED",
                "a request another site made the browser send is refused (Sec-Fetch-Site)",
            ));
        }
        Ok(Passed { cors: allowed })
    }

    fn host_allowed(&self, host: &str, local: SocketAddr) -> bool {
        let host = host.trim().to_ascii_lowercase();
        let Some((name, port)) = split_host(&host) else {
            return false;
        };
        // A Host without a port names the default one.
        let port_ok = port.unwrap_or(80) == local.port();
        if let Ok(ip) = name
            .trim_start_matches('[')
            .trim_end_matches(']')
            .parse::<IpAddr>()
        {
            // An IP literal is no name a page could point elsewhere: the one reached, or
            // loopback's on a loopback connection.
            let loopback = local.ip().is_loopback()
                && (ip == IpAddr::from([127, 0, 0, 1]) || ip.is_loopback() && ip.is_ipv6());
            return port_ok && (same_ip(ip, local.ip()) || loopback);
        }
        if name == "localhost" && local.ip().is_loopback() && port_ok {
            return true;
        }
        self.hosts
            .iter()
            .any(|allowed| allowed == &host || (allowed == name && port_ok))
    }
}

/// `name` and port of a Host value (`[v6]:port`, `name:port`, `name`); `None` if malformed.
fn split_host(host: &str) -> Option<(&str, Option<u16>)> {
    let (name, port) = if let Some(rest) = host.strip_prefix('[') {
        let (inside, after) = rest.split_once(']')?;
        let name = &host[..inside.len() + 2];
        match after.strip_prefix(':') {
            Some(port) => (name, Some(port)),
            None if after.is_empty() => (name, None),
            None => return None,
        }
    } else {
        match host.rsplit_once(':') {
            Some((name, port)) => (name, Some(port)),
            None => (host, None),
        }
    };
    if name.is_empty() {
        return None;
    }
    match port {
        Some(p) => Some((name, Some(p.parse().ok()?))),
        None => Some((name, None)),
    }
}

/// Equal addresses, an IPv4-mapped IPv6 one equal to its IPv4 one.
fn same_ip(a: IpAddr, b: IpAddr) -> bool {
    let plain = |ip: IpAddr| match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 @ IpAddr::V4(_) => v4,
    };
    plain(a) == plain(b)
}

fn normal_origin(origin: &str) -> String {
    origin.trim().trim_end_matches('/').to_ascii_lowercase()
}

/// The header fields an allowed origin's reply carries.
pub fn cors_headers(reply: Reply, cors: Option<&str>) -> Reply {
    match cors {
        Some(origin) => reply
            .with_header("Access-Control-Allow-Origin", origin.to_string())
            .with_header("Vary", "Origin".into()),
        None => reply,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(
        host: Option<&str>,
        origin: Option<&str>,
        site: Option<&str>,
        local: &str,
    ) -> Request {
        Request {
            method: "GET".into(),
            target: "/stats".into(),
            host: host.map(Into::into),
            origin: origin.map(Into::into),
            fetch_site: site.map(Into::into),
            peer: "127.0.0.1:50000".parse().unwrap(),
            local: local.parse().unwrap(),
        }
    }

    fn code(guard: &Guard, r: &Request) -> Option<String> {
        guard
            .check(r)
            .err()
            .map(|reply| reply.body["code"].as_str().unwrap().to_string())
    }

    #[test]
    fn hosts_are_the_address_reached_loopback_names_or_allowed_ones() {
        let g = Guard::new(&["box.lan".into(), "proxy.example:443".into()], &[]);
        let lo = "127.0.0.1:7431";
        for ok in [
            "127.0.0.1:7431",
            "localhost:7431",
            "LOCALHOST:7431",
            "[::1]:7431",
            "box.lan:7431",
            "proxy.example:443",
        ] {
            assert_eq!(code(&g, &request(Some(ok), None, None, lo)), None, "{ok}");
        }
        for bad in [
            "attacker.example:7431",
            "attacker.example",
            "localhost:80",
            "localhost",
            "127.0.0.1:7432",
            "localhost.:7431",
            "box.lan:8080",
            "proxy.example:7431",
            "127.0.0.1:notaport",
            ":7431",
            "[::1",
            "",
        ] {
            assert_eq!(
                code(&g, &request(Some(bad), None, None, lo)).as_deref(),
                Some("HOST_NOT_ALLOWED"),
                "{bad}"
            );
        }
        // Reached on another address (--allow-remote): that address, not loopback's names.
        let lan = "192.168.1.5:7431";
        assert_eq!(
            code(&g, &request(Some("192.168.1.5:7431"), None, None, lan)),
            None
        );
        assert!(code(&g, &request(Some("localhost:7431"), None, None, lan)).is_some());
        assert!(code(&g, &request(Some("10.0.0.1:7431"), None, None, lan)).is_some());
        let v6 = "[::ffff:192.168.1.5]:7431";
        assert_eq!(
            code(&g, &request(Some("192.168.1.5:7431"), None, None, v6)),
            None
        );
        // No Host at all (HTTP/1.0): no browser's request.
        assert_eq!(code(&g, &request(None, None, None, lo)), None);
    }

    #[test]
    fn origins_are_the_servers_own_or_allowed_ones_and_only_those_get_cors() {
        let g = Guard::new(&[], &["http://localhost:3000/".into()]);
        let lo = "127.0.0.1:7431";
        let host = Some("127.0.0.1:7431");
        let passed = |origin, site| g.check(&request(host, origin, site, lo));
        assert_eq!(passed(None, None).unwrap().cors, None);
        assert_eq!(passed(None, Some("none")).unwrap().cors, None);
        assert_eq!(passed(None, Some("same-origin")).unwrap().cors, None);
        assert_eq!(
            passed(Some("http://127.0.0.1:7431"), None).unwrap().cors,
            None
        );
        assert_eq!(
            passed(Some("http://LOCALHOST:3000"), Some("same-site"))
                .unwrap()
                .cors
                .as_deref(),
            Some("http://localhost:3000")
        );
        for (origin, site) in [
            (Some("http://attacker.example"), None),
            (Some("null"), None),
            (Some("http://localhost:3001"), Some("same-site")),
            (Some("https://127.0.0.1:7431"), None),
            (None, Some("cross-site")),
            (None, Some("same-site")),
        ] {
            assert_eq!(
                code(&g, &request(host, origin, site, lo)).as_deref(),
                Some("ORIGIN_NOT_ALLOWED"),
                "{origin:?} {site:?}"
            );
        }
        let reply = cors_headers(
            Reply::ok(serde_json::json!({})),
            Some("http://localhost:3000"),
        );
        assert!(reply.headers.contains(&(
            "Access-Control-Allow-Origin",
            "http://localhost:3000".into()
        )));
    }
}
