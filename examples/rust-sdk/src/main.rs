//! A Cairn agent's day in a few calls, with the Rust SDK: remember a preference, recall it, then
//! run code in a sandbox that is destroyed afterwards. Reads `CAIRN_BASE_URL` and `CAIRN_API_KEY`.
//!
//! `CAIRN_BASE_URL=http://127.0.0.1:8090 CAIRN_API_KEY=cairn_… cargo run`

use cairn_client::{
    CairnError, Client, CreateSandboxOptions, ExecOptions, MemoryKind, RememberOptions,
};

#[tokio::main]
async fn main() -> Result<(), CairnError> {
    let client = Client::from_env()?;
    let account = client.account().await?;
    println!("signed in as {}", account.email);

    // Memory: a preference the agent should keep across sessions, and a question that finds it.
    let preference = RememberOptions {
        kind: Some(MemoryKind::Preference),
        ..Default::default()
    };
    let memory = client
        .remember(
            "The user prefers concise answers with code first.",
            preference,
        )
        .await?;
    println!("remembered {} ({:?})", memory.id, memory.kind);
    let found = client
        .recall("how does the user like answers?", None, Some(3))
        .await?;
    let best = found
        .memories
        .first()
        .map(|hit| hit.memory.content.as_str())
        .unwrap_or("nothing");
    println!("recalled: {best}");

    // A sandbox for one piece of work; with_sandbox destroys it whatever the work returns.
    let output = client
        .with_sandbox(
            &CreateSandboxOptions {
                label: Some("rust example".into()),
                ..Default::default()
            },
            |sandbox| async move {
                sandbox
                    .file_create("hello.py", "print(sum(range(10)))\n")
                    .await?;
                sandbox
                    .exec("python3 hello.py", ExecOptions::default())
                    .await
            },
        )
        .await?;
    println!("sandbox printed {}", output.stdout.trim());

    // Errors carry the server's code: forgetting twice finds nothing the second time.
    client.forget_memory(&memory.id).await?;
    match client.forget_memory(&memory.id).await {
        Err(error) if error.code() == Some("memory_not_found") => println!("forgotten: {error}"),
        other => panic!("expected memory_not_found, got {other:?}"),
    }
    Ok(())
}
