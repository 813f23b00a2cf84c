//! Bytes in and out of a sandbox against the live server: 50 MiB of pseudo-random bytes through
//! `upload_file`/`download_file`, base64 through `file_create_bytes`/`view_bytes`, and the
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
