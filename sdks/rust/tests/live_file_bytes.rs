//! Bytes in and out of a sandbox against the live server: 50 MiB of pseudo-random bytes through
//! `upload_file`/`download_file` (in memory) and `upload_file_from`/`download_file_to` (streamed
//! from a reader, into a writer), base64 through `file_create_bytes`/`view_bytes`, and the
//! refusals a caller can act on.

mod support;

use cairn_client::{CairnError, CreateSandboxOptions, ViewOptions};
use support::live_account;

/// Bytes from a xorshift generator: every value, no pattern a transport could compress away.
fn noise(length: usize, mut state: u64) -> Vec<u8> {
    (0..length)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 24) as u8
        })
        .collect()
}

#[tokio::test]
async fn uploads_and_downloads_exact_bytes() {
    let client = live_account().await;
    client
        .with_sandbox(&CreateSandboxOptions::default(), |sandbox| async move {
            let big = noise(50 * 1024 * 1024, 0x9e37_79b9_7f4a_7c15);
            let written = sandbox.upload_file("big.bin", big.clone()).await?;
            assert_eq!(
                (written.path.as_str(), written.size, written.created),
                ("/workspace/big.bin", big.len() as u64, true)
            );
            assert!(sandbox.download_file("big.bin").await? == big);
            let empty = sandbox.upload_file("empty.bin", Vec::new()).await?;
            assert_eq!(empty.size, 0);
            assert!(sandbox.download_file("empty.bin").await?.is_empty());

            let small = noise(4000, 7);
            assert_eq!(
                sandbox.file_create_bytes("small.bin", &small).await?.size,
                4000
            );
            assert!(sandbox.view_bytes("small.bin").await? == small);
            match sandbox.view("small.bin", ViewOptions::default()).await {
                Err(CairnError::Api { status, code, .. }) => {
                    assert_eq!((status, code.as_str()), (422, "file_not_utf8"))
                }
                other => panic!("a text view of bytes: {other:?}"),
            }
            match sandbox.download_file("/etc/passwd").await {
                Err(CairnError::Api { status, code, .. }) => {
                    assert_eq!((status, code.as_str()), (403, "path_outside_sandbox"))
                }
                other => panic!("a download outside: {other:?}"),
            }
            Ok::<_, CairnError>(())
        })
        .await
        .unwrap();
}

/// A reader that hands out its bytes a few at a time and yields between reads, so the upload is
/// really streamed frame by frame, not one slice sent whole.
struct Trickle {
    bytes: Vec<u8>,
    position: usize,
    ready: bool,
}

impl tokio::io::AsyncRead for Trickle {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        context: &mut std::task::Context<'_>,
        buffer: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        if !self.ready {
            self.ready = true;
            context.waker().wake_by_ref();
            return std::task::Poll::Pending;
        }
        self.ready = false;
        let end = (self.position + 40_000)
            .min(self.bytes.len())
            .min(self.position + buffer.remaining());
        let position = self.position;
        buffer.put_slice(&self.bytes[position..end]);
        self.position = end;
        std::task::Poll::Ready(Ok(()))
    }
}

#[tokio::test]
async fn streams_exact_bytes_from_a_reader_and_into_a_writer() {
    let client = live_account().await;
    client
        .with_sandbox(&CreateSandboxOptions::default(), |sandbox| async move {
            let big = noise(20 * 1024 * 1024 + 3, 0x2545_f491_4f6c_dd1d);
            let reader = Trickle {
                bytes: big.clone(),
                position: 0,
                ready: false,
            };
            let written = sandbox.upload_file_from("streamed.bin", reader).await?;
            assert_eq!(
                (written.path.as_str(), written.size, written.created),
                ("/workspace/streamed.bin", big.len() as u64, true)
            );
            // What the in-memory route reads back is what the reader gave.
            assert!(sandbox.download_file("streamed.bin").await? == big);

            let mut into: Vec<u8> = Vec::new();
            let count = sandbox.download_file_to("streamed.bin", &mut into).await?;
            assert_eq!(count, big.len() as u64);
            assert!(into == big);

            // A slice is a reader too; an empty one writes an empty file.
            let small: &'static [u8] = b"\x00\xffbytes\n";
            assert_eq!(sandbox.upload_file_from("small.bin", small).await?.size, 8);
            assert_eq!(
                sandbox.upload_file_from("empty.bin", &b""[..]).await?.size,
                0
            );
            let mut out = Vec::new();
            assert_eq!(sandbox.download_file_to("small.bin", &mut out).await?, 8);
            assert_eq!(out, small);

            match sandbox
                .download_file_to("/etc/passwd", &mut Vec::new())
                .await
            {
                Err(CairnError::Api { status, code, .. }) => {
                    assert_eq!((status, code.as_str()), (403, "path_outside_sandbox"))
                }
                other => panic!("a streamed download outside: {other:?}"),
            }
            match sandbox.upload_file_from("/etc/evil", &b"x"[..]).await {
                Err(CairnError::Api { status, code, .. }) => {
                    assert_eq!((status, code.as_str()), (403, "path_outside_sandbox"))
                }
                other => panic!("a streamed upload outside: {other:?}"),
            }
            Ok::<_, CairnError>(())
        })
        .await
        .unwrap();
}
