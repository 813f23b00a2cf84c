//! Opt-in retry against a scripted server: idempotent verbs only, `Retry-After` in seconds and as
//! an HTTP date honoured, waits longer than the policy allows ending the retries, POST never repeated.

mod support;

use cairn_client::{ApiErrorType, CairnError, CreateSandboxOptions, RetryPolicy};
use std::time::Duration;
use support::{Answer, ScriptedServer};

fn unavailable(retry_after: &str) -> Answer {
    Answer::new(503, r#"{"error":{"code":"service_unavailable","message":"Busy","retryable":true,"remediation":null}}"#)
        .header("retry-after", retry_after)
}

#[tokio::test]
async fn a_get_is_retried_after_the_seconds_retry_after_asks_for() {
    let server = ScriptedServer::start(vec![unavailable("1"), Answer::new(200, "[]")]).await;
    let client = server.client().max_retries(2).build().unwrap();
    let sandboxes = client.list_sandboxes(false).await.unwrap();
    assert!(sandboxes.is_empty());
    assert_eq!(server.received().len(), 2);
}

#[tokio::test]
async fn an_http_date_retry_after_is_honoured() {
    // A date in the past: try again at once.
    let server = ScriptedServer::start(vec![
        unavailable("Sun, 06 Nov 1994 08:49:37 GMT"),
        Answer::new(200, "[]"),
    ])
    .await;
    let client = server.client().max_retries(1).build().unwrap();
    client.list_secrets().await.unwrap();
    assert_eq!(server.received().len(), 2);

    // A date far ahead is longer than the policy's longest wait: the error comes back at once,
    // which a client that ignored the date (and backed off half a second) would not do.
    let server = ScriptedServer::start(vec![
        unavailable("Fri, 01 Jan 2100 00:00:00 GMT"),
        Answer::new(200, "[]"),
    ])
    .await;
    let client = server.client().max_retries(2).build().unwrap();
    let error = client.list_secrets().await.unwrap_err();
    assert_eq!(error.status(), Some(503));
    assert_eq!(server.received().len(), 1);
    let wait = error.retry_after().expect("the date is parsed into a wait");
    assert!(wait > Duration::from_secs(365 * 24 * 3600));
}

#[tokio::test]
async fn a_retry_after_beyond_the_longest_wait_ends_the_retries() {
    let server = ScriptedServer::start(vec![unavailable("3600"), Answer::new(200, "[]")]).await;
    let policy = RetryPolicy {
        max_retries: 3,
        max_delay: Duration::from_secs(30),
        ..RetryPolicy::default()
    };
    let client = server.client().retry(policy).build().unwrap();
    let error = client.list_volumes().await.unwrap_err();
    assert_eq!(error.retry_after(), Some(Duration::from_secs(3600)));
    assert_eq!(
        error.api_error_type(),
        Some(ApiErrorType::ServiceUnavailable)
    );
    assert_eq!(server.received().len(), 1);
}

#[tokio::test]
async fn retries_stop_after_max_retries_with_the_last_error() {
    let server = ScriptedServer::start(vec![unavailable("0")]).await;
    let client = server.client().max_retries(2).build().unwrap();
    let error = client.get_sandbox("some-id").await.unwrap_err();
    assert_eq!(error.code(), Some("service_unavailable"));
    assert_eq!(
        server.received().len(),
        3,
        "the first attempt and two retries"
    );
}

#[tokio::test]
async fn a_post_is_never_retried() {
    let server = ScriptedServer::start(vec![unavailable("0"), Answer::new(201, "{}")]).await;
    let client = server.client().max_retries(3).build().unwrap();
    let error = client
        .create_sandbox(&CreateSandboxOptions::default())
        .await
        .unwrap_err();
    assert_eq!(error.status(), Some(503));
    assert_eq!(server.received().len(), 1);
    assert_eq!(server.received()[0].method, "POST");
}

#[tokio::test]
async fn retry_is_off_unless_asked_for() {
    let server = ScriptedServer::start(vec![unavailable("0"), Answer::new(200, "[]")]).await;
    let client = server.client().build().unwrap();
    assert!(client.list_images().await.is_err());
    assert_eq!(server.received().len(), 1);
}

#[tokio::test]
async fn client_errors_are_not_retried() {
    let not_found = r#"{"error":{"code":"not_found","message":"No such sandbox","retryable":false,"remediation":null}}"#;
    let server =
        ScriptedServer::start(vec![Answer::new(404, not_found), Answer::new(200, "{}")]).await;
    let client = server.client().max_retries(2).build().unwrap();
    let error = client.get_sandbox("missing").await.unwrap_err();
    assert!(matches!(&error, CairnError::Api { status: 404, code, .. } if code == "not_found"));
    assert_eq!(server.received().len(), 1);
}

#[tokio::test]
async fn a_put_is_retried() {
    let server = ScriptedServer::start(vec![
        unavailable("0"),
        Answer::new(200, r#"{"rules":["ls"]}"#),
    ])
    .await;
    let client = server.client().max_retries(1).build().unwrap();
    let rules = client
        .set_allowed_commands(&[cairn_client::CommandRule::Command("ls".into())])
        .await
        .unwrap();
    assert_eq!(rules.rules.len(), 1);
    assert_eq!(server.received().len(), 2);
    assert!(server
        .received()
        .iter()
        .all(|request| request.method == "PUT"));
}
