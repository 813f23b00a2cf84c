//! What the SDK puts on the wire, seen by a scripted server: memory defaults sent explicitly, the
//! bearer credential, path encoding, and the HTTP timeout of exec (and of a tool call whose input
//! has a sandbox-side timeout): that timeout + 15 s.

mod support;

use cairn_client::{
    CairnError, CallToolOptions, ExecOptions, IngestOptions, ListMemoriesOptions, MemoryKind,
    RememberOptions,
};
use serde_json::json;
use std::time::Duration;
use support::{Answer, ScriptedServer};

const MEMORY: &str = r#"{"id":"m1","scope":"default","kind":"fact","content":"c","metadata":{},
  "source_session_id":null,"created_at":"t","updated_at":"t","expires_at":null,"source_content":null,
  "document_date":null,"event_dates":[],"importance":0.5,"access_count":0,"last_accessed_at":null,
  "superseded_at":null,"superseded_by_id":null}"#;

#[tokio::test]
async fn remember_sends_every_default() {
    let server = ScriptedServer::start(vec![Answer::new(201, MEMORY)]).await;
    let client = server.client().build().unwrap();
    client
        .remember("The sky is blue.", RememberOptions::default())
        .await
        .unwrap();
    let request = &server.received()[0];
    assert_eq!(
        (request.method.as_str(), request.target.as_str()),
        ("POST", "/v1/memory")
    );
    assert_eq!(
        request.json(),
        json!({"content": "The sky is blue.", "scope": "default", "kind": "fact", "metadata": {},
               "source_session_id": null, "importance": 0.5})
    );
    let authorization = request
        .headers
        .iter()
        .find(|(name, _)| name == "authorization")
        .unwrap();
    assert_eq!(authorization.1, "Bearer cairn_scripted");
}

#[tokio::test]
async fn ingest_sends_kind_auto_unless_a_kind_is_chosen() {
    let batch = format!(r#"{{"source_session_id":"s1","memories":[{MEMORY}]}}"#);
    let server = ScriptedServer::start(vec![Answer::new(201, &batch)]).await;
    let client = server.client().build().unwrap();
    client
        .ingest_memory("Notes.", IngestOptions::default())
        .await
        .unwrap();
    let options = IngestOptions {
        kind: Some(MemoryKind::Preference),
        ..IngestOptions::default()
    };
    client.ingest_memory("Notes.", options).await.unwrap();
    let received = server.received();
    assert_eq!(
        (received[0].method.as_str(), received[0].target.as_str()),
        ("POST", "/v1/memory/ingest")
    );
    assert_eq!(
        received[0].json(),
        json!({"content": "Notes.", "scope": "default", "kind": "auto", "metadata": {},
               "source_session_id": null})
    );
    assert_eq!(received[1].json()["kind"], "preference");
}

#[tokio::test]
async fn list_and_recall_send_their_defaults_in_the_query() {
    let server = ScriptedServer::start(vec![
        Answer::new(200, "[]"),
        Answer::new(200, r#"{"query":"a b","memories":[]}"#),
        Answer::new(200, r#"{"static":[],"dynamic":[]}"#),
    ])
    .await;
    let client = server.client().build().unwrap();
    client
        .list_memories(ListMemoriesOptions::default())
        .await
        .unwrap();
    client.recall("a b&c", Some("work"), None).await.unwrap();
    client.memory_profile(None, None).await.unwrap();
    let targets: Vec<String> = server
        .received()
        .into_iter()
        .map(|request| request.target)
        .collect();
    assert_eq!(
        targets,
        [
            "/v1/memory?include_superseded=false&limit=50&offset=0",
            "/v1/memory/search?q=a+b%26c&scope=work&limit=10",
            "/v1/memory/profile?limit=20",
        ]
    );
}

#[tokio::test]
async fn ids_are_encoded_as_one_path_segment() {
    let server = ScriptedServer::start(vec![Answer::new(204, "")]).await;
    let client = server.client().build().unwrap();
    client.forget_memory("a/../b c").await.unwrap();
    assert_eq!(server.received()[0].target, "/v1/memory/a%2F..%2Fb%20c");
}

#[tokio::test]
async fn exec_waits_its_command_timeout_plus_fifteen_seconds() {
    let result = r#"{"exit_code":0,"stdout":"done\n","stderr":"","timed_out":false,"truncated":false,"duration_ms":2000,"stdout_omitted_bytes":0,"stderr_omitted_bytes":0}"#;
    let slow = Duration::from_secs(2);
    let server = ScriptedServer::start(vec![Answer::new(200, result).delayed(slow)]).await;
    // The client's own timeout is shorter than the answer takes…
    let client = server
        .client()
        .timeout(Duration::from_secs(1))
        .build()
        .unwrap();
    let error = client.list_sandboxes(false).await.unwrap_err();
    assert!(matches!(error, CairnError::Connection { .. }), "{error:?}");
    // …but exec waits its command's timeout (here 1 s) plus 15 s, so the answer arrives.
    let options = ExecOptions {
        timeout: Some(1),
        ..ExecOptions::default()
    };
    let output = client
        .exec("session", "sleep 2; echo done", options)
        .await
        .unwrap();
    assert_eq!(output.stdout, "done\n");
    assert_eq!(
        server.received()[1].json(),
        json!({"command": "sleep 2; echo done", "timeout": 1})
    );
}

#[tokio::test]
async fn call_tool_waits_an_input_timeout_plus_fifteen_seconds() {
    let result = r#"{"exit_code":0,"stdout":"done\n","stderr":"","timed_out":false}"#;
    let server = ScriptedServer::start(vec![
        Answer::new(200, result).delayed(Duration::from_secs(1))
    ])
    .await;
    // The client's own timeout is shorter than the answer takes…
    let client = server
        .client()
        .timeout(Duration::from_millis(300))
        .build()
        .unwrap();
    let error = client
        .call_tool("recall", json!({"q": "deploy day"}))
        .await
        .unwrap_err();
    assert!(matches!(error, CairnError::Connection { .. }), "{error:?}");
    let error = client
        .call_tool(
            "exec",
            json!({"session_id": "s", "command": "true", "timeout": 0}),
        )
        .await
        .unwrap_err();
    assert!(matches!(error, CairnError::Connection { .. }), "{error:?}");
    // …but an input's sandbox-side timeout (whole or fractional seconds) is waited for + 15 s…
    let input = json!({"session_id": "s", "command": "sleep 1; echo done", "timeout": 1});
    let output = client.call_tool("exec", input.clone()).await.unwrap();
    assert_eq!(output["stdout"], "done\n");
    let fraction = json!({"session_id": "s", "url": "https://example.com", "timeout": 0.5});
    client.call_tool("http_request", fraction).await.unwrap();
    // …unless the caller names its own wait.
    let options = CallToolOptions {
        timeout: Some(Duration::from_millis(300)),
        ..CallToolOptions::default()
    };
    let error = client
        .call_tool_with("exec", input.clone(), options)
        .await
        .unwrap_err();
    assert!(matches!(error, CairnError::Connection { .. }), "{error:?}");
    assert_eq!(server.received()[2].json(), input);
}

#[tokio::test]
async fn a_success_body_that_is_not_the_documented_json_is_a_decode_error() {
    let server = ScriptedServer::start(vec![Answer::new(200, "<html>proxy</html>")]).await;
    let client = server.client().build().unwrap();
    let error = client.account().await.unwrap_err();
    assert!(matches!(error, CairnError::Decode { .. }), "{error:?}");
}

#[tokio::test]
async fn nothing_listening_is_a_connection_error() {
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let client = cairn_client::Client::new(&format!("http://127.0.0.1:{port}"), "cairn_x").unwrap();
    let error = client.usage().await.unwrap_err();
    assert!(matches!(error, CairnError::Connection { .. }), "{error:?}");
    assert!(error.is_retryable());
}
