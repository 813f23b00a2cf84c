//! The base-URL rule of CONTRACT §7, checked against the table every Cairn SDK runs
//! (test/conformance/base-urls.json), both through the rule itself and through the builder; and
//! the builder's check of the API key.

use cairn_client::{normalize_base_url, CairnError, Client};
use serde_json::Value;

fn table() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../test/conformance/base-urls.json"
    );
    let text = std::fs::read_to_string(path).expect("the shared base-URL table is readable");
    serde_json::from_str(&text).unwrap()
}

#[test]
fn accepted_urls_are_normalized() {
    let table = table();
    let accepted = table["accepted"].as_array().unwrap();
    assert!(!accepted.is_empty());
    for case in accepted {
        let (url, expected) = (
            case["url"].as_str().unwrap(),
            case["normalized"].as_str().unwrap(),
        );
        assert_eq!(normalize_base_url(url).unwrap(), expected, "{url}");
        let client = Client::builder()
            .base_url(url)
            .api_key("cairn_x")
            .build()
            .unwrap();
        assert_eq!(client.base_url(), expected, "{url}");
    }
}

#[test]
fn refused_urls_fail_at_construction() {
    let table = table();
    let refused = table["refused"].as_array().unwrap();
    assert!(!refused.is_empty());
    for case in refused {
        let url = case.as_str().unwrap();
        assert!(
            matches!(normalize_base_url(url), Err(CairnError::Config(_))),
            "{url} must be refused"
        );
        let built = Client::new(url, "cairn_x");
        assert!(
            matches!(built, Err(CairnError::Config(_))),
            "{url} must be refused by the builder"
        );
    }
}

#[test]
fn the_default_base_url_is_the_local_server() {
    let client = Client::builder().build().unwrap();
    assert_eq!(client.base_url(), "http://127.0.0.1:8090");
}

#[test]
fn an_api_key_that_cannot_travel_in_a_header_is_refused() {
    for key in ["", "cairn_ abc", "cairn_\nabc", "cairn_é"] {
        let built = Client::new("http://localhost:8090", key);
        assert!(
            matches!(built, Err(CairnError::Config(_))),
            "{key:?} must be refused"
        );
    }
    assert!(Client::new("http://localhost:8090", "cairn_abc").is_ok());
}
