//! Shared by the integration tests: a tiny scripted HTTP server (for what a live Cairn server will
//! not do on demand: a 503 with `Retry-After`, a slow answer) and accounts on the live server the
//! test command starts (`CAIRN_TEST_BASE_URL`).
#![allow(dead_code)] // each test binary uses its own part of this module

use cairn_client::Client;
use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// One canned answer.
#[derive(Clone)]
pub struct Answer {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
    /// Waits this long before answering.
    pub delay: Duration,
}

impl Answer {
    pub fn new(status: u16, body: &str) -> Self {
        Self {
            status,
            headers: Vec::new(),
            body: body.to_string(),
            delay: Duration::ZERO,
        }
    }

    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.to_string(), value.to_string()));
        self
    }

    pub fn delayed(mut self, delay: Duration) -> Self {
        self.delay = delay;
        self
    }
}

/// A request the scripted server received.
#[derive(Debug, Clone)]
pub struct Received {
    pub method: String,
    /// Path and query.
    pub target: String,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Received {
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).expect("the request body is JSON")
    }
}

/// Answers each request with the next scripted answer (the last one repeats) and records it.
pub struct ScriptedServer {
    pub base_url: String,
    received: Arc<Mutex<Vec<Received>>>,
}

impl ScriptedServer {
    pub async fn start(answers: Vec<Answer>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base_url = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());
        let received = Arc::new(Mutex::new(Vec::new()));
        let log = received.clone();
        tokio::spawn(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    return;
                };
                let answer = {
                    let count = log.lock().unwrap().len();
                    answers[count.min(answers.len() - 1)].clone()
                };
                let log = log.clone();
                tokio::spawn(async move { serve(stream, answer, log).await });
            }
        });
        Self { base_url, received }
    }

    pub fn received(&self) -> Vec<Received> {
        self.received.lock().unwrap().clone()
    }

    pub fn client(&self) -> cairn_client::ClientBuilder {
        Client::builder()
            .base_url(&self.base_url)
            .api_key("cairn_scripted")
    }
}

async fn serve(mut stream: TcpStream, answer: Answer, log: Arc<Mutex<Vec<Received>>>) {
    let mut data = Vec::new();
    let mut buffer = [0u8; 8192];
    let header_end = loop {
        let read = stream.read(&mut buffer).await.unwrap_or(0);
        if read == 0 {
            return;
        }
        data.extend_from_slice(&buffer[..read]);
        if let Some(end) = data.windows(4).position(|window| window == b"\r\n\r\n") {
            break end + 4;
        }
    };
    let head = String::from_utf8_lossy(&data[..header_end]).to_string();
    let mut lines = head.split("\r\n");
    let mut request_line = lines.next().unwrap_or_default().split(' ');
    let method = request_line.next().unwrap_or_default().to_string();
    let target = request_line.next().unwrap_or_default().to_string();
    let headers: Vec<(String, String)> = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_ascii_lowercase(), value.trim().to_string()))
        .collect();
    let length: usize = headers
        .iter()
        .find(|(name, _)| name == "content-length")
        .map_or(0, |(_, value)| value.parse().unwrap_or(0));
    while data.len() < header_end + length {
        let read = stream.read(&mut buffer).await.unwrap_or(0);
        if read == 0 {
            break;
        }
        data.extend_from_slice(&buffer[..read]);
    }
    let body = String::from_utf8_lossy(&data[header_end..]).to_string();
    log.lock().unwrap().push(Received {
        method,
        target,
        headers,
        body,
    });
    tokio::time::sleep(answer.delay).await;
    let mut response = format!(
        "HTTP/1.1 {} Scripted\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n",
        answer.status,
        answer.body.len()
    );
    for (name, value) in &answer.headers {
        response.push_str(&format!("{name}: {value}\r\n"));
    }
    response.push_str("\r\n");
    response.push_str(&answer.body);
    let _ = stream.write_all(response.as_bytes()).await;
    let _ = stream.shutdown().await;
}

/// A fresh lowercase hex string, for unique e-mail addresses.
pub fn random_hex() -> String {
    let mut hasher = RandomState::new().build_hasher();
    hasher.write_u64(std::process::id() as u64);
    format!("{:016x}", hasher.finish())
}

/// The live server's base URL; the live tests fail (never skip) without it.
pub fn live_base_url() -> String {
    std::env::var("CAIRN_TEST_BASE_URL").expect(
        "CAIRN_TEST_BASE_URL must name a running Cairn server (test/sdks/rust.test.ts sets it)",
    )
}

/// The live server that loads the example plugins (examples/plugins); required like the first.
pub fn live_plugins_base_url() -> String {
    std::env::var("CAIRN_TEST_PLUGINS_BASE_URL").expect(
        "CAIRN_TEST_PLUGINS_BASE_URL must name a Cairn server with the example plugins (test/sdks/rust.test.ts sets it)",
    )
}

/// A new account on the live server and its API key, made as a user would.
pub async fn live_key() -> String {
    key_on(&live_base_url()).await
}

/// A new account on the server at `base_url` and its API key.
pub async fn key_on(base_url: &str) -> String {
    let anonymous = Client::builder().base_url(base_url).build().unwrap();
    let email = format!("rust-sdk-{}@example.com", random_hex());
    let token = anonymous
        .signup(&email, "rust sdk password 1")
        .await
        .unwrap();
    anonymous
        .create_api_key(&token.access_token, "rust-sdk-tests")
        .await
        .unwrap()
        .key
}

/// A client holding a new account's API key.
pub async fn live_account() -> Client {
    Client::new(&live_base_url(), &live_key().await).unwrap()
}
