//! The per-sandbox operations of the runner: exec, the HTTP broker, files and language servers.

use crate::calls::{json, Args};
use cairn_client::{CairnError, Client, ExecOptions, GrepOptions, HttpRequestOptions, ViewOptions};
use serde_json::Value;

pub async fn dispatch(
    client: &Client,
    call: &str,
    args: &Args<'_>,
) -> Result<Result<Value, CairnError>, String> {
    let session = || args.text("session_id");
    Ok(match call {
        "exec" => {
            let options = ExecOptions {
                timeout: args.parse("timeout")?,
                description: args.optional_text("description")?,
                max_output_bytes: args.parse("max_output_bytes")?,
                keep: args.parse("keep")?,
            };
            json(
                client
                    .exec(&session()?, &args.text("command")?, options)
                    .await,
            )
        }
        "lsp_start" => json(client.lsp_start(&session()?, &args.text("language")?).await),
        "lsp_open" => {
            let (lsp_id, path, content) = (
                args.text("lsp_id")?,
                args.text("path")?,
                args.text("content")?,
            );
            json(client.lsp_open(&session()?, &lsp_id, &path, &content).await)
        }
        "lsp_completion" => {
            let line = args.parse("line")?.ok_or("argument line is required")?;
            let character = args
                .parse("character")?
                .ok_or("argument character is required")?;
            json(
                client
                    .lsp_completion(
                        &session()?,
                        &args.text("lsp_id")?,
                        &args.text("path")?,
                        line,
                        character,
                    )
                    .await,
            )
        }
        "lsp_stop" => json(client.lsp_stop(&session()?, &args.text("lsp_id")?).await),
        "http_request" => {
            let request = HttpRequestOptions {
                method: args.optional_text("method")?,
                url: args.text("url")?,
                headers: args.parse("headers")?.unwrap_or_default(),
                body: args.optional_text("body")?,
                timeout: args.parse("timeout")?,
            };
            json(client.http_request(&session()?, request).await)
        }
        "file_create" => json(
            client
                .file_create(&session()?, &args.text("path")?, &args.text("content")?)
                .await,
        ),
        "view" => {
            let options = ViewOptions {
                view_range: args.parse("view_range")?,
                max_output_bytes: args.parse("max_output_bytes")?,
                keep: args.parse("keep")?,
            };
            json(client.view(&session()?, &args.text("path")?, options).await)
        }
        "str_replace" => {
            let (path, old, new) = (
                args.text("path")?,
                args.text("old_str")?,
                args.text("new_str")?,
            );
            let replace_all = args.parse("replace_all")?.unwrap_or(false);
            json(
                client
                    .str_replace(&session()?, &path, &old, &new, replace_all)
                    .await,
            )
        }
        "ls" => json(
            client
                .ls(
                    &session()?,
                    &args.optional_text("path")?.unwrap_or_else(|| "/".into()),
                )
                .await,
        ),
        "glob" => {
            let path = args.optional_text("path")?;
            json(
                client
                    .glob(&session()?, &args.text("pattern")?, path.as_deref())
                    .await,
            )
        }
        "grep" => {
            let options = GrepOptions {
                path: args.optional_text("path")?,
                glob: args.optional_text("glob")?,
                max_matches: args.parse("max_matches")?,
            };
            json(
                client
                    .grep(&session()?, &args.text("pattern")?, options)
                    .await,
            )
        }
        other => return Err(format!("the Rust runner does not know the call {other:?}")),
    })
}
