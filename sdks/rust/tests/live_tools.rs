//! Tools by name against the live server the test command starts (`CAIRN_TEST_BASE_URL`): the
//! listing, built-in tools through `call_tool`, the idempotency key, and refusals as
//! `CairnError::Api`.

mod support;

use cairn_client::{CairnError, CallToolOptions};
use serde_json::json;
use support::{live_account, random_hex};

#[tokio::test]
async fn list_tools_describes_recall() {
    let client = live_account().await;
    let listing = client.list_tools().await.unwrap();
    let recall = listing
        .tools
        .iter()
        .find(|tool| tool.name == "recall")
        .expect("recall is listed");
    assert_eq!(recall.plugin, None);
    assert!(recall.annotations.read_only);
    assert!(recall.input_schema["properties"]["q"].is_object());
}

#[tokio::test]
async fn call_tool_remembers_then_recalls() {
    let client = live_account().await;
    let stored = client
        .call_tool(
            "remember",
            json!({ "content": "The Rust SDK calls tools by name." }),
        )
        .await
        .unwrap();
    let found = client
        .call_tool("recall", json!({ "q": "tools by name", "limit": 3 }))
        .await
        .unwrap();
    assert_eq!(found["memories"][0]["id"], stored["id"]);
    assert_eq!(found["memories"].as_array().unwrap().len(), 1);
    // A route that answers 204 answers {} through the tool route.
    let forgotten = client
        .call_tool("forget_memory", json!({ "memory_id": stored["id"] }))
        .await
        .unwrap();
    assert_eq!(forgotten, json!({}));
}

#[tokio::test]
async fn call_tool_with_an_idempotency_key_replays_the_first_answer() {
    let client = live_account().await;
    let options = CallToolOptions {
        idempotency_key: Some(format!("rust-{}", random_hex())),
        ..Default::default()
    };
    let input = json!({ "content": "Replayed, not stored twice." });
    let first = client
        .call_tool_with("remember", input.clone(), options.clone())
        .await
        .unwrap();
    let again = client
        .call_tool_with("remember", input, options.clone())
        .await
        .unwrap();
    assert_eq!(first, again);
    let reuse = client
        .call_tool_with("remember", json!({ "content": "Another body." }), options)
        .await
        .unwrap_err();
    assert!(
        matches!(&reuse, CairnError::Api { status: 422, code, .. } if code == "idempotency_key_reuse"),
        "{reuse:?}"
    );
}

#[tokio::test]
async fn call_tool_refusals_are_api_errors() {
    let client = live_account().await;
    let unknown = client
        .call_tool("no_such_tool", json!({}))
        .await
        .unwrap_err();
    assert!(
        matches!(&unknown, CairnError::Api { status: 404, code, .. } if code == "not_found"),
        "{unknown:?}"
    );
    let invalid = client
        .call_tool("recall", json!({ "q": "" }))
        .await
        .unwrap_err();
    assert!(
        matches!(&invalid, CairnError::Api { status: 422, code, .. } if code == "validation_error"),
        "{invalid:?}"
    );
}
