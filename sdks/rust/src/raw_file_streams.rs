//! A file's bytes streamed through the raw routes, never held whole: an upload read from any
//! [`AsyncRead`] (a `tokio::fs::File`, a socket, `&[u8]`) as it is sent, a download written to any
//! [`AsyncWrite`] as it arrives. [`Client::upload_file`] and [`Client::download_file`] are the
//! same routes for bytes already in memory.

use crate::transport::Call;
use crate::types::FileWritten;
use crate::{CairnError, Client, SandboxSession};
use bytes::Bytes;
use http_body::{Body, Frame, SizeHint};
use reqwest::Method;
use std::pin::Pin;
use std::sync::Mutex;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, ReadBuf};

/// The whole transfer's timeout, as for the in-memory calls (100 MiB on a slow link).
const RAW_TRANSFER_TIMEOUT: Duration = Duration::from_secs(600);
/// How much of the reader one frame of the request body carries.
const FRAME_BYTES: usize = 64 * 1024;

/// A request body read from an [`AsyncRead`] frame by frame. The reader sits in a `Mutex` only
/// so the body is `Sync`, as reqwest wants; it is reached through `&mut`, never locked.
struct ReaderBody<R> {
    reader: Mutex<R>,
    buffer: Vec<u8>,
    done: bool,
}

impl<R: AsyncRead + Unpin> Body for ReaderBody<R> {
    type Data = Bytes;
    type Error = std::io::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        context: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, std::io::Error>>> {
        let this = self.get_mut();
        if this.done {
            return Poll::Ready(None);
        }
        let reader = this
            .reader
            .get_mut()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let mut buffer = ReadBuf::new(&mut this.buffer);
        match Pin::new(reader).poll_read(context, &mut buffer) {
            Poll::Pending => Poll::Pending,
            Poll::Ready(Err(error)) => {
                this.done = true;
                Poll::Ready(Some(Err(error)))
            }
            Poll::Ready(Ok(())) if buffer.filled().is_empty() => {
                this.done = true;
                Poll::Ready(None)
            }
            Poll::Ready(Ok(())) => Poll::Ready(Some(Ok(Frame::data(Bytes::copy_from_slice(
                buffer.filled(),
            ))))),
        }
    }

    fn is_end_stream(&self) -> bool {
        self.done
    }

    fn size_hint(&self) -> SizeHint {
        SizeHint::default()
    }
}

impl Client {
    /// Writes a file with the bytes read from `reader` until its end, streamed through the raw
    /// route as they are read (at most 100 MiB; more is 413 `payload_too_large` and leaves
    /// nothing behind, as does a reader that fails: the server never sees the upload end).
    /// Parent directories are created. Not retried: a stream cannot be sent twice.
    pub async fn upload_file_from<R>(
        &self,
        session_id: &str,
        path: &str,
        reader: R,
    ) -> Result<FileWritten, CairnError>
    where
        R: AsyncRead + Unpin + Send + 'static,
    {
        let call = raw_call(self, Method::PUT, session_id, path);
        let body = reqwest::Body::wrap(ReaderBody {
            reader: Mutex::new(reader),
            buffer: vec![0; FRAME_BYTES],
            done: false,
        });
        let response = self.transport.send_raw_streamed(&call, Some(body)).await?;
        let description = call.describe();
        let body = response.bytes().await.map_err(|source| {
            CairnError::connection(format!("{description}: the answer broke off"), source)
        })?;
        serde_json::from_slice(&body).map_err(|source| CairnError::Decode {
            message: format!("{description}: the answer is not the documented JSON: {source}"),
            source: Some(source),
        })
    }

    /// Writes a file's exact bytes to `writer` as they arrive through the raw route, and returns
    /// how many there were. Any size; memory stays at one chunk. `writer` is flushed at the end;
    /// when it fails the download stops with [`CairnError::Io`].
    pub async fn download_file_to<W>(
        &self,
        session_id: &str,
        path: &str,
        writer: &mut W,
    ) -> Result<u64, CairnError>
    where
        W: AsyncWrite + Unpin + ?Sized,
    {
        let call = raw_call(self, Method::GET, session_id, path);
        let description = call.describe();
        let mut response = self.transport.send_raw_streamed(&call, None).await?;
        let write_failed = |source: std::io::Error| CairnError::Io {
            message: format!("{description}: could not write the download: {source}"),
            source,
        };
        let mut written = 0u64;
        loop {
            let chunk = response.chunk().await.map_err(|source| {
                CairnError::connection(format!("{description}: the download broke off"), source)
            })?;
            let Some(chunk) = chunk else { break };
            writer.write_all(&chunk).await.map_err(write_failed)?;
            written += chunk.len() as u64;
        }
        writer.flush().await.map_err(write_failed)?;
        Ok(written)
    }
}

fn raw_call<'a>(client: &Client, method: Method, session_id: &'a str, path: &str) -> Call<'a> {
    Call::new(method, &["v1", "sandboxes", session_id, "files", "raw"])
        .query("path", path)
        .timeout(client.transport.timeout.max(RAW_TRANSFER_TIMEOUT))
}

impl SandboxSession {
    pub async fn upload_file_from<R>(
        &self,
        path: &str,
        reader: R,
    ) -> Result<FileWritten, CairnError>
    where
        R: AsyncRead + Unpin + Send + 'static,
    {
        self.client.upload_file_from(self.id(), path, reader).await
    }

    pub async fn download_file_to<W>(&self, path: &str, writer: &mut W) -> Result<u64, CairnError>
    where
        W: AsyncWrite + Unpin + ?Sized,
    {
        self.client.download_file_to(self.id(), path, writer).await
    }
}
