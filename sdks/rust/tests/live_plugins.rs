//! A plugin's tools through `list_tools` and `call_tool`, against the live server that loads the
//! example plugins (`CAIRN_TEST_PLUGINS_BASE_URL`; examples/plugins: todo and session-journal).

mod support;

use cairn_client::{CairnError, Client};
use serde_json::json;
use support::{key_on, live_plugins_base_url};

#[tokio::test]
async fn plugin_tools_are_listed_and_called_by_name() {
    let base_url = live_plugins_base_url();
    let client = Client::new(&base_url, &key_on(&base_url).await).unwrap();
    let listing = client.list_tools().await.unwrap();
    let plugin_of = |name: &str| {
        listing
            .tools
            .iter()
            .find(|tool| tool.name == name)
            .and_then(|tool| tool.plugin.clone())
    };
    assert_eq!(plugin_of("todo.add").as_deref(), Some("todo"));
    assert_eq!(
        plugin_of("session-journal.recent").as_deref(),
        Some("session-journal")
    );

    let added = client
        .call_tool("todo.add", json!({ "text": "Tag the Rust release" }))
        .await
        .unwrap();
    assert_eq!(
        (&added["text"], &added["done"]),
        (&json!("Tag the Rust release"), &json!(false))
    );
    let listed = client.call_tool("todo.list", json!({})).await.unwrap();
    assert_eq!(listed["tasks"][0]["id"], added["id"]);
    assert_eq!(listed["tasks"].as_array().unwrap().len(), 1);
    let finished = client
        .call_tool("todo.done", json!({ "id": added["id"] }))
        .await
        .unwrap();
    assert_eq!(finished["done"], json!(true));
    let missing = client
        .call_tool("todo.done", json!({ "id": "t-none" }))
        .await
        .unwrap_err();
    assert!(
        matches!(&missing, CairnError::Api { status: 404, code, .. } if code == "not_found"),
        "{missing:?}"
    );
}
