//! `Client::from_env` reads CAIRN_BASE_URL and CAIRN_API_KEY as the other SDKs do: an unset or
//! empty variable means the default (the local server, no API key). The environment is the
//! process's, so this binary holds one test that changes it.

mod support;

use cairn_client::{Client, DEFAULT_BASE_URL};
use support::{Answer, ScriptedServer};

fn set(name: &str, value: Option<&str>) {
    match value {
        Some(value) => std::env::set_var(name, value),
        None => std::env::remove_var(name),
    }
}

fn authorization(server: &ScriptedServer, index: usize) -> Option<String> {
    server.received()[index]
        .headers
        .iter()
        .find(|(name, _)| name == "authorization")
        .map(|(_, value)| value.clone())
}

#[tokio::test]
async fn from_env_reads_both_variables_and_takes_empty_as_unset() {
    for unset in [None, Some("")] {
        set("CAIRN_BASE_URL", unset);
        set("CAIRN_API_KEY", unset);
        let client = Client::from_env().unwrap_or_else(|error| panic!("{unset:?}: {error}"));
        assert_eq!(client.base_url(), DEFAULT_BASE_URL, "{unset:?}");
    }

    let server = ScriptedServer::start(vec![Answer::new(200, "[]")]).await;
    // A key from the environment is sent; an empty one is none at all.
    let cases = [
        (Some("cairn_fromenv"), Some("Bearer cairn_fromenv")),
        (Some(""), None),
    ];
    for (index, (key, sent)) in cases.into_iter().enumerate() {
        set("CAIRN_BASE_URL", Some(&format!("{}/", server.base_url)));
        set("CAIRN_API_KEY", key);
        let client = Client::from_env().unwrap_or_else(|error| panic!("{key:?}: {error}"));
        assert_eq!(client.base_url(), server.base_url);
        client.list_secrets().await.unwrap();
        assert_eq!(authorization(&server, index).as_deref(), sent, "{key:?}");
    }

    set("CAIRN_BASE_URL", Some("http://cairn.example.com"));
    set("CAIRN_API_KEY", None);
    assert!(Client::from_env().is_err(), "plain http to another host");
}
