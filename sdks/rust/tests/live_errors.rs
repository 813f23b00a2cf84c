//! Against the live server the test command starts (`CAIRN_TEST_BASE_URL`): the error envelope
//! parsed from real answers (404, 401, 422, 429 from a third sandbox).

mod support;

use cairn_client::{ApiErrorType, CairnError, Client, CreateSandboxOptions};
use support::{live_account, live_base_url, live_key};

#[tokio::test]
async fn not_found_answers_parse_into_api_errors() {
    let client = live_account().await;
    let error = client
        .get_sandbox("00000000-0000-4000-8000-000000000000")
        .await
        .unwrap_err();
    let CairnError::Api {
        status,
        code,
        message,
        retryable,
        request_id,
        ..
    } = &error
    else {
        panic!("not an API error: {error:?}");
    };
    assert_eq!((*status, code.as_str()), (404, "not_found"));
    assert!(
        !message.is_empty() && !message.starts_with("HTTP "),
        "the server's message: {message}"
    );
    assert!(!retryable);
    assert_eq!(request_id.as_deref().map(str::len), Some(32));
    assert_eq!(error.api_error_type(), None);

    let error = client
        .get_memory("00000000-0000-4000-8000-000000000000")
        .await
        .unwrap_err();
    assert_eq!(
        (error.status(), error.code()),
        (Some(404), Some("memory_not_found"))
    );
}

#[tokio::test]
async fn credential_failures_are_401s_with_their_codes() {
    let base_url = live_base_url();
    let unknown_key =
        Client::new(&base_url, "cairn_0000000000000000000000000000000000000A").unwrap();
    let error = unknown_key.account().await.unwrap_err();
    assert_eq!(
        (error.status(), error.code()),
        (Some(401), Some("invalid_api_key"))
    );
    assert!(!error.is_retryable());

    let no_key = Client::builder().base_url(&base_url).build().unwrap();
    let error = no_key.usage().await.unwrap_err();
    assert_eq!(
        (error.status(), error.code()),
        (Some(401), Some("missing_credentials"))
    );

    // An API key where the key routes want the dashboard token.
    let key = live_key().await;
    let error = no_key.list_api_keys(&key).await.unwrap_err();
    assert_eq!(
        (error.status(), error.code()),
        (Some(401), Some("wrong_credential_type"))
    );
}

#[tokio::test]
async fn validation_errors_are_422_with_details() {
    let client = live_account().await;
    let error = client.recall("", None, None).await.unwrap_err();
    let CairnError::Api {
        status,
        code,
        details,
        retryable,
        ..
    } = &error
    else {
        panic!("not an API error: {error:?}");
    };
    assert_eq!((*status, code.as_str()), (422, "validation_error"));
    assert!(!retryable);
    assert!(
        details.as_ref().is_some_and(|details| details.is_array()),
        "{details:?}"
    );
}

#[tokio::test]
async fn a_third_concurrent_sandbox_is_a_quota_error() {
    let client = live_account().await;
    let sandboxes = client
        .create_sandbox_batch(2, &CreateSandboxOptions::default())
        .await
        .unwrap();
    assert_eq!(sandboxes.len(), 2);
    assert_eq!(sandboxes[1].usage.concurrent_sandboxes, 2);
    let error = client
        .create_sandbox(&CreateSandboxOptions::default())
        .await
        .unwrap_err();
    let CairnError::Api {
        status,
        code,
        retryable,
        details,
        ..
    } = &error
    else {
        panic!("not an API error: {error:?}");
    };
    assert_eq!(
        (*status, code.as_str()),
        (429, "concurrent_sandbox_limit_reached")
    );
    assert!(!retryable, "a quota is not retryable");
    assert_eq!(details.as_ref().unwrap()["limit"], 2);
    assert_eq!(error.api_error_type(), Some(ApiErrorType::QuotaExceeded));
    assert_eq!(error.api_error_type().unwrap().as_str(), "quota_exceeded");
    for sandbox in &sandboxes {
        client.destroy_sandbox(&sandbox.sandbox.id).await.unwrap();
    }
    let active = client.list_sandboxes(true).await.unwrap();
    assert!(active.is_empty());
}
