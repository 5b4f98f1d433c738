//! The HTTP connection layer under `crate::http`'s routes: `std::net` sockets and the
//! `httparse` head parser, one request per connection. It reads the request head and body
//! against deadlines, answers what is not a request it can hand on (a malformed head, a
//! refused body, a slow or silent client, a full server) with the same JSON errors as the
//! routes, and writes every reply as `HTTP/1.1`, `Content-Type: application/json`,
//! `Content-Length` and `Connection: close` (no keep-alive: a client opens a connection per
//! request).
//!
//! No server crate: tiny_http and hyper answer a head they cannot parse themselves, with a
//! bare 400, and tiny_http hides its sockets, so its slow clients could only be cut on Linux
//! (through `/proc`).
//!
//! Limits: a head of at most `MAX_HEAD` bytes (431 `HEADERS_TOO_LARGE`) and `MAX_HEADERS`
//! fields, received within the head deadline (408 `REQUEST_TIMEOUT`; a client that sends
//! nothing is closed then); a body of at most `MAX_BODY` bytes (413 `BODY_TOO_LARGE`,
//! answered from the `Content-Length` before any of the body is read), received within the
//! body deadline (408); `Transfer-Encoding` bodies are not read (411 `LENGTH_REQUIRED`); a
//! reply written within the write deadline, else the connection is dropped. Each deadline
//! is a total for the connection, enforced with the socket's read or write timeout set to
//! the time left before every read or write (`MAPSCOPE_HTTP_DEADLINE_MS` shortens both read
//! deadlines, for tests only). A malformed request line or header is 400
//! `BAD_REQUEST`, an HTTP version other than 1.0 and 1.1 is 505
//! `HTTP_VERSION_NOT_SUPPORTED`. Each of these answers is also one `mapscope: CODE: …` line
//! on stderr, and closes the connection (after reading and dropping, for up to `LINGER`,
//! whatever the client still sends, so that it reads the answer rather than a reset).
//! `Expect: 100-continue` gets its go-ahead before the body is read. An HTTP/1.1 request
//! without a `Host` field, or any with two, is 400 `BAD_REQUEST` (RFC 9112 asks for it); an
//! HTTP/1.0 one may have none (no browser sends such a request, so it is no cross-site
//! one). Which hosts and origins are served is the routes' decision (`http::guard`): the
//! head's `Host`, `Origin` and `Sec-Fetch-Site` are handed on with the request.
//!
//! Fairness: one client address holds at most `PER_ADDRESS` connections (beyond them 429
//! `TOO_MANY_CONNECTIONS`, answered at once), so that one address cannot take the slots;
//! and once `BUSY_AT` connections are open, every head still arriving has at most
//! `BUSY_HEAD_DEADLINE` from its accept (instead of the head deadline), so that clients
//! dripping their heads from many addresses are cut quickly when they would fill the server.
//!
//! Threads: the accept thread (`mapscope-http-accept`) and a connection thread per open
//! connection (`mapscope-http-conn`), at most `SLOTS`; a connection beyond them is answered
//! 503 `SERVER_BUSY` on the accept thread, without waiting on the client, and closed. A
//! connection thread reads its request and runs the route, which takes one of `WORKERS`
//! permits (`Permits`) for the part that uses the engine (so at most `WORKERS` requests use
//! it at once, a client still sending holds none, and an `/answer` waiting on its model holds
//! none either), and writes the reply. `serve` runs on the caller's thread until the stop
//! flag is set, then waits up to `STOP_WAIT` for the open connections (a request in hand is
//! answered; a head or body still arriving is dropped, or refused with 503) and drops the
//! route handler.

use std::collections::HashMap;
use std::io::{ErrorKind, Read, Write};
use std::net::{IpAddr, Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::engine::base::text::sanitize;

/// Connections open at once (reading, waiting for a permit, answering); beyond them 503.
pub const SLOTS: usize = 32;
/// Requests answered at once: permits to run a route.
pub const WORKERS: usize = 4;
/// Connections one client address may hold open at once; beyond them 429.
pub const PER_ADDRESS: usize = 8;
/// From this many open connections on, a head still arriving has `BUSY_HEAD_DEADLINE`.
pub const BUSY_AT: usize = SLOTS * 3 / 4;
/// The head deadline once `BUSY_AT` connections are open (a real client sends its head in
/// one packet, within milliseconds).
pub const BUSY_HEAD_DEADLINE: Duration = Duration::from_secs(1);
/// Once the stop flag is set, how long `serve` waits for the requests in hand: a stop ends
/// the process within about this plus the live service's own grace (`http::serve`).
pub const STOP_WAIT: Duration = Duration::from_secs(1);
/// The largest request head (request line and header fields); larger ones get 431.
pub const MAX_HEAD: usize = 16 * 1024;
/// Header fields in a head; more get 431.
const MAX_HEADERS: usize = 64;
/// The largest request body read (`POST /index` needs none); larger ones get 413.
pub const MAX_BODY: usize = 64 * 1024;
/// How long a client has to send its request head, from when the connection is accepted.
pub const HEAD_DEADLINE: Duration = Duration::from_secs(10);
/// How long a client has to send its request body, from the end of its head.
pub const BODY_DEADLINE: Duration = Duration::from_secs(10);
/// How long a reply may take to write, for a client that does not read.
pub const WRITE_DEADLINE: Duration = Duration::from_secs(10);
/// Overrides both read deadlines, in milliseconds. For tests only, which would otherwise
/// wait 10 s for each slow client.
pub const DEADLINE_ENV: &str = "MAPSCOPE_HTTP_DEADLINE_MS";
/// How long the accept thread may wait to write a 503 (a fresh socket's buffer takes it
/// at once: this only bounds the odd case).
const REFUSE_WRITE: Duration = Duration::from_millis(50);
/// After an answer given before the request was read to its end (a 413, say): how long the
/// rest is read and dropped, so that a client still sending reads the answer rather than a
/// connection reset (closing a socket with unread input resets it).
const LINGER: Duration = Duration::from_secs(2);
/// Blocking reads wake at least this often to look at the stop flag; so does `serve`.
const POLL: Duration = Duration::from_millis(100);

/// The deadlines of one server.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub head: Duration,
    pub body: Duration,
    pub write: Duration,
    /// The head deadline once the server is busy (`BUSY_AT`).
    pub busy_head: Duration,
}

impl Limits {
    /// The standard deadlines, or every read deadline from `DEADLINE_ENV` if it is set (the
    /// busy head deadline too: a test that floods the server sets the deadline it waits on,
    /// and a loaded machine must not cut its connections a second in).
    pub fn from_env() -> Limits {
        let test = std::env::var(DEADLINE_ENV)
            .ok()
            .and_then(|v| v.trim().parse::<u64>().ok())
            .filter(|&ms| ms > 0)
            .map(Duration::from_millis);
        let head = test.unwrap_or(HEAD_DEADLINE);
        Limits {
            head,
            body: test.unwrap_or(BODY_DEADLINE),
            write: WRITE_DEADLINE,
            busy_head: test.unwrap_or(BUSY_HEAD_DEADLINE),
        }
    }
}

/// A request handed to the routes: its body, if any, was read and dropped (no route takes
/// one).
#[derive(Debug)]
pub struct Request {
    pub method: String,
    /// The request target as sent: path and query string, not decoded.
    pub target: String,
    /// The `Host`, `Origin` and `Sec-Fetch-Site` fields as sent (lossily UTF-8), if any.
    pub host: Option<String>,
    pub origin: Option<String>,
    pub fetch_site: Option<String>,
    /// The client's address, and the server's address it reached.
    pub peer: SocketAddr,
    pub local: SocketAddr,
}

/// A response: status, JSON document, and header fields beyond the four every reply has.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub body: Value,
    /// Our own names and values only (`Retry-After`, CORS): never a request's bytes.
    pub headers: Vec<(&'static str, String)>,
}

impl Reply {
    pub fn ok(body: Value) -> Reply {
        Reply {
            status: 200,
            body,
            headers: Vec::new(),
        }
    }

    pub fn error(status: u16, code: &str, message: &str) -> Reply {
        Reply {
            status,
            body: json!({"success": false, "error": sanitize(message), "code": code}),
            headers: Vec::new(),
        }
    }

    /// The same reply with `name: value` added.
    pub fn with_header(mut self, name: &'static str, value: String) -> Reply {
        self.headers.push((name, value));
        self
    }
}

/// Why a connection is answered before a route sees it: the reply, and the stderr line.
#[derive(Debug)]
struct Refusal {
    status: u16,
    code: &'static str,
    message: String,
}

impl Refusal {
    fn new(status: u16, code: &'static str, message: impl Into<String>) -> Refusal {
        Refusal {
            status,
            code,
            message: message.into(),
        }
    }

    fn bad_request(message: impl Into<String>) -> Refusal {
        Refusal::new(400, "BAD_REQUEST", message)
    }

    /// 408: the request's `part` (head or body) did not arrive within `limit`.
    fn late(part: &str, limit: Duration) -> Refusal {
        let message = format!("the request {part} did not arrive within {limit:?}");
        Refusal::new(408, "REQUEST_TIMEOUT", message)
    }

    fn reply(&self) -> Reply {
        let reply = Reply::error(self.status, self.code, &self.message);
        match self.status {
            // Busy, not broken: a client may come back in a second.
            429 | 503 => reply.with_header("Retry-After", "1".into()),
            _ => reply,
        }
    }

    fn log(&self, peer: SocketAddr) {
        crate::contract::error_line(self.code, &format!("http {peer}: {}", self.message));
    }
}

/// What a complete request head says.
#[derive(Debug, PartialEq, Eq)]
struct Head {
    method: String,
    target: String,
    /// Bytes the head takes: the body starts after them.
    len: usize,
    /// The body's length (`Content-Length`, 0 without one).
    body: usize,
    /// `Expect: 100-continue`: the client waits for a go-ahead before its body.
    expect_continue: bool,
    host: Option<String>,
    origin: Option<String>,
    fetch_site: Option<String>,
}

/// The head at the start of `buf`: `None` while it is incomplete (and under `MAX_HEAD`),
/// else what it asks or why it is refused.
fn parse_head(buf: &[u8]) -> Result<Option<Head>, Refusal> {
    let too_large = || {
        Refusal::new(
            431,
            "HEADERS_TOO_LARGE",
            format!("the request head is limited to {MAX_HEAD} bytes and {MAX_HEADERS} fields"),
        )
    };
    let mut fields = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut request = httparse::Request::new(&mut fields);
    let len = match request.parse(buf) {
        Ok(httparse::Status::Complete(len)) if len <= MAX_HEAD => len,
        Ok(httparse::Status::Complete(_)) => return Err(too_large()),
        Ok(httparse::Status::Partial) if buf.len() >= MAX_HEAD => return Err(too_large()),
        Ok(httparse::Status::Partial) => return Ok(None),
        Err(httparse::Error::TooManyHeaders) => return Err(too_large()),
        Err(httparse::Error::Version) if names_a_version(buf) => {
            return Err(Refusal::new(
                505,
                "HTTP_VERSION_NOT_SUPPORTED",
                "only HTTP/1.0 and HTTP/1.1 are served",
            ))
        }
        Err(httparse::Error::HeaderName | httparse::Error::HeaderValue) => {
            return Err(Refusal::bad_request("malformed header field"))
        }
        Err(e) => {
            return Err(Refusal::bad_request(format!(
                "malformed request line ({e})"
            )))
        }
    };
    let mut body: Option<usize> = None;
    let mut expect_continue = false;
    let (mut host, mut origin, mut fetch_site) = (None, None, None);
    for field in request.headers.iter() {
        let value = String::from_utf8_lossy(field.value);
        let value = value.trim();
        let name = field.name;
        // Two of them could name two hosts (or origins): one proxy reads the first, the
        // server the last.
        for (wanted, slot) in [
            ("host", &mut host),
            ("origin", &mut origin),
            ("sec-fetch-site", &mut fetch_site),
        ] {
            if name.eq_ignore_ascii_case(wanted) && slot.replace(value.to_string()).is_some() {
                return Err(Refusal::bad_request(format!("two {wanted} fields")));
            }
        }
        if field.name.eq_ignore_ascii_case("content-length") {
            let n = content_length(value)?;
            if body.is_some_and(|m| m != n) {
                return Err(Refusal::bad_request("two different Content-Length fields"));
            }
            body = Some(n);
        } else if field.name.eq_ignore_ascii_case("transfer-encoding") {
            return Err(Refusal::new(
                411,
                "LENGTH_REQUIRED",
                "bodies sent with Transfer-Encoding are not read: send a Content-Length",
            ));
        } else if field.name.eq_ignore_ascii_case("expect") {
            expect_continue = value.eq_ignore_ascii_case("100-continue");
        }
    }
    let body = body.unwrap_or(0);
    if body > MAX_BODY {
        return Err(Refusal::new(
            413,
            "BODY_TOO_LARGE",
            format!("request bodies are limited to {MAX_BODY} bytes"),
        ));
    }
    if host.is_none() && request.version == Some(1) {
        return Err(Refusal::bad_request(
            "an HTTP/1.1 request needs a Host field",
        ));
    }
    Ok(Some(Head {
        method: request.method.unwrap_or_default().to_string(),
        target: request.path.unwrap_or_default().to_string(),
        len,
        body,
        expect_continue,
        host,
        origin,
        fetch_site,
    }))
}

/// A `Content-Length` value: digits only; one too large to count is `usize::MAX` (refused
/// as too large, not as malformed).
fn content_length(value: &str) -> Result<usize, Refusal> {
    if value.is_empty() || !value.bytes().all(|b| b.is_ascii_digit()) {
        return Err(Refusal::bad_request(format!(
            "Content-Length `{value}` is not a number"
        )));
    }
    Ok(value.parse::<usize>().unwrap_or(usize::MAX))
}

/// Whether a request line httparse refused for its version does name one (`HTTP/2.0`):
/// else it is not HTTP at all (`THIS IS NOT HTTP`), a 400.
fn names_a_version(buf: &[u8]) -> bool {
    let line = buf
        .split(|&b| b == b'\r' || b == b'\n')
        .next()
        .unwrap_or(buf);
    line.split(|&b| b == b' ')
        .nth(2)
        .is_some_and(|v| v.starts_with(b"HTTP/"))
}

fn reason(status: u16) -> &'static str {
    match status {
        100 => "Continue",
        200 => "OK",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        411 => "Length Required",
        413 => "Content Too Large",
        421 => "Misdirected Request",
        422 => "Unprocessable Content",
        429 => "Too Many Requests",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        505 => "HTTP Version Not Supported",
        _ => "Unknown",
    }
}

/// The whole response: status line, the four header fields and the reply's own, the JSON
/// body.
fn response_bytes(reply: &Reply) -> Vec<u8> {
    let body = crate::engine::base::json::to_string(&reply.body).unwrap_or_else(|_| "null".into());
    let mut head = format!(
        "HTTP/1.1 {} {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\
         Connection: close\r\n",
        reply.status,
        reason(reply.status),
        body.len()
    );
    for (name, value) in &reply.headers {
        // Only visible ASCII: a value can never end the field or the head.
        let value: String = value.chars().filter(|c| matches!(c, ' '..='~')).collect();
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    let mut out = head.into_bytes();
    out.extend_from_slice(body.as_bytes());
    out
}

/// What the connection threads share.
struct Gate {
    limits: Limits,
    stop: Arc<AtomicBool>,
    /// Connections open (a `Slot` each).
    open: AtomicUsize,
    /// Connections open per client address (entries at 0 are removed).
    per_address: Mutex<HashMap<IpAddr, usize>>,
    permits: Permits,
}

impl Gate {
    fn new(limits: Limits, stop: Arc<AtomicBool>) -> Gate {
        Gate {
            limits,
            stop,
            open: AtomicUsize::new(0),
            per_address: Mutex::default(),
            permits: Permits::new(WORKERS),
        }
    }

    fn stopping(&self) -> bool {
        self.stop.load(Ordering::SeqCst)
    }

    /// How long a connection accepted at `accepted` has for its head, now: shorter once the
    /// server is busy, so that slow heads make room when the slots run short.
    fn head_deadline(&self, accepted: Instant) -> (Instant, Duration) {
        let limit = if self.open.load(Ordering::SeqCst) >= BUSY_AT {
            self.limits.busy_head
        } else {
            self.limits.head
        };
        (accepted + limit, limit)
    }
}

/// The `WORKERS` permits to use the engine: a route takes one (`take`) for the part of its
/// work that does, and gives it back (drops it) before anything else slow (an LLM call).
pub struct Permits {
    tokens: (
        crossbeam_channel::Sender<()>,
        crossbeam_channel::Receiver<()>,
    ),
}

impl Permits {
    fn new(n: usize) -> Permits {
        let tokens = crossbeam_channel::bounded(n);
        for _ in 0..n {
            let _ = tokens.0.send(());
        }
        Permits { tokens }
    }

    /// Waits for a permit. (`Permits` holds a sender, so the wait ends.)
    pub fn take(&self) -> Permit<'_> {
        let _ = self.tokens.1.recv();
        Permit(self)
    }
}

/// One of the permits, given back on drop.
pub struct Permit<'a>(&'a Permits);

impl Drop for Permit<'_> {
    fn drop(&mut self) {
        let _ = self.0.tokens.0.send(());
    }
}

/// One of the `SLOTS` open connections (and of its address's `PER_ADDRESS`), counted out
/// on drop.
struct Slot(Arc<Gate>, IpAddr);

/// Why no slot was given.
enum NoSlot {
    Full,
    AddressFull,
}

impl Slot {
    /// A slot, unless all `SLOTS` are taken or `ip` holds `PER_ADDRESS` of them.
    fn take(gate: &Arc<Gate>, ip: IpAddr) -> Result<Slot, NoSlot> {
        {
            let mut per = gate
                .per_address
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            let held = per.entry(ip).or_insert(0);
            if *held >= PER_ADDRESS {
                return Err(NoSlot::AddressFull);
            }
            *held += 1;
        }
        let before = gate.open.fetch_add(1, Ordering::SeqCst);
        // Counted in both before the check, so the drop counts out both either way.
        let slot = Slot(Arc::clone(gate), ip);
        if before < SLOTS {
            Ok(slot)
        } else {
            Err(NoSlot::Full)
        }
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.open.fetch_sub(1, Ordering::SeqCst);
        let mut per = self
            .0
            .per_address
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(held) = per.get_mut(&self.1) {
            *held = held.saturating_sub(1);
            if *held == 0 {
                per.remove(&self.1);
            }
        }
    }
}

/// Serves `listener` until `stop` is set, answering each request with `handler`; then
/// waits for the open connections to end and drops `handler` (the routes' state: the last
/// reference to it is this one once the connections are done).
pub fn serve<H>(
    listener: TcpListener,
    limits: Limits,
    stop: Arc<AtomicBool>,
    handler: H,
) -> std::io::Result<()>
where
    H: Fn(&Request, &Permits) -> Reply + Send + Sync + 'static,
{
    let handler = Arc::new(handler);
    let gate = Arc::new(Gate::new(limits, stop));
    {
        // The accept thread holds the handler weakly: once the connections are done, the
        // reference here is the last one.
        let (gate, handler) = (Arc::clone(&gate), Arc::downgrade(&handler));
        std::thread::Builder::new()
            .name("mapscope-http-accept".into())
            .spawn(move || accept_loop(&listener, &gate, &handler))?;
    }
    while !gate.stopping() {
        std::thread::sleep(POLL);
    }
    // A connection accepted from now on sees the flag after taking its slot and is refused;
    // one that took its slot before is counted here. A request that takes longer than
    // `STOP_WAIT` (a model that does not answer) is not waited for: the process ends.
    let until = Instant::now() + STOP_WAIT;
    while gate.open.load(Ordering::SeqCst) > 0 && Instant::now() < until {
        std::thread::sleep(POLL / 5);
    }
    drop(handler);
    Ok(())
}

/// The accept thread: a connection thread per connection while a slot is free; it ends
/// with the process (it blocks in `accept`).
fn accept_loop<H>(listener: &TcpListener, gate: &Arc<Gate>, handler: &Weak<H>)
where
    H: Fn(&Request, &Permits) -> Reply + Send + Sync + 'static,
{
    for stream in listener.incoming() {
        let stream = match stream {
            Ok(stream) => stream,
            Err(e) => {
                // Out of file descriptors, say: the connection waits in the backlog.
                crate::contract::warn(&format!("http: cannot accept a connection: {e}"));
                std::thread::sleep(POLL);
                continue;
            }
        };
        let Ok(peer) = stream.peer_addr() else {
            continue;
        };
        let slot = match Slot::take(gate, peer.ip()) {
            Ok(slot) => slot,
            Err(NoSlot::Full) => {
                let why = format!("all {SLOTS} connections are in use; retry later");
                refuse_at_once(stream, peer, &Refusal::new(503, "SERVER_BUSY", why));
                continue;
            }
            Err(NoSlot::AddressFull) => {
                let why =
                    format!("this address has {PER_ADDRESS} connections open already; retry later");
                let refusal = Refusal::new(429, "TOO_MANY_CONNECTIONS", why);
                refuse_at_once(stream, peer, &refusal);
                continue;
            }
        };
        if gate.stopping() {
            drop(slot);
            let refusal = Refusal::new(503, "SERVER_BUSY", "the server is stopping");
            refuse_at_once(stream, peer, &refusal);
            continue;
        }
        let Some(handler) = handler.upgrade() else {
            continue;
        };
        let thread_gate = Arc::clone(gate);
        let spawned = std::thread::Builder::new()
            .name("mapscope-http-conn".into())
            .spawn(move || {
                // Declared in this order, the handler is dropped before the slot, also when
                // a panic unwinds: `serve` drops the last reference once no slot is taken.
                let slot = slot;
                let handler = handler;
                let mut stream = stream;
                connection(&mut stream, peer, &thread_gate, &*handler);
                drop((stream, handler, slot));
            });
        if let Err(e) = spawned {
            crate::contract::warn(&format!("http: cannot start a connection thread: {e}"));
        }
    }
}

/// 503 `SERVER_BUSY` or 429 `TOO_MANY_CONNECTIONS` from the accept thread, which must not
/// wait on the client: what the client sent already is read and dropped without waiting
/// (unread input would make the close reset the connection before the client reads the
/// answer), the answer written with a short timeout, the connection closed.
fn refuse_at_once(mut stream: TcpStream, peer: SocketAddr, refusal: &Refusal) {
    refusal.log(peer);
    if stream.set_nonblocking(true).is_ok() {
        let mut scratch = [0u8; 4096];
        let mut left = MAX_HEAD + MAX_BODY;
        while left > 0 {
            match stream.read(&mut scratch) {
                Ok(n) if n > 0 => left = left.saturating_sub(n),
                _ => break,
            }
        }
        let _ = stream.set_nonblocking(false);
    }
    let _ = stream.set_write_timeout(Some(REFUSE_WRITE));
    let _ = stream.write_all(&response_bytes(&refusal.reply()));
    let _ = stream.shutdown(Shutdown::Write);
}

/// One connection on its thread: the head, the body, the route (which takes its permit),
/// the reply.
fn connection<H>(stream: &mut TcpStream, peer: SocketAddr, gate: &Gate, handler: &H)
where
    H: Fn(&Request, &Permits) -> Reply,
{
    let _ = stream.set_nodelay(true);
    let accepted = Instant::now();
    let Ok(local) = stream.local_addr() else {
        return;
    };
    let mut buf = vec![0u8; MAX_HEAD];
    let mut filled = 0;
    let head = loop {
        match parse_head(&buf[..filled]) {
            Ok(Some(head)) => break head,
            Ok(None) => {}
            Err(refusal) => return refuse(stream, peer, &refusal, gate.limits),
        }
        // Looked at again every `POLL`, also while nothing arrives: the server may have
        // become busy meanwhile.
        let deadline = || gate.head_deadline(accepted).0;
        match read_by(stream, &mut buf[filled..], deadline, Some(&gate.stop)) {
            Got::Bytes(n) => filled += n,
            // Nothing was asked, or the client gave up: nothing to answer.
            Got::Closed if filled == 0 => return,
            Got::Closed => {
                let refusal = Refusal::bad_request("the connection ended inside the request head");
                return refuse(stream, peer, &refusal, gate.limits);
            }
            Got::Late => {
                let refusal = Refusal::late("head", gate.head_deadline(accepted).1);
                return refuse(stream, peer, &refusal, gate.limits);
            }
            // No request in hand yet: the stop does not wait for this one.
            Got::Stopping | Got::Failed => return,
        }
    };
    let mut left = head.body.saturating_sub(filled - head.len);
    if left > 0 && head.expect_continue {
        let go_on = b"HTTP/1.1 100 Continue\r\n\r\n";
        if !write_by(stream, go_on, Instant::now() + gate.limits.write) {
            return;
        }
    }
    let deadline = Instant::now() + gate.limits.body;
    while left > 0 {
        let room = left.min(buf.len());
        let refusal = match read_by(stream, &mut buf[..room], || deadline, Some(&gate.stop)) {
            Got::Bytes(n) => {
                left -= n;
                continue;
            }
            Got::Closed => Refusal::bad_request("the body ended before its Content-Length"),
            Got::Late => Refusal::late("body", gate.limits.body),
            Got::Stopping => Refusal::new(503, "SERVER_BUSY", "the server is stopping"),
            Got::Failed => return,
        };
        return refuse(stream, peer, &refusal, gate.limits);
    }
    let request = Request {
        method: head.method,
        target: head.target,
        host: head.host,
        origin: head.origin,
        fetch_site: head.fetch_site,
        peer,
        local,
    };
    let reply = answer(handler, &request, &gate.permits);
    // The client may be gone or not reading; either way the connection is done.
    let _ = write_by(
        stream,
        &response_bytes(&reply),
        Instant::now() + gate.limits.write,
    );
    let _ = stream.shutdown(Shutdown::Write);
}

/// The route's reply. A bug in a route is a 500 (the panic hook has printed why); the
/// permit and the slot are given back by their guards either way.
fn answer<H: Fn(&Request, &Permits) -> Reply>(
    handler: &H,
    request: &Request,
    permits: &Permits,
) -> Reply {
    let run = std::panic::AssertUnwindSafe(|| handler(request, permits));
    std::panic::catch_unwind(run).unwrap_or_else(|_| {
        let why = "the request failed (the server's stderr says why)";
        Reply::error(500, "INTERNAL_ERROR", why)
    })
}

/// Answers `refusal` (and logs it), then lingers: the request may not have been read to its
/// end.
fn refuse(stream: &mut TcpStream, peer: SocketAddr, refusal: &Refusal, limits: Limits) {
    refusal.log(peer);
    // A client that sent nothing and stopped reading may be gone: a failed write is fine.
    if write_by(
        stream,
        &response_bytes(&refusal.reply()),
        Instant::now() + limits.write,
    ) {
        let _ = stream.shutdown(Shutdown::Write);
        let until = Instant::now() + LINGER;
        let mut scratch = [0u8; 8192];
        while let Got::Bytes(_) = read_by(stream, &mut scratch, || until, None) {}
    }
}

/// What one read got.
enum Got {
    Bytes(usize),
    /// End of input: the client closed (its writing half).
    Closed,
    /// The deadline passed first.
    Late,
    /// The stop flag was set.
    Stopping,
    /// The socket failed (a reset): nothing more to read or write.
    Failed,
}

/// One read into `buf` (not empty) that returns by `deadline()`: the socket's read timeout
/// is the time left, at most `POLL` so that a set `stop` flag, or a deadline that moved
/// (the head's, once the server is busy), is seen.
fn read_by(
    stream: &mut TcpStream,
    buf: &mut [u8],
    deadline: impl Fn() -> Instant,
    stop: Option<&AtomicBool>,
) -> Got {
    loop {
        let now = Instant::now();
        let deadline = deadline();
        if now >= deadline {
            return Got::Late;
        }
        if stop.is_some_and(|s| s.load(Ordering::SeqCst)) {
            return Got::Stopping;
        }
        if stream
            .set_read_timeout(Some((deadline - now).min(POLL)))
            .is_err()
        {
            return Got::Failed;
        }
        match stream.read(buf) {
            Ok(0) => return Got::Closed,
            Ok(n) => return Got::Bytes(n),
            Err(e)
                if matches!(
                    e.kind(),
                    ErrorKind::WouldBlock | ErrorKind::TimedOut | ErrorKind::Interrupted
                ) => {}
            Err(_) => return Got::Failed,
        }
    }
}

/// Writes all of `bytes` by `deadline` (the socket's write timeout is the time left before
/// each write); false if the client did not take them in time or is gone.
fn write_by(stream: &mut TcpStream, bytes: &[u8], deadline: Instant) -> bool {
    let mut rest = bytes;
    while !rest.is_empty() {
        let now = Instant::now();
        if now >= deadline || stream.set_write_timeout(Some(deadline - now)).is_err() {
            return false;
        }
        match stream.write(rest) {
            Ok(0) => return false,
            Ok(n) => rest = &rest[n..],
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(_) => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn head(text: &str) -> Head {
        parse_head(text.as_bytes())
            .unwrap_or_else(|r| panic!("{text:?}: {r:?}"))
            .unwrap_or_else(|| panic!("{text:?}: incomplete"))
    }

    fn refused(bytes: &[u8]) -> (u16, &'static str) {
        match parse_head(bytes) {
            Err(r) => (r.status, r.code),
            Ok(h) => panic!("{:?}: {h:?}", String::from_utf8_lossy(bytes)),
        }
    }

    #[test]
    fn a_complete_head_gives_method_target_and_body_length() {
        let h = head("GET /search?q=a%20b&top=3 HTTP/1.1\r\nHost: x\r\n\r\n");
        assert_eq!(h.method, "GET");
        assert_eq!(h.target, "/search?q=a%20b&top=3");
        assert_eq!((h.body, h.expect_continue), (0, false));
        let text = "POST /index HTTP/1.0\r\ncontent-length: 12\r\nExpect: 100-Continue\r\n\r\nbody";
        let h = head(text);
        assert_eq!((h.body, h.expect_continue), (12, true));
        assert_eq!(h.len, text.len() - 4, "the body starts after the head");
        // The same length twice is fine.
        let h =
            head("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\n");
        assert_eq!(h.body, 5);
        let h = head(
            "GET / HTTP/1.1\r\nHOST: a:1\r\nOrigin: http://b\r\nSec-Fetch-Site: cross-site\r\n\r\n",
        );
        assert_eq!(h.host.as_deref(), Some("a:1"));
        assert_eq!(h.origin.as_deref(), Some("http://b"));
        assert_eq!(h.fetch_site.as_deref(), Some("cross-site"));
        // HTTP/1.0 may go without a Host.
        assert_eq!(head("GET / HTTP/1.0\r\n\r\n").host, None);
    }

    #[test]
    fn an_incomplete_head_waits_for_more_up_to_the_limit() {
        for part in [
            "",
            "GET",
            "GET /stats HTTP/1.1\r\n",
            "GET / HTTP/1.1\r\nHost: x\r\n",
        ] {
            assert!(parse_head(part.as_bytes()).unwrap().is_none(), "{part:?}");
        }
        let mut long = b"GET /".to_vec();
        long.resize(MAX_HEAD, b'a');
        assert_eq!(refused(&long), (431, "HEADERS_TOO_LARGE"));
        let mut long = b"GET / HTTP/1.1\r\nX-Long: ".to_vec();
        long.resize(MAX_HEAD + 10, b'a');
        long.extend_from_slice(b"\r\n\r\n");
        assert_eq!(refused(&long), (431, "HEADERS_TOO_LARGE"));
        let many: String = (0..=MAX_HEADERS).map(|i| format!("X-{i}: y\r\n")).collect();
        let text = format!("GET / HTTP/1.1\r\n{many}\r\n");
        assert!(text.len() < MAX_HEAD);
        assert_eq!(refused(text.as_bytes()), (431, "HEADERS_TOO_LARGE"));
    }

    #[test]
    fn malformed_heads_are_refused_with_their_code() {
        for (bytes, want) in [
            (&b"THIS IS NOT HTTP\r\n\r\n"[..], (400, "BAD_REQUEST")),
            (b"\x00\x01\x02\xff garbage", (400, "BAD_REQUEST")),
            (b"GET /\r\n\r\n", (400, "BAD_REQUEST")),
            (
                b"GET / HTTP/1.1\r\nNo colon here\r\n\r\n",
                (400, "BAD_REQUEST"),
            ),
            (
                b"GET / HTTP/1.1\r\nBad\x01Name: x\r\n\r\n",
                (400, "BAD_REQUEST"),
            ),
            (
                b"GET / HTTP/2.0\r\n\r\n",
                (505, "HTTP_VERSION_NOT_SUPPORTED"),
            ),
            (
                b"GET / HTTP/1.2\r\n\r\n",
                (505, "HTTP_VERSION_NOT_SUPPORTED"),
            ),
            (
                b"POST / HTTP/1.1\r\nContent-Length: twelve\r\n\r\n",
                (400, "BAD_REQUEST"),
            ),
            (
                b"POST / HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n",
                (400, "BAD_REQUEST"),
            ),
            (
                b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n",
                (411, "LENGTH_REQUIRED"),
            ),
            (
                b"POST / HTTP/1.1\r\nContent-Length: 10485760\r\n\r\n",
                (413, "BODY_TOO_LARGE"),
            ),
            (
                b"POST / HTTP/1.1\r\nContent-Length: 99999999999999999999999\r\n\r\n",
                (413, "BODY_TOO_LARGE"),
            ),
            (b"GET / HTTP/1.1\r\n\r\n", (400, "BAD_REQUEST")),
            (
                b"GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
                (400, "BAD_REQUEST"),
            ),
            (
                b"GET / HTTP/1.1\r\nHost: a\r\nOrigin: x\r\norigin: y\r\n\r\n",
                (400, "BAD_REQUEST"),
            ),
        ] {
            assert_eq!(refused(bytes), want, "{:?}", String::from_utf8_lossy(bytes));
        }
        // A request line is refused as soon as it cannot be HTTP, without waiting for more.
        assert_eq!(refused(b"\x16\x03\x01"), (400, "BAD_REQUEST"));
    }

    #[test]
    fn replies_carry_status_type_length_and_close() {
        let text = String::from_utf8(response_bytes(&Reply::error(
            431,
            "HEADERS_TOO_LARGE",
            "x\u{1b}y",
        )))
        .unwrap();
        let (head, body) = text.split_once("\r\n\r\n").unwrap();
        let lines: Vec<&str> = head.split("\r\n").collect();
        assert_eq!(lines[0], "HTTP/1.1 431 Request Header Fields Too Large");
        assert!(lines.contains(&"Content-Type: application/json"));
        assert!(lines.contains(&"Connection: close"));
        assert!(lines.contains(&format!("Content-Length: {}", body.len()).as_str()));
        let v: Value = serde_json::from_str(body).unwrap();
        assert_eq!(v["code"], "HEADERS_TOO_LARGE");
        assert_eq!(v["success"], false);
        assert!(!v["error"].as_str().unwrap().contains('\u{1b}'));
    }

    /// A connection thread over a real loopback socket, with short deadlines.
    fn exchange(send: &[u8], then_wait: bool) -> (String, Duration) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let limits = Limits {
            head: Duration::from_millis(300),
            body: Duration::from_millis(300),
            write: Duration::from_secs(1),
            busy_head: Duration::from_millis(300),
        };
        let gate = Gate::new(limits, Arc::new(AtomicBool::new(false)));
        let server = std::thread::spawn(move || {
            let (mut stream, peer) = listener.accept().unwrap();
            connection(&mut stream, peer, &gate, &|r: &Request, _: &Permits| {
                Reply::ok(json!({"target": r.target}))
            });
        });
        let started = Instant::now();
        let mut client = TcpStream::connect(addr).unwrap();
        client.write_all(send).unwrap();
        if !then_wait {
            client.shutdown(Shutdown::Write).unwrap();
        }
        client
            .set_read_timeout(Some(Duration::from_secs(5)))
            .unwrap();
        let mut reply = String::new();
        let _ = client.read_to_string(&mut reply);
        let took = started.elapsed();
        drop(client);
        server.join().unwrap();
        (reply, took)
    }

    #[test]
    fn a_connection_answers_one_request_and_cuts_slow_clients() {
        let (reply, _) = exchange(b"GET /stats?x=1 HTTP/1.1\r\nHost: x\r\n\r\n", true);
        assert!(reply.starts_with("HTTP/1.1 200 OK\r\n"), "{reply}");
        assert!(reply.ends_with(r#"{"target":"/stats?x=1"}"#), "{reply}");
        // A body sent with its head needs no go-ahead; one held back gets it, then its 408.
        let expecting = b"POST /index HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\
            Expect: 100-continue\r\n\r\n";
        let (reply, _) = exchange(&[&expecting[..], b"body"].concat(), true);
        assert!(reply.starts_with("HTTP/1.1 200 OK"), "{reply}");
        let (reply, _) = exchange(expecting, true);
        assert!(
            reply.starts_with("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 408 Request Timeout"),
            "{reply}"
        );
        for (send, what) in [
            (&b"GET /stats HTT"[..], "head"),
            (b"", "head"),
            (
                b"POST /index HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc",
                "body",
            ),
        ] {
            let (reply, took) = exchange(send, true);
            assert!(reply.starts_with("HTTP/1.1 408 Request Timeout"), "{reply}");
            assert!(
                reply.contains(&format!("the request {what} did not")),
                "{reply}"
            );
            assert!(took >= Duration::from_millis(300) && took < Duration::from_secs(3));
        }
        let (reply, _) = exchange(
            b"POST /index HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc",
            false,
        );
        assert!(reply.starts_with("HTTP/1.1 400 Bad Request"), "{reply}");
        let (reply, _) = exchange(b"GET /stats HTTP/1.1\r\n", false);
        assert!(reply.contains("\"code\":\"BAD_REQUEST\""), "{reply}");
        let (reply, _) = exchange(b"", false);
        assert_eq!(reply, "", "a client that closes at once gets nothing");
    }
}
