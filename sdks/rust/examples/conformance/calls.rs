//! From a scenario step's registry name and wire-named arguments to this SDK's public method, and
//! its typed result back to JSON for the checks. Every operation of the registry is mapped (the
//! per-sandbox ones in `sandbox_calls.rs`), so a scenario can grow without touching the runner.

use cairn_client::{
    CairnError, Client, CreateImageOptions, CreateSandboxOptions, IngestOptions,
    ListMemoriesOptions, RememberOptions,
};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

/// The step's arguments, read by their wire names.
pub struct Args<'a>(pub &'a Value);

impl Args<'_> {
    pub fn parse<T: DeserializeOwned>(&self, name: &str) -> Result<Option<T>, String> {
        match self.0.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(value) => serde_json::from_value(value.clone())
                .map(Some)
                .map_err(|error| format!("argument {name}: {error}")),
        }
    }

    pub fn text(&self, name: &str) -> Result<String, String> {
        self.parse(name)?
            .ok_or(format!("argument {name} is required"))
    }

    pub fn optional_text(&self, name: &str) -> Result<Option<String>, String> {
        self.parse(name)
    }
}

pub fn json<T: Serialize>(result: Result<T, CairnError>) -> Result<Value, CairnError> {
    result.map(|value| serde_json::to_value(value).expect("SDK results serialise to JSON"))
}

pub async fn dispatch(
    client: &Client,
    call: &str,
    arguments: &Value,
) -> Result<Result<Value, CairnError>, String> {
    let args = Args(arguments);
    let session = || args.text("session_id");
    Ok(match call {
        "signup" => json(
            client
                .signup(&args.text("email")?, &args.text("password")?)
                .await,
        ),
        "login" => json(
            client
                .login(&args.text("email")?, &args.text("password")?)
                .await,
        ),
        "create_api_key" => json(
            client
                .create_api_key(&args.text("access_token")?, &args.text("name")?)
                .await,
        ),
        "list_api_keys" => json(client.list_api_keys(&args.text("access_token")?).await),
        "revoke_api_key" => json(
            client
                .revoke_api_key(&args.text("access_token")?, &args.text("key_id")?)
                .await,
        ),
        "get_account" => json(client.account().await),
        "get_usage" => json(client.usage().await),
        "get_allowed_commands" => json(client.get_allowed_commands().await),
        "set_allowed_commands" => {
            let rules: Vec<cairn_client::CommandRule> = args.parse("rules")?.unwrap_or_default();
            json(client.set_allowed_commands(&rules).await)
        }
        "clear_allowed_commands" => json(client.clear_allowed_commands().await),
        "create_sandbox" => {
            let options = CreateSandboxOptions {
                label: args.optional_text("label")?,
                size: args.parse("size")?.unwrap_or_default(),
                storage_gb: args.parse("storage_gb")?,
                lifetime_minutes: args.parse("lifetime_minutes")?,
                secret_names: args.parse("secret_names")?,
                image_id: args.optional_text("image_id")?,
                mcp_connection_names: args.parse("mcp_connection_names")?,
                volume_mounts: args.parse("volume_mounts")?,
            };
            match args.parse::<u32>("count")? {
                Some(count) if count > 1 => {
                    json(client.create_sandbox_batch(count, &options).await)
                }
                _ => json(client.create_sandbox(&options).await),
            }
        }
        "list_sandboxes" => json(
            client
                .list_sandboxes(args.parse("active_only")?.unwrap_or(false))
                .await,
        ),
        "get_sandbox" => json(client.get_sandbox(&session()?).await),
        "destroy_sandbox" => json(client.destroy_sandbox(&session()?).await),
        "create_sandbox_image" => {
            let options = CreateImageOptions {
                label: args.optional_text("label")?,
                base: args.optional_text("base")?,
                python_packages: args.parse("python_packages")?.unwrap_or_default(),
                apt_packages: args.parse("apt_packages")?.unwrap_or_default(),
                npm_packages: args.parse("npm_packages")?.unwrap_or_default(),
            };
            json(client.create_image(&options).await)
        }
        "get_sandbox_image" => json(client.get_image(&args.text("image_id")?).await),
        "list_sandbox_images" => json(client.list_images().await),
        "delete_sandbox_image" => json(client.delete_image(&args.text("image_id")?).await),
        "create_sandbox_volume" => {
            let size_gb = args
                .parse("size_gb")?
                .ok_or("argument size_gb is required")?;
            json(
                client
                    .create_volume(size_gb, args.optional_text("label")?.as_deref())
                    .await,
            )
        }
        "get_sandbox_volume" => json(client.get_volume(&args.text("volume_id")?).await),
        "list_sandbox_volumes" => json(client.list_volumes().await),
        "delete_sandbox_volume" => json(client.delete_volume(&args.text("volume_id")?).await),
        "create_mcp_connection" => json(
            client
                .create_mcp_connection(&args.text("label")?, &args.text("catalog_id")?)
                .await,
        ),
        "list_mcp_connections" => json(client.list_mcp_connections().await),
        "delete_mcp_connection" => json(
            client
                .delete_mcp_connection(&args.text("connection_id")?)
                .await,
        ),
        "create_secret" => {
            let hosts: Vec<String> = args.parse("allowed_hosts")?.unwrap_or_default();
            let hosts: Vec<&str> = hosts.iter().map(String::as_str).collect();
            json(
                client
                    .create_secret(&args.text("name")?, &args.text("value")?, &hosts)
                    .await,
            )
        }
        "list_secrets" => json(client.list_secrets().await),
        "delete_secret" => json(client.delete_secret(&args.text("secret_id")?).await),
        "remember" => {
            let options = RememberOptions {
                scope: args.optional_text("scope")?,
                kind: args.parse("kind")?,
                metadata: args.parse("metadata")?,
                source_session_id: args.optional_text("source_session_id")?,
                importance: args.parse("importance")?,
            };
            json(client.remember(&args.text("content")?, options).await)
        }
        "ingest_memory" => {
            // "auto" is the SDK's default (None); any other kind names one.
            let kind = match args.optional_text("kind")?.as_deref() {
                None | Some("auto") => None,
                Some(_) => args.parse("kind")?,
            };
            let options = IngestOptions {
                scope: args.optional_text("scope")?,
                kind,
                metadata: args.parse("metadata")?,
                source_session_id: args.optional_text("source_session_id")?,
            };
            json(client.ingest_memory(&args.text("content")?, options).await)
        }
        "import_memories" => {
            let memories = args.parse("memories")?.unwrap_or_default();
            json(
                client
                    .import_memories(memories, args.parse("relations")?.unwrap_or_default())
                    .await,
            )
        }
        "memory_metrics" => json(
            client
                .memory_metrics(args.optional_text("scope")?.as_deref())
                .await,
        ),
        "recall" => {
            let scope = args.optional_text("scope")?;
            json(
                client
                    .recall(&args.text("query")?, scope.as_deref(), args.parse("limit")?)
                    .await,
            )
        }
        "memory_profile" => {
            let scope = args.optional_text("scope")?;
            json(
                client
                    .memory_profile(scope.as_deref(), args.parse("limit")?)
                    .await,
            )
        }
        "export_memories" => json(
            client
                .export_memories(args.optional_text("scope")?.as_deref())
                .await,
        ),
        "list_memories" => {
            let options = ListMemoriesOptions {
                scope: args.optional_text("scope")?,
                include_superseded: args.parse("include_superseded")?.unwrap_or(false),
                limit: args.parse("limit")?,
                offset: args.parse("offset")?,
            };
            json(client.list_memories(options).await)
        }
        "memory_relations" => json(
            client
                .memory_relations(&args.text("memory_id")?, args.parse("limit")?)
                .await,
        ),
        "get_memory" => json(client.get_memory(&args.text("memory_id")?).await),
        "forget_memory" => json(client.forget_memory(&args.text("memory_id")?).await),
        "list_tools" => json(client.list_tools().await),
        "call_tool" => {
            let input = args
                .parse("input")?
                .unwrap_or_else(|| Value::Object(Default::default()));
            client.call_tool(&args.text("name")?, input).await
        }
        other => return crate::sandbox_calls::dispatch(client, other, &args).await,
    })
}
