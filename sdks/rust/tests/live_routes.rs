//! Against the live server the test command starts (`CAIRN_TEST_BASE_URL`): exec outliving the
//! client's own timeout, and a tour of the other routes through the public methods.

mod support;

use cairn_client::{
    CairnError, Client, CommandRule, CreateSandboxOptions, ExecOptions, GrepOptions, ImportMemory,
    ListMemoriesOptions, MemoryKind, RememberOptions, ViewOptions,
};
use std::time::Duration;
use support::{live_account, live_base_url, live_key};

#[tokio::test]
async fn exec_outlives_the_clients_own_timeout() {
    let key = live_key().await;
    let client = Client::new(&live_base_url(), &key).unwrap();
    // Only exec goes through the impatient client, so a slow sandbox start cannot fail the test.
    let impatient = Client::builder()
        .base_url(live_base_url())
        .api_key(key)
        .timeout(Duration::from_secs(1))
        .build()
        .unwrap();
    let options = CreateSandboxOptions {
        label: Some("rust exec timeout".into()),
        ..Default::default()
    };
    let output = client
        .with_sandbox(&options, |sandbox| async move {
            let options = ExecOptions {
                timeout: Some(10),
                description: Some("outlive the client timeout".into()),
                ..ExecOptions::default()
            };
            impatient
                .exec(sandbox.id(), "sleep 3; echo done", options)
                .await
        })
        .await
        .unwrap();
    assert_eq!((output.exit_code, output.stdout.as_str()), (0, "done\n"));
}

#[tokio::test]
async fn with_sandbox_runs_files_and_destroys_the_sandbox() {
    let client = live_account().await;
    let (id, listing) = client
        .with_sandbox(&CreateSandboxOptions::default(), |sandbox| async move {
            let written = sandbox
                .file_create("src/main.py", "print('hi')\nprint('there')\n")
                .await?;
            assert!(written.created);
            let range = ViewOptions {
                view_range: Some((2, 2)),
                ..ViewOptions::default()
            };
            let view = sandbox.view("src/main.py", range).await?;
            assert!(
                view.content.contains("there") && !view.content.contains("hi'"),
                "{view:?}"
            );
            let replaced = sandbox
                .str_replace("src/main.py", "there", "you", false)
                .await?;
            assert_eq!(replaced.replaced, 1);
            let matches = sandbox.grep("you", GrepOptions::default()).await?;
            assert!(
                matches.matches[0].path.ends_with("src/main.py"),
                "{matches:?}"
            );
            let globbed = sandbox.glob("**/*.py", None).await?;
            assert_eq!(globbed.matches.len(), 1);
            let run = sandbox
                .exec("python3 src/main.py", ExecOptions::default())
                .await?;
            assert_eq!(run.stdout, "hi\nyou\n");
            let listing = sandbox.ls("/").await?;
            Ok::<_, CairnError>((sandbox.id().to_string(), listing))
        })
        .await
        .unwrap();
    assert!(listing
        .entries
        .iter()
        .any(|entry| entry.path.trim_end_matches('/').ends_with("src") && entry.is_dir));
    let after = client.get_sandbox(&id).await.unwrap();
    assert_eq!(
        (after.status.as_str(), after.ended_reason.as_deref()),
        ("destroyed", Some("destroyed"))
    );
}

#[tokio::test]
async fn memory_round_trip_with_the_defaults() {
    let client = live_account().await;
    let remembered = client
        .remember("Ada prefers tea over coffee.", RememberOptions::default())
        .await
        .unwrap();
    assert_eq!(
        (
            remembered.scope.as_str(),
            remembered.kind,
            remembered.importance
        ),
        ("default", MemoryKind::Fact, 0.5)
    );
    let options = RememberOptions {
        scope: Some("work".into()),
        kind: Some(MemoryKind::Goal),
        ..Default::default()
    };
    let goal = client
        .remember("Ship the Rust SDK this week.", options)
        .await
        .unwrap();
    assert_eq!(goal.kind, MemoryKind::Goal);
    let found = client
        .recall("what does Ada prefer", None, Some(5))
        .await
        .unwrap();
    assert_eq!(found.memories[0].memory.id, remembered.id);
    let listed = client
        .list_memories(ListMemoriesOptions {
            scope: Some("work".into()),
            ..Default::default()
        })
        .await
        .unwrap();
    assert_eq!(listed.len(), 1);
    let profile = client.memory_profile(Some("work"), None).await.unwrap();
    assert_eq!(profile.dynamic_memories.len(), 1);
    let metrics = client.memory_metrics(None).await.unwrap();
    assert_eq!(metrics.total_memories, 2);
    let ingested = client
        .ingest_memory(
            "We must deploy on Fridays. Summary: the release train is weekly.",
            Default::default(),
        )
        .await
        .unwrap();
    assert!(!ingested.memories.is_empty());

    let export = client.export_memories(Some("work")).await.unwrap();
    let other = live_account().await;
    let memories: Vec<ImportMemory> = export.memories.into_iter().map(Into::into).collect();
    let relations = export.relations.into_iter().map(Into::into).collect();
    let imported = other.import_memories(memories, relations).await.unwrap();
    assert_eq!(imported.memories[0].content, "Ship the Rust SDK this week.");

    client.forget_memory(&goal.id).await.unwrap();
    let gone = client.get_memory(&goal.id).await.unwrap_err();
    assert_eq!(gone.code(), Some("memory_not_found"));
}

#[tokio::test]
async fn account_keys_allowlist_and_connections() {
    let base_url = live_base_url();
    let anonymous = Client::builder().base_url(&base_url).build().unwrap();
    let email = format!("rust-sdk-account-{}@example.com", support::random_hex());
    anonymous
        .signup(&email, "rust sdk password 1")
        .await
        .unwrap();
    let token = anonymous
        .login(&email, "rust sdk password 1")
        .await
        .unwrap();
    assert_eq!(token.token_type, "bearer");
    let created = anonymous
        .create_api_key(&token.access_token, "tour")
        .await
        .unwrap();
    assert!(created.key.starts_with("cairn_"));
    let client = Client::new(&base_url, &created.key).unwrap();
    assert_eq!(client.account().await.unwrap().email, email);
    assert_eq!(client.usage().await.unwrap().usage.concurrent_sandboxes, 0);

    let rules = vec![
        CommandRule::Command("ls".into()),
        CommandRule::Patterns {
            command: "git".into(),
            args_allow: vec!["^status".into()],
            args_deny: vec![],
        },
    ];
    assert_eq!(
        client
            .set_allowed_commands(&rules)
            .await
            .unwrap()
            .rules
            .len(),
        2
    );
    assert_eq!(client.get_allowed_commands().await.unwrap().rules, rules);
    client.clear_allowed_commands().await.unwrap();
    assert!(client
        .get_allowed_commands()
        .await
        .unwrap()
        .rules
        .is_empty());

    let connection = client
        .create_mcp_connection("team slack", "slack")
        .await
        .unwrap();
    assert_eq!(connection.host, "mcp.slack.com");
    assert_eq!(client.list_mcp_connections().await.unwrap().len(), 1);
    client.delete_mcp_connection(&connection.id).await.unwrap();
    assert!(client.list_images().await.unwrap().is_empty());
    assert!(client.list_volumes().await.unwrap().is_empty());
    assert!(client.list_secrets().await.unwrap().is_empty());

    let keys = anonymous.list_api_keys(&token.access_token).await.unwrap();
    assert_eq!(keys.len(), 1);
    anonymous
        .revoke_api_key(&token.access_token, &created.api_key.id)
        .await
        .unwrap();
    let revoked = client.account().await.unwrap_err();
    assert_eq!(revoked.code(), Some("invalid_api_key"));
}
