//! Snapshots, key roles and the activity feed against the live server: a snapshot restored into a
//! new sandbox keeps the files while the source changes; a member key cannot delete it (403
//! insufficient_role); the log records the exec with its exit code.

mod support;

use cairn_client::{Client, CreateSandboxOptions, ExecOptions};
use support::live_base_url;

#[tokio::test]
async fn restores_a_snapshot_refuses_a_member_delete_and_logs_the_exec() {
    let base_url = live_base_url();
    let anonymous = Client::builder().base_url(&base_url).build().unwrap();
    let email = format!("rust-sdk-snapshots-{}@example.com", std::process::id());
    let token = anonymous
        .signup(&email, "rust sdk password 1")
        .await
        .unwrap();
    let admin_key = anonymous
        .create_api_key_with_role(&token.access_token, "admin", "admin")
        .await
        .unwrap();
    let member_key = anonymous
        .create_api_key_with_role(&token.access_token, "agent", "member")
        .await
        .unwrap();
    let client = Client::new(&base_url, &admin_key.key).unwrap();
    let member = Client::new(&base_url, &member_key.key).unwrap();

    let sandbox = client
        .create_sandbox(&CreateSandboxOptions::default())
        .await
        .unwrap();
    let id = sandbox.sandbox.id.as_str();
    client
        .exec(id, "echo kept > a.txt; exit 2", ExecOptions::default())
        .await
        .unwrap();
    let snapshot = client.create_snapshot(id, Some("rust")).await.unwrap();
    assert_eq!(
        (snapshot.status.as_str(), snapshot.session_id.as_str()),
        ("ready", id)
    );
    let listed = client.list_snapshots(id).await.unwrap();
    assert_eq!(listed.len(), 1);
    client
        .exec(id, "echo changed > a.txt", ExecOptions::default())
        .await
        .unwrap();
    let restored = client.restore_snapshot(&snapshot.id, None).await.unwrap();
    let read = client
        .exec(&restored.sandbox.id, "cat a.txt", ExecOptions::default())
        .await
        .unwrap();
    assert_eq!(read.stdout, "kept\n");

    let refused = member.delete_snapshot(&snapshot.id).await.unwrap_err();
    assert_eq!(
        (refused.status(), refused.code()),
        (Some(403), Some("insufficient_role"))
    );
    client.delete_snapshot(&snapshot.id).await.unwrap();

    let log = client.sandbox_log(id, Some(10), 0).await.unwrap();
    let first = log.entries.last().unwrap();
    assert_eq!((first.kind.as_str(), first.exit_code), ("command", Some(2)));
    client.destroy_sandbox(&restored.sandbox.id).await.unwrap();
    client.destroy_sandbox(id).await.unwrap();
}
