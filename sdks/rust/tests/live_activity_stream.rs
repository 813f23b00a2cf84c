//! The activity feed followed live against the live server: a watch from now sees new entries and
//! not what was there before, and ends (`None`) once the sandbox is destroyed (at once for an
//! ended one); a watch from a `seq` replays what came after it; an unknown sandbox is a 404.

mod support;

use cairn_client::{CreateSandboxOptions, ExecOptions};
use support::live_account;

#[tokio::test]
async fn watches_new_activity_live_and_ends_with_the_sandbox() {
    let client = live_account().await;
    let sandbox = client
        .create_sandbox(&CreateSandboxOptions::default())
        .await
        .unwrap();
    let id = sandbox.sandbox.id.clone();
    client
        .exec(&id, "echo before", ExecOptions::default())
        .await
        .unwrap();
    let before = client.sandbox_log(&id, Some(1), 0).await.unwrap().entries[0].seq;

    let mut stream = client.watch_sandbox(&id, None);
    // The watch starts with what happens after it connected: exec until it has seen an entry
    // (one read, kept across the execs, so its connection is never dropped half-way).
    let first = {
        let next = stream.next();
        tokio::pin!(next);
        loop {
            tokio::select! {
                entry = &mut next => break entry.expect("the watch ended before any entry").unwrap(),
                exec = client.exec(&id, "echo live", ExecOptions::default()) => { exec.unwrap(); }
            }
        }
    };
    assert_eq!(
        (
            first.kind.as_str(),
            first.operation.as_str(),
            first.subject.as_str(),
            first.exit_code
        ),
        ("command", "exec", "echo live", Some(0))
    );
    assert!(first.seq > before);
    assert!(first.key_id.as_deref().is_some_and(|key| !key.is_empty()));

    // From a seq: what came after it is replayed, oldest first.
    let mut replay = client.watch_sandbox(&id, Some(before));
    let replayed = replay.next().await.unwrap().unwrap();
    assert_eq!(replayed.subject, "echo live");
    assert!(replayed.seq > before && replayed.seq <= first.seq);
    assert_eq!(replay.last_seq(), Some(replayed.seq));
    drop(replay);

    // The sandbox's end ends the watch, without an error.
    client.destroy_sandbox(&id).await.unwrap();
    while let Some(entry) = stream.next().await {
        let entry = entry.unwrap();
        assert_eq!(
            (entry.kind.as_str(), entry.subject.as_str()),
            ("command", "echo live")
        );
    }

    // An ended sandbox's watch ends at once; an unknown one is refused.
    assert!(client.watch_sandbox(&id, None).next().await.is_none());
    let refused = client
        .watch_sandbox("00000000-0000-4000-8000-000000000000", None)
        .next()
        .await
        .unwrap()
        .unwrap_err();
    assert_eq!(
        (refused.status(), refused.code()),
        (Some(404), Some("not_found"))
    );
}
