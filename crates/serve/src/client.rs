//! A minimal blocking HTTP/1.1 client for the server's own tests and load generator: loopback
//! only, bodies framed by `Content-Length` (what the server sends) or chunked. It sends exactly
//! the bytes it is given, so tests can send what a real client would not (a wrong content type,
//! a body over the cap, broken JSON).

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

/// One response.
#[derive(Debug, Clone)]
pub struct Response {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Response {
    /// The first header named `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// The body as JSON.
    pub fn json(&self) -> io::Result<serde_json::Value> {
        serde_json::from_slice(&self.body).map_err(|e| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "status {}: body is not JSON ({e}): {}",
                    self.status,
                    self.text()
                ),
            )
        })
    }
}

/// A kept-alive connection to one server.
pub struct Connection {
    reader: BufReader<TcpStream>,
    host: String,
}

fn bad(msg: impl Into<String>) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, msg.into())
}

impl Connection {
    /// Connects, with `timeout` on every read and write.
    pub fn open(addr: SocketAddr, timeout: Duration) -> io::Result<Connection> {
        let stream = TcpStream::connect_timeout(&addr, timeout)?;
        stream.set_read_timeout(Some(timeout))?;
        stream.set_write_timeout(Some(timeout))?;
        stream.set_nodelay(true)?;
        Ok(Connection {
            reader: BufReader::new(stream),
            host: addr.to_string(),
        })
    }

    /// Sends one request and reads its response. `content_type` is sent when given, with the
    /// body (which may be empty).
    pub fn send(
        &mut self,
        method: &str,
        path: &str,
        content_type: Option<&str>,
        body: &[u8],
    ) -> io::Result<Response> {
        let headers: Vec<(&str, &str)> = content_type
            .map(|ct| ("Content-Type", ct))
            .into_iter()
            .collect();
        self.send_with(method, path, &headers, body)
    }

    /// Sends one request with these headers (`Host` is this connection's address unless one
    /// is given) and reads its response.
    pub fn send_with(
        &mut self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> io::Result<Response> {
        let mut head = format!("{method} {path} HTTP/1.1\r\n");
        if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
            head.push_str(&format!("Host: {}\r\n", self.host));
        }
        head.push_str(&format!("Content-Length: {}\r\n", body.len()));
        for (k, v) in headers {
            head.push_str(&format!("{k}: {v}\r\n"));
        }
        head.push_str("\r\n");
        let stream = self.reader.get_mut();
        stream.write_all(head.as_bytes())?;
        // The server may answer (413) and close before it reads a body over its cap: a failed
        // write is then no error as long as the answer can be read.
        let _ = stream.write_all(body);
        self.read_response()
    }

    /// Writes `bytes` as they are (half a request, for tests of what the server tolerates).
    pub fn write_raw(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.reader.get_mut().write_all(bytes)
    }

    /// Reads what the server sends until it closes the connection: `Ok(None)` if it closed
    /// without a word, the response if it answered first. An error if it kept the connection
    /// open past this connection's timeout.
    pub fn read_until_closed(&mut self) -> io::Result<Option<Response>> {
        let mut first = [0u8; 1];
        match self.reader.read(&mut first) {
            Ok(0) => return Ok(None),
            Ok(_) => {}
            // A reset is the server closing with bytes of ours unread.
            Err(e) if e.kind() == io::ErrorKind::ConnectionReset => return Ok(None),
            Err(e) => return Err(e),
        }
        let mut rest = Vec::new();
        match self.reader.read_to_end(&mut rest) {
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::ConnectionReset => {}
            Err(e) => return Err(e),
        }
        let mut all = first.to_vec();
        all.extend(rest);
        read_response(&mut all.as_slice()).map(Some)
    }

    /// Reads one response.
    pub fn read_response(&mut self) -> io::Result<Response> {
        read_response(&mut self.reader)
    }
}

fn read_line(reader: &mut impl BufRead) -> io::Result<String> {
    let mut line = String::new();
    if reader.read_line(&mut line)? == 0 {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            "the server closed the connection",
        ));
    }
    Ok(line.trim_end_matches(['\r', '\n']).to_string())
}

/// Reads one response from `reader`.
pub fn read_response(reader: &mut impl BufRead) -> io::Result<Response> {
    let status_line = read_line(reader)?;
    let status = status_line
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| bad(format!("not an HTTP status line: {status_line:?}")))?;
    let mut headers = Vec::new();
    loop {
        let line = read_line(reader)?;
        if line.is_empty() {
            break;
        }
        let (k, v) = line
            .split_once(':')
            .ok_or_else(|| bad(format!("not a header: {line:?}")))?;
        headers.push((k.trim().to_string(), v.trim().to_string()));
    }
    let mut r = Response {
        status,
        headers,
        body: Vec::new(),
    };
    if matches!(status, 100..=199 | 204 | 304) {
        // No body, whatever the headers say.
    } else if let Some(n) = r.header("content-length") {
        let n: usize = n
            .parse()
            .map_err(|_| bad(format!("bad Content-Length {n:?}")))?;
        r.body = vec![0; n];
        reader.read_exact(&mut r.body)?;
    } else if r
        .header("transfer-encoding")
        .is_some_and(|t| t.eq_ignore_ascii_case("chunked"))
    {
        loop {
            let size = read_line(reader)?;
            let size = usize::from_str_radix(size.split(';').next().unwrap_or("").trim(), 16)
                .map_err(|_| bad(format!("bad chunk size {size:?}")))?;
            if size == 0 {
                while !read_line(reader)?.is_empty() {}
                break;
            }
            let start = r.body.len();
            r.body.resize(start + size, 0);
            reader.read_exact(&mut r.body[start..])?;
            read_line(reader)?;
        }
    } else {
        reader.read_to_end(&mut r.body)?;
    }
    Ok(r)
}

/// One request on a new connection, 30 s timeout.
pub fn request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    content_type: Option<&str>,
    body: &[u8],
) -> io::Result<Response> {
    Connection::open(addr, Duration::from_secs(30))?.send(method, path, content_type, body)
}

/// `POST path` with a JSON body on a new connection.
pub fn post_json(addr: SocketAddr, path: &str, body: &serde_json::Value) -> io::Result<Response> {
    request(
        addr,
        "POST",
        path,
        Some("application/json"),
        body.to_string().as_bytes(),
    )
}

/// `GET path` on a new connection.
pub fn get(addr: SocketAddr, path: &str) -> io::Result<Response> {
    request(addr, "GET", path, None, b"")
}
