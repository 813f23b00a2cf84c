//! Previews and takeover tokens against the live server: a dev server started in the background
//! is reached through its preview URL, and not after revoke; a takeover token is minted.

mod support;

use cairn_client::{CairnError, CreateSandboxOptions, StartProcessOptions};
use support::live_account;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// The status line of a plain HTTP GET of `url` (http://host:port/path).
async fn status_of(url: &str) -> String {
    let rest = url.strip_prefix("http://").expect("an http URL");
    let (host, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let mut stream = TcpStream::connect(host).await.expect("connect");
    let request = format!("GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.expect("write");
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).await.expect("read");
    let text = String::from_utf8_lossy(&answer);
    text.lines().next().unwrap_or_default().to_string()
}

#[tokio::test]
async fn reaches_a_dev_server_through_its_preview_until_revoked() {
    let client = live_account().await;
    client
        .with_sandbox(&CreateSandboxOptions::default(), |sandbox| async move {
            sandbox
                .start_process(
                    "python3 -m http.server 8767 --bind 127.0.0.1",
                    StartProcessOptions::default(),
                )
                .await?;
            let preview = sandbox.preview(8767, Some(120)).await?;
            assert_eq!(preview.port, 8767);
            assert!(preview.token_id.starts_with("prv_"));
            let mut status = status_of(&preview.url).await;
            for _ in 0..100 {
                if status.contains(" 200 ") {
                    break;
                }
                tokio::time::sleep(std::time::Duration::from_millis(200)).await;
                status = status_of(&preview.url).await;
            }
            assert!(status.contains(" 200 "), "{status}");
            for _ in 0..2 {
                assert!(
                    sandbox
                        .revoke_preview(8767, &preview.token_id)
                        .await?
                        .revoked
                );
            }
            assert!(status_of(&preview.url).await.contains(" 404 "));
            let token = sandbox.takeover_token(true).await?;
            assert!(token.token.starts_with("tkt_") && token.read_only);
            Ok::<(), CairnError>(())
        })
        .await
        .unwrap();
}
